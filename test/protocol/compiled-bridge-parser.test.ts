import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentToExtensionMessage, extensionToBridgeMessage, parseBridgeMessage, type ParseResult } from '../../src/protocol/bridge-messages';
import { COMPILE_AFTER_MESSAGES, compiledBridgeParser, withCompilableJson } from '../../src/protocol/compiled-bridge-parser';
import { jsonValueSchema } from '../../src/protocol/text-schemas';
import { NONCE, OPERATION, approvalRequest, mutatedSeeds } from '../bridge/helpers';

// docs/bridge-protocol.md section 4 (the table of what a bad message gets) and 6.3: the bridge's
// compiled checks must accept, refuse and word their errors exactly as parseBridgeMessage does,
// also once a type is compiled. Each case runs on a parser that has already compiled its seed's type.

type Json = unknown;

const AGENT_KEY = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };
const JWS = `${'a'.repeat(20)}.${'b'.repeat(30)}.${'c'.repeat(40)}`;

const AGENT_SEEDS: Record<string, Json>[] = [
  { type: 'hello', v: 2, id: 'h1', versions: [2], agent_name: 'Agent', agent_key: AGENT_KEY },
  { type: 'auth', v: 2, id: 'a1', signature: `${'A'.repeat(85)}Q` },
  { type: 'version_query', v: 2, id: 'q1' },
  { type: 'pair_request', v: 2, id: 'p1', agent_name: 'Agent', agent_key: AGENT_KEY, agent_nonce_sha256: NONCE },
  { type: 'pair_reveal', v: 2, id: 'p2', pairing_id: 'p1', agent_nonce: NONCE },
  approvalRequest('r1'),
  { type: 'approval_cancel', v: 2, id: 'c1', request_id: 'r1' },
  { type: 'approval_sent', v: 2, id: 's1', operation_id: OPERATION.operation_id, revision: OPERATION.revision, company_origin: 'https://shop.example' },
  { type: 'outcome', v: 2, id: 'o1', operation_id: OPERATION.operation_id, revision: OPERATION.revision, outcome: 'unknown', detail: 'timeout' },
  { type: 'error', v: 2, code: 'ERR_DECISION_INVALID', message: 'bad', supported_versions: [2] },
];

const relay = (message: Record<string, Json>) => ({ type: 'relay', v: 2, conn: 'c_abc', message });
const EXTENSION_SEEDS: Record<string, Json>[] = [
  { type: 'bridge_hello', v: 2, extension_key_thumbprint: NONCE },
  { type: 'agent_close', v: 2, conn: 'c_abc' },
  relay({ type: 'decision', v: 2, id: 'r1', status: 'declined' }),
  relay({ type: 'decision', v: 2, id: 'r1', status: 'approved', jws: JWS }),
  relay({ type: 'welcome', v: 2, id: 'h1', paired: true, extension_key: AGENT_KEY }),
  relay({ type: 'version', v: 2, id: 'q1', product: 'Countersign', extension_version: '0.1.0', protocol_versions: [2] }),
  relay({ type: 'ack', v: 2, id: 's1', sent: true }),
  relay({ type: 'pair_result', v: 2, id: 'p2', status: 'confirmed' }),
];

const interesting = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom<Json>('', 'x'.repeat(300), -1, 0, 1.5, 2, 3, 1e21, null, [], {}, true, 'ERR_X', 'approved', 'declined', 'relay', NONCE, `${NONCE.slice(0, 42)}B`, '\u202E', '\uD800', 'c_abc'),
);

/** What a caller can see of a result: acceptance and output, or the error's code and words. */
function seen(result: ParseResult<unknown>): unknown {
  return result.ok ? { ok: true, message: result.message } : { ok: false, code: result.error.code, message: result.error.message };
}

function warmed(union: typeof agentToExtensionMessage | typeof extensionToBridgeMessage, seeds: Record<string, Json>[]) {
  const parse = compiledBridgeParser(union);
  for (const seed of seeds) for (let i = 0; i < COMPILE_AFTER_MESSAGES + 1; i++) expect(parse(seed).ok).toBe(true);
  return parse;
}

describe('compiled-bridge-parser: compiled checks (docs/bridge-protocol.md sections 4 and 6.3)', () => {
  for (const [side, union, seeds] of [
    ['agent messages', agentToExtensionMessage, AGENT_SEEDS],
    ['extension messages', extensionToBridgeMessage, EXTENSION_SEEDS],
  ] as const) {
    it(`${side}: once each type is compiled, every verdict, output, code and message is parseBridgeMessage’s`, () => {
      const parse = warmed(union, seeds);
      fc.assert(
        fc.property(mutatedSeeds(seeds, interesting), (value) => {
          expect(seen(parse(value))).toEqual(seen(parseBridgeMessage(union, value)));
        }),
        { numRuns: 3000 },
      );
    });
  }

  it('a compiled type still refuses what is nested too deep, and a message of a foreign version, with their own codes', () => {
    const parse = warmed(extensionToBridgeMessage, EXTENSION_SEEDS);
    let deep: Json = 'x';
    for (let i = 0; i < 100; i++) deep = [deep];
    const tooDeep = relay({ type: 'decision', v: 2, id: 'r1', status: 'declined', extra: deep });
    const foreign = relay({ type: 'decision', v: 3, id: 'r1', status: 'declined' });
    for (const value of [tooDeep, foreign]) expect(seen(parse(value))).toEqual(seen(parseBridgeMessage(extensionToBridgeMessage, value)));
    expect(seen(parse(tooDeep))).toMatchObject({ ok: false, code: 'ERR_BRIDGE_MESSAGE_INVALID' });
    expect(seen(parse(foreign))).toMatchObject({ ok: false, code: 'ERR_PROTOCOL_VERSION' });
  });

  it('a decision whose status and jws disagree is refused after its type is compiled (the refinement runs)', () => {
    const parse = warmed(extensionToBridgeMessage, EXTENSION_SEEDS);
    const unsigned = relay({ type: 'decision', v: 2, id: 'r1', status: 'approved' });
    expect(parse(unsigned)).toMatchObject({ ok: false, error: { code: 'ERR_BRIDGE_MESSAGE_INVALID' } });
    expect(seen(parse(unsigned))).toEqual(seen(parseBridgeMessage(extensionToBridgeMessage, unsigned)));
  });

  it('every message type compiles, those holding JSON data (approval_request, tool_call_request) too', () => {
    for (const option of [...agentToExtensionMessage.options, ...extensionToBridgeMessage.options]) {
      const type = (option.shape['type'] as z.ZodLiteral).value;
      expect(() => z.compile(withCompilableJson(option) as z.ZodType, { strict: true }), String(type)).not.toThrow();
    }
    // Without the stand-in, z.json()'s recursion keeps the message on the runtime parser.
    const approval = agentToExtensionMessage.options.find((option) => (option.shape['type'] as z.ZodLiteral).value === 'approval_request')!;
    expect(() => z.compile(approval, { strict: true })).toThrow(/reference cycle/);
  });
});

describe('compiled-bridge-parser: the stand-in for JSON data accepts what z.json() accepts, with an equal copy', () => {
  const standIn = withCompilableJson(jsonValueSchema) as z.ZodType;
  const verdict = (schema: z.ZodType, value: unknown) => {
    const result = schema.safeParse(value);
    return result.success ? { ok: true, data: result.data } : { ok: false };
  };

  it('is a different schema from z.json() (else nothing here is tested)', () => {
    expect(standIn).not.toBe(jsonValueSchema);
  });

  it('agrees on any value, JSON or not (sparse arrays, null prototypes, boxed values, maps, dates, symbols, -0)', () => {
    const anything = fc.anything({ maxDepth: 4, withBoxedValues: true, withMap: true, withSet: true, withDate: true, withNullPrototype: true, withObjectString: true, withSparseArray: true, withTypedArray: true });
    fc.assert(
      fc.property(anything, (value) => {
        expect(verdict(standIn, value)).toEqual(verdict(jsonValueSchema, value));
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees on what JSON.parse never makes: holes, getters, symbol keys, a __proto__ member, class instances, non-finite numbers', () => {
    const withSymbol = { a: 1, [Symbol('s')]: 2 };
    const hidden = Object.defineProperty({ a: 1 }, 'b', { value: 2, enumerable: false });
    const getter = { get a() { return 'read'; } };
    class Point { x = 1; }
    const cases: unknown[] = [
      [1, , 3], // eslint-disable-line no-sparse-arrays
      new Array(3),
      withSymbol,
      hidden,
      getter,
      JSON.parse('{"__proto__": {"polluted": true}, "a": 1}'),
      new Point(),
      Object.create(null),
      NaN,
      Infinity,
      -0,
      undefined,
      () => 1,
      10n,
      '\uD800',
      { deep: [[{ x: [null, true, 'y'] }]] },
    ];
    cases.forEach((value, i) => expect(verdict(standIn, value), `case ${i}`).toEqual(verdict(jsonValueSchema, value)));
  });

  it('ends a cycle and a hostile depth without overflowing the stack, refusing them', () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle['self'] = cycle;
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(standIn.safeParse(cycle).success).toBe(false);
    expect(standIn.safeParse(deep).success).toBe(false);
  });

  it('copies: the output shares no array or object with the input', () => {
    const input = { list: [{ a: 1 }], nested: { b: [2] } };
    const output = standIn.parse(input) as typeof input;
    expect(output).toEqual(input);
    expect(output).not.toBe(input);
    expect(output.list).not.toBe(input.list);
    expect(output.list[0]).not.toBe(input.list[0]);
    expect(output.nested.b).not.toBe(input.nested.b);
  });
});
