import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentToExtensionMessage, extensionToBridgeMessage, parseBridgeMessage } from '../../src/protocol/bridge';
import { FrameDecoder, encodeFrame } from '../../src/protocol/bridge-framing';
import { ERROR_CODES } from '../../src/protocol/errors';
import { FakeAgent, NONCE, OPERATION, THUMBPRINT, approvalRequest, mutatedSeeds, startInProcessBridge, type InProcessBridge } from './helpers';

// Random and mutated input from both sides of a running bridge. For every case: the sender gets
// a typed error exactly when the message is invalid, a valid one is relayed, nothing else
// changes, and the bridge keeps relaying (a probe message goes through after each case).

type Json = unknown;

const AGENT_KEY = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };

const AGENT_SEEDS: Record<string, Json>[] = [
  { type: 'hello', v: 2, id: 'h1', versions: [2], agent_name: 'Agent', agent_key: AGENT_KEY },
  { type: 'auth', v: 2, id: 'a1', signature: `${'A'.repeat(85)}Q` },
  { type: 'pair_request', v: 2, id: 'p1', agent_name: 'Agent', agent_key: AGENT_KEY, agent_nonce_sha256: NONCE },
  { type: 'pair_reveal', v: 2, id: 'p2', pairing_id: 'p1', agent_nonce: NONCE },
  approvalRequest('r1'),
  {
    ...approvalRequest('r2'),
    request: { interface: 'mcp', server_url: 'https://mcp.shop.example/', tool: 'exchange_item', arguments: { a: [1, { b: null }] } },
    session: { kind: 'this_session' },
  },
  { ...approvalRequest('r3'), request: { interface: 'conversation', conversation_id: 'conv_1' } },
  { type: 'approval_cancel', v: 2, id: 'c1', request_id: 'r1' },
  { type: 'approval_sent', v: 2, id: 's1', operation_id: OPERATION.operation_id, revision: OPERATION.revision },
  { type: 'outcome', v: 2, id: 'o1', operation_id: OPERATION.operation_id, revision: OPERATION.revision, outcome: 'unknown', detail: 'timeout' },
  { type: 'error', v: 2, code: 'ERR_DECISION_INVALID', message: 'bad' },
];

const interesting = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom<Json>('', 'x'.repeat(300), -1, 0, 1.5, 2, 1e21, null, [], {}, 'ERR_X', 'approved', NONCE, `${NONCE.slice(0, 42)}B`, '\u202E', '\uD800'),
);

const mutated = (seeds: Record<string, Json>[]) => mutatedSeeds(seeds, interesting);

type Case = { kind: 'json'; value: Json } | { kind: 'bytes'; bytes: Uint8Array };

const agentCases: fc.Arbitrary<Case> = fc.oneof(
  { weight: 5, arbitrary: mutated(AGENT_SEEDS).map((value): Case => ({ kind: 'json', value })) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value): Case => ({ kind: 'json', value })) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes): Case => ({ kind: 'bytes', bytes })) },
);

/** What a correct bridge does with `c`: relay it, or answer with an error. */
function expectation(c: Case, schema: Parameters<typeof parseBridgeMessage>[0]): 'relay' | 'error' {
  const bytes = c.kind === 'bytes' ? c.bytes : new TextEncoder().encode(JSON.stringify(c.value));
  const [event] = new FrameDecoder({ endian: 'BE', oversize: 'fatal' }).push(encodeFrame(bytes, 'BE', Infinity));
  if (event === undefined || event.kind === 'error') return 'error';
  return parseBridgeMessage(schema, event.value).ok ? 'relay' : 'error';
}

function payloadOf(c: Case): Uint8Array {
  return c.kind === 'bytes' ? c.bytes : new TextEncoder().encode(JSON.stringify(c.value));
}

let bridge: InProcessBridge;
let agent: FakeAgent;

beforeAll(async () => {
  bridge = await startInProcessBridge();
  // Trusted: before trust the bridge relays only small handshake messages (docs/bridge-protocol.md section 5).
  agent = await (await FakeAgent.connect(bridge.socketPath)).trusted(bridge.extension);
  await bridge.extension.frames.nextOfType('agent_connected');
});

afterAll(async () => {
  agent.destroy();
  await bridge.stop();
});

describe('property: the bridge under random input', () => {
  it('agent side: every invalid frame or message gets one typed error; valid ones are relayed; the relay goes on', async () => {
    let probe = 0;
    let relayed = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(agentCases, async (c) => {
        const before = bridge.host.snapshot();
        agent.sendPayload(payloadOf(c));
        const id = `probe_${probe++}`;
        agent.send({ type: 'version_query', v: 2, id });
        // The probe is relayed after the case (frames are handled in order).
        await bridge.extension.frames.next((m) => m['type'] === 'relay' && (m['message'] as { id?: string }).id === id);
        const relays = bridge.extension.frames.received.splice(0);
        if (expectation(c, agentToExtensionMessage) === 'relay') {
          relayed++;
          expect(relays).toHaveLength(1);
          expect(relays[0]).toMatchObject({ type: 'relay', conn: agent.conn });
          if (c.kind === 'json') expect(relays[0]!['message']).toEqual(JSON.parse(JSON.stringify(c.value)));
        } else {
          refused++;
          expect(relays).toEqual([]);
          const error = await agent.frames.nextOfType('error');
          expect(ERROR_CODES).toContain(error['code']);
          expect(error['source']).toBe('bridge');
        }
        expect(agent.frames.received).toEqual([]);
        expect(bridge.host.snapshot()).toEqual(before);
      }),
      { numRuns: 300 },
    );
    // The generator reaches both outcomes, or the property says little.
    expect(relayed).toBeGreaterThan(10);
    expect(refused).toBeGreaterThan(10);
  }, 60_000);

  it('extension side: every invalid frame or message gets one typed bridge_error; valid relays reach the agent; the relay goes on', async () => {
    const conn = agent.conn;
    const seeds: Record<string, Json>[] = [
      { type: 'bridge_hello', v: 2, extension_key_thumbprint: THUMBPRINT },
      { type: 'relay', v: 2, conn, message: { type: 'challenge', v: 2, id: 'h1', nonce: NONCE, version: 2 } },
      { type: 'relay', v: 2, conn, message: { type: 'decision', v: 2, id: 'r1', status: 'approved', jws: 'eyJh.eyJ2.c2ln' } },
      { type: 'relay', v: 2, conn, message: { type: 'pair_offer', v: 2, id: 'p1', extension_key: AGENT_KEY, extension_nonce: NONCE } },
      { type: 'relay', v: 2, conn, message: { type: 'withdrawn', v: 2, operation_id: 'op', revision: 'rev' } },
      { type: 'relay', v: 2, conn: 'c_gone', message: { type: 'pair_result', v: 2, id: 'p1', status: 'rejected' } },
      { type: 'agent_close', v: 2, conn: 'c_gone' },
    ];
    const cases: fc.Arbitrary<Case> = fc.oneof(
      { weight: 5, arbitrary: mutated(seeds).map((value): Case => ({ kind: 'json', value })) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value): Case => ({ kind: 'json', value })) },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes): Case => ({ kind: 'bytes', bytes })) },
    );
    let probe = 0;
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        // agent_close of the live agent is a legitimate state change, not random damage: skip it.
        fc.pre(!(c.kind === 'json' && (c.value as { type?: unknown })?.type === 'agent_close' && (c.value as { conn?: unknown }).conn === conn));
        const before = bridge.host.snapshot();
        bridge.extension.sendRaw(encodeFrame(payloadOf(c), 'LE', Infinity));
        const id = `probe_${probe++}`;
        bridge.extension.relay(conn, { type: 'version', v: 2, id, product: 'Countersign', extension_version: '0.1.0', protocol_versions: [2] });
        await agent.frames.next((m) => m['type'] === 'version' && m['id'] === id);
        const atAgent = agent.frames.received.splice(0);
        const parsed = c.kind === 'json' ? parseBridgeMessage(extensionToBridgeMessage, c.value) : undefined;
        const valid = expectation(c, extensionToBridgeMessage) === 'relay';
        if (valid && parsed?.ok && parsed.message.type === 'relay' && parsed.message.conn === conn) {
          expect(atAgent).toEqual([JSON.parse(JSON.stringify((c as { value: { message: Json } }).value.message))]);
        } else if (valid && parsed?.ok && parsed.message.type === 'bridge_hello') {
          expect(atAgent).toEqual([]);
          const reply = await bridge.extension.frames.next((m) => m['type'] === 'bridge_ready' || m['type'] === 'bridge_error');
          // Our own key again: ready again; another key: refused.
          expect(reply['type']).toBe(parsed.message.extension_key_thumbprint === THUMBPRINT ? 'bridge_ready' : 'bridge_error');
        } else {
          expect(atAgent).toEqual([]);
          const error = await bridge.extension.frames.nextOfType('bridge_error');
          expect(ERROR_CODES).toContain(error['code']);
          if (valid) expect(error['code']).toBe('ERR_CONNECTION_UNKNOWN');
        }
        expect(bridge.extension.frames.received.filter((m) => m['type'] !== 'bridge_ready')).toEqual([]);
        bridge.extension.frames.received.splice(0);
        expect(bridge.host.snapshot()).toEqual(before);
      }),
      { numRuns: 300 },
    );
  }, 60_000);
});
