import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CountersignError,
  canonicalJson,
  formatApprovalHeader,
  operationFromApiResponse,
  operationFromEvent,
  operationFromToolResult,
  parseApprovalHeader,
  parseExtensionsHeader,
  parseOperation,
} from '../../src/protocol';
import { SEED_OPERATION_WITHOUT_TERMS } from './seed';

/** Property tests (fast-check). */

const id = fc.stringMatching(/^[A-Za-z0-9_-]{1,256}$/);

/** Run `f` and fail unless it returns or throws a CountersignError. */
function onlyCountersignErrors(f: () => unknown): void {
  try {
    f();
  } catch (error) {
    if (!(error instanceof CountersignError)) throw new Error(`threw a foreign error: ${String(error)}`, { cause: error });
  }
}

describe('section 6 APIs: Poppy-Approval properties', () => {
  it('formatApprovalHeader then parseApprovalHeader gives back any valid approval', () => {
    fc.assert(
      fc.property(id, id, (operation_id, revision) => {
        expect(parseApprovalHeader(formatApprovalHeader({ operation_id, revision }))).toEqual({ operation_id, revision });
      }),
      { numRuns: 500 },
    );
  });

  it('the round trip survives unknown members added around the approval', () => {
    const unknownMember = fc.tuple(fc.stringMatching(/^[a-z][a-z0-9_.*-]{0,8}$/), fc.stringMatching(/^[ -!#-[\]-~]{0,20}$/));
    fc.assert(
      fc.property(id, id, fc.array(unknownMember, { maxLength: 4 }), (operation_id, revision, extras) => {
        const others = extras.filter(([k]) => k !== 'operation_id' && k !== 'revision').map(([k, v]) => `${k}="${v}"`);
        const header = [...others, formatApprovalHeader({ operation_id, revision })].join(', ');
        expect(parseApprovalHeader(header)).toEqual({ operation_id, revision });
      }),
      { numRuns: 300 },
    );
  });

  it('parseApprovalHeader and parseExtensionsHeader throw nothing but CountersignError on any string', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.stringMatching(/^[ -~]{0,60}$/)), (value) => {
        onlyCountersignErrors(() => parseApprovalHeader(value));
        onlyCountersignErrors(() => parseExtensionsHeader(value));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('section 3 the operation: properties', () => {
  it('parseOperation throws nothing but CountersignError on arbitrary values (fc.anything)', () => {
    fc.assert(
      fc.property(fc.anything({ withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true, withNullPrototype: true, withSparseArray: true, withBoxedValues: true, withObjectString: true }), (value) => {
        onlyCountersignErrors(() => parseOperation(value));
      }),
      { numRuns: 1000 },
    );
  });

  it('parseOperation throws nothing but CountersignError when any member of a valid operation is replaced', () => {
    const member = fc.constantFrom('operation_id', 'revision', 'summary', 'terms', 'expires_at', 'other');
    fc.assert(
      fc.property(member, fc.anything({ withDate: true, withNullPrototype: true, withSparseArray: true }), (key, value) => {
        onlyCountersignErrors(() => parseOperation({ ...SEED_OPERATION_WITHOUT_TERMS, [key]: value }));
      }),
      { numRuns: 1000 },
    );
  });

  it('any JSON object is valid terms, and parsing keeps it equal', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 5 })), (terms) => {
        const clean = JSON.parse(JSON.stringify(terms)) as Record<string, unknown>;
        expect(parseOperation({ ...SEED_OPERATION_WITHOUT_TERMS, terms: clean }).terms).toEqual(clean);
      }),
      { numRuns: 300 },
    );
  });
});

describe('section 4 asking for approval: properties', () => {
  it('the three readers throw nothing but CountersignError on arbitrary values', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), fc.anything({ withNullPrototype: true }), (status, value) => {
        onlyCountersignErrors(() => operationFromApiResponse(status, value));
        onlyCountersignErrors(() => operationFromApiResponse(403, { error: 'approval_required', operation: value }));
        onlyCountersignErrors(() => operationFromToolResult(value));
        onlyCountersignErrors(() => operationFromToolResult({ isError: true, structuredContent: { operation: value } }));
        onlyCountersignErrors(() => operationFromEvent(value));
        onlyCountersignErrors(() => operationFromEvent({ type: 'message', message: { role: 'company', extensions: { operations: value } } }));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('RFC 8785 canonical JSON: properties', () => {
  it('is a fixed point: canonicalising the parsed canonical text gives the same text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('does not depend on member order', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })), (value) => {
        const reversed = Object.fromEntries(Object.entries(value).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(value));
      }),
      { numRuns: 300 },
    );
  });

  it('throws nothing but CountersignError on arbitrary values', () => {
    fc.assert(
      fc.property(fc.anything({ withBigInt: true, withDate: true, withMap: true, withNullPrototype: true, withSparseArray: true }), (value) => {
        onlyCountersignErrors(() => canonicalJson(value));
      }),
      { numRuns: 1000 },
    );
  });
});
