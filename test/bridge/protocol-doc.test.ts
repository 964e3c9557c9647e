import { createHash, createPrivateKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { formatPairingCode, keyFingerprint } from '../../src/protocol/fingerprint';
import { describe, expect, it } from 'vitest';
import {
  agentAuthInput,
  agentInboundMessage,
  agentSocketPath,
  agentToExtensionMessage,
  bridgeToExtensionMessage,
  extensionToAgentMessage,
  extensionToBridgeMessage,
  jwkThumbprint,
  pairingCode,
  pairingCommitment,
  parseBridgeMessage,
  thumbprintInput,
  verifyAgentAuth,
} from '../../src/protocol/bridge';
import { encodeJsonFrame } from '../../src/protocol/bridge-framing';
import { verifyDecision } from '../../src/protocol/decision';
import { verifyPasskeyAnnouncement } from '../../src/protocol/passkey-announcement';
import { MAX_SUMMARY_LENGTH } from '../../src/protocol/limits';
import { OPERATION } from './helpers';

// docs/bridge-protocol.md is what other-language agents implement from: its examples and test
// vectors must be exactly what the code accepts and computes.

const doc = readFileSync(new URL('../../docs/bridge-protocol.md', import.meta.url), 'utf8');
const jsonBlocks = [...doc.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
const examples = jsonBlocks.map((text) => JSON.parse(text) as Record<string, unknown>);

const SCHEMAS = { agentToExtensionMessage, extensionToAgentMessage, agentInboundMessage, extensionToBridgeMessage, bridgeToExtensionMessage };

const EXT = { kty: 'OKP', crv: 'Ed25519', d: 'oN_rAgo4BXXFBJ0ZRAqyDg_-X5nyDp7bvwrOEGpz2fs', x: '33L538Y6mLHlg5hsBbt01W3lCSTPAlURxJi16Uva51M' };
const AGENT = { kty: 'OKP', crv: 'Ed25519', d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };
const pub = (k: typeof EXT) => ({ kty: 'OKP', crv: 'Ed25519', x: k.x });
const b64 = (bytes: number[]) => Buffer.from(bytes).toString('base64url');
const seq = (start: number) => b64(Array.from({ length: 32 }, (_, i) => start + i));

describe('docs/bridge-protocol.md', () => {
  it('has an example of every message type', () => {
    const types = new Set(examples.map((m) => m['type']));
    for (const t of ['bridge_info', 'companion_unavailable', 'error', 'bridge_hello', 'bridge_ready', 'agent_connected', 'relay', 'agent_disconnected', 'agent_close', 'bridge_error',
      'hello', 'challenge', 'auth', 'welcome', 'version_query', 'version', 'pair_request', 'pair_offer', 'pair_reveal', 'pair_result',
      'approval_request', 'decision', 'approval_cancel', 'approval_sent', 'withdrawn', 'outcome']) {
      expect(types, t).toContain(t);
    }
  });

  it('every json example is a valid message in some direction', () => {
    expect(examples.length).toBeGreaterThan(25);
    for (const example of examples) {
      const accepted = Object.entries(SCHEMAS).filter(([, s]) => parseBridgeMessage(s, example).ok).map(([name]) => name);
      expect(accepted, JSON.stringify(example).slice(0, 120)).not.toEqual([]);
    }
  });

  it('the key, thumbprint and nonce vectors hold', async () => {
    expect(createHash('sha256').update('countersign bridge-protocol example extension key').digest('base64url')).toBe(EXT.d);
    const derived = createPrivateKey({ key: EXT, format: 'jwk' }).export({ format: 'jwk' });
    expect(derived.x).toBe(EXT.x);
    expect(thumbprintInput(pub(EXT))).toBe('{"crv":"Ed25519","kty":"OKP","x":"33L538Y6mLHlg5hsBbt01W3lCSTPAlURxJi16Uva51M"}');
    expect(await jwkThumbprint(pub(EXT))).toBe('vsLAVcBec9S_ypx8huZjTqmt1xxSep2F33sUoSbaX90');
    expect(await jwkThumbprint(pub(AGENT))).toBe('kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k');
    expect([seq(0), seq(0x20), seq(0x40)]).toEqual(['AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8', 'ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8', 'QEFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFlaW1xdXl8']);
    expect(doc).toContain(EXT.d);
  });

  it('the auth vector holds', async () => {
    const fields = { extensionKeyThumbprint: 'vsLAVcBec9S_ypx8huZjTqmt1xxSep2F33sUoSbaX90', agentKeyThumbprint: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k', conn: 'c_AAAAAAAAAAAAAAAA', nonce: seq(0) };
    const input = agentAuthInput(fields);
    expect(input.length).toBe(176);
    const shown = /the input is these 176 bytes\n\n```text\n(.*)\n```/.exec(doc)?.[1];
    expect(shown?.replace(/\\n/g, '\n')).toBe(new TextDecoder().decode(input));
    const signature = sign(null, input, createPrivateKey({ key: AGENT, format: 'jwk' })).toString('base64url');
    expect(signature).toBe('2KjCyZrYqb9Suf0wpKXLhB2AfAVLhSCUKDp2Y4KuAFxbhwpkvEgd18ra-hQKPZm1bJZSdE7gShAjqndtZoR1Bg');
    expect(await verifyAgentAuth(pub(AGENT), fields, signature)).toBe(true);
    expect(examples.find((m) => m['type'] === 'auth')?.['signature']).toBe(signature);
  });

  it('the pairing vector holds', async () => {
    expect(await pairingCommitment(seq(0x40))).toBe('9F3IKnUj0Ul0zqBQ4wKOi_BqjuhVqdYwNOu0-57MIwU');
    const code = await pairingCode({ extensionKeyThumbprint: 'vsLAVcBec9S_ypx8huZjTqmt1xxSep2F33sUoSbaX90', agentKeyThumbprint: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k', extensionNonce: seq(0x20), agentNonce: seq(0x40) });
    expect(code).toBe('304236');
    const h = createHash('sha256').update(['countersign/pairing-code/v1', 'vsLAVcBec9S_ypx8huZjTqmt1xxSep2F33sUoSbaX90', 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k', seq(0x20), seq(0x40)].join('\n')).digest();
    expect(h.toString('hex')).toMatch(/^cabbc8ac93ae.*218b86$/);
    expect(h.readUInt32BE(0)).toBe(3401304236);
    expect(examples.find((m) => m['type'] === 'pair_request')?.['agent_nonce_sha256']).toBe('9F3IKnUj0Ul0zqBQ4wKOi_BqjuhVqdYwNOu0-57MIwU');
  });

  it('the key fingerprint vector holds, and the doc states it', () => {
    const fingerprint = keyFingerprint('kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k');
    expect(fingerprint).toBe('J3XC-NZN9');
    expect(doc).toContain(`it is **\`${fingerprint}\`**`);
    expect(formatPairingCode('304236')).toBe('304 236');
  });

  it('the example decision verifies against the example request with the example keys', async () => {
    const request = examples.find((m) => m['type'] === 'approval_request' && m['id'] === 'req_7f3a')!;
    const decision = examples.find((m) => m['type'] === 'decision' && m['status'] === 'approved')!;
    const claims = await verifyDecision(String(decision['jws']), {
      pinnedKey: pub(EXT),
      expected: {
        operation: request['operation'] as never,
        company: request['company'] as { name: string; origin: string },
        audience: await jwkThumbprint(pub(AGENT)),
        nonce: String(request['nonce']),
      },
      now: new Date('2026-10-08T19:00:00Z'),
    });
    expect(claims).toMatchObject({ status: 'approved', iat: 1791486000 });
  });

  it('the example passkey announcement verifies with the example keys and names the first passkey vector (section 10.3)', async () => {
    const announcement = examples.find((m) => m['type'] === 'passkey_changed')!;
    const claims = await verifyPasskeyAnnouncement(String(announcement['jws']), { pinnedKey: pub(EXT), agent: await jwkThumbprint(pub(AGENT)) });
    const vectors = JSON.parse(readFileSync(new URL('../fixtures/passkey/vectors.json', import.meta.url), 'utf8')) as { vectors: Array<{ credential: unknown }> };
    expect(claims).toEqual({ v: 1, kind: 'passkey', aud: await jwkThumbprint(pub(AGENT)), iat: 1791480000000, passkey: vectors.vectors[0]!.credential });
  });

  it('the socket path and framing examples hold', () => {
    const thumbprint = 'vsLAVcBec9S_ypx8huZjTqmt1xxSep2F33sUoSbaX90';
    const path = agentSocketPath({ platform: 'linux', env: { XDG_RUNTIME_DIR: '/run/user/1000' }, uid: 1000, username: 'jane', thumbprint });
    expect(doc).toContain(`\`${path}\``);
    const pipe = agentSocketPath({ platform: 'win32', env: {}, uid: 0, username: 'Jane Doe', thumbprint });
    expect(doc).toContain(pipe);
    const frame = encodeJsonFrame({ type: 'version_query', v: 2, id: 'q1' }, 'BE');
    const hex = [...frame].map((b) => b.toString(16).padStart(2, '0')).join(' ');
    const shown = /agent socket \(big-endian\): +([0-9a-f ]+)\n +([0-9a-f ]+)\n/.exec(doc);
    expect(`${shown?.[1]} ${shown?.[2]}`.replace(/ +/g, ' ').trim()).toBe(hex);
  });

  it('states the summary length limit, and the bridge_error that reports it, as the code has them', () => {
    const spaced = MAX_SUMMARY_LENGTH.toLocaleString('en').replace(/,/g, ' ');
    expect(doc).toContain(`A \`summary\` has at most **${spaced}** characters`);
    const over = { ...examples.find((m) => m['type'] === 'approval_request' && m['id'] === 'req_7f3a')!, operation: { ...OPERATION, summary: 'x'.repeat(MAX_SUMMARY_LENGTH + 1) } };
    const parsed = parseBridgeMessage(agentToExtensionMessage, over);
    expect(parsed.ok).toBe(false);
    const told = examples.find((m) => m['type'] === 'bridge_error' && m['code'] === 'ERR_SUMMARY_TOO_LONG');
    expect(told).toMatchObject({ code: parsed.ok ? undefined : parsed.error.code, message: parsed.ok ? undefined : parsed.error.message, id: 'req_7f3a' });
    const errors = doc.slice(doc.indexOf('## 12.'), doc.indexOf('## 13.'));
    expect(errors).toMatch(/\| `ERR_SUMMARY_TOO_LONG` \| [^|]*bridge, extension[^|]*\|/);
  });

  it('states the largest relayed agent message correctly', () => {
    const prefix = '{"type":"relay","v":1,"conn":"c_AAAAAAAAAAAAAAAA","message":';
    expect(prefix.length + 1).toBe(61);
    expect(doc).toContain(`${(1_048_576 - prefix.length - 1).toLocaleString('en').replace(/,/g, ' ')} bytes`);
  });
});
