import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonProblem, copyJson, isWellFormedText } from '../../src/protocol/json';

// Section 3 ("terms": a JSON object): copyJson checks and copies what the User is shown and what is
// hashed, on one shared path and ancestor stack; these hold it to the walk's own rules.

const UNPAIRED = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function problemOf(f: () => unknown): JsonProblem {
  try {
    f();
  } catch (error) {
    if (error instanceof JsonProblem) return error;
    throw error;
  }
  throw new Error('expected a JsonProblem');
}

describe('json: copyJson and isWellFormedText (section 3, "terms")', () => {
  it('isWellFormedText agrees with the unpaired-surrogate rule on any UTF-16 text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.oneof(fc.constantFrom('\uD800', '\uDBFF', '\uDC00', '\uDFFF', 'a'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c))) }), (text) => {
        expect(isWellFormedText(text)).toBe(!UNPAIRED.test(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('a copy equals its input and shares no object with it', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => {
        const copy = copyJson(value);
        expect(copy).toEqual(value);
        if (typeof value === 'object' && value !== null) expect(copy).not.toBe(value);
      }),
    );
  });

  it('a problem names the path to itself alone, after siblings that were fine', () => {
    const value = { a: [1, { b: 'ok' }], c: { d: [true, null, { e: Number.NaN }] } };
    const problem = problemOf(() => copyJson(value));
    expect(problem.path).toEqual(['c', 'd', 2, 'e']);
    expect(problem.reason).toBe('expected a finite number, got NaN');
    expect(problemOf(() => copyJson({ x: Object.assign(new Array<number>(3), { 0: 0, 2: 2 }) })).path).toEqual(['x', 1]);
    expect(problemOf(() => copyJson({ k: { [`\uD800`]: 1 } })).path).toEqual(['k']);
  });

  it("a caller's path and ancestors are prefixes of a problem's path and are left as they were", () => {
    const path = ['terms'];
    const ancestors: object[] = [];
    const problem = problemOf(() => copyJson({ a: { b: undefined } }, path, ancestors));
    expect(problem.path).toEqual(['terms', 'a', 'b']);
    expect(path).toEqual(['terms']);
    expect(ancestors).toEqual([]);
  });

  it('a cycle is found through arrays and objects, a repeated sibling is not one', () => {
    const shared = { s: 1 };
    expect(copyJson({ x: shared, y: [shared, shared] })).toEqual({ x: { s: 1 }, y: [{ s: 1 }, { s: 1 }] });
    const loop: Record<string, unknown> = { a: [] };
    (loop['a'] as unknown[]).push({ back: loop });
    expect(problemOf(() => copyJson(loop)).path).toEqual(['a', 0, 'back']);
  });

  it('"__proto__" from JSON.parse stays a member of the copy, never its prototype', () => {
    const copy = copyJson(JSON.parse('{"__proto__":{"polluted":true},"a":1}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'a']);
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
