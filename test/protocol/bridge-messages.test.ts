import { readFileSync } from 'node:fs';
import { createPrivateKey, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  accountName,
  agentAuthInput,
  agentInboundMessage,
  agentSocketCandidates,
  agentSocketPath,
  agentToExtensionMessage,
  base64urlDecode,
  base64urlEncode,
  bridgeToExtensionMessage,
  exceedsDepth,
  extensionToAgentMessage,
  extensionToBridgeMessage,
  jwkThumbprint,
  pairingCode,
  pairingCommitment,
  parseBridgeMessage,
  pipeUserName,
  randomNonce,
  requestIdOf,
  thumbprintInput,
  verifyAgentAuth,
} from '../../src/protocol/bridge';
import { isCountersignError } from '../../src/protocol/errors';
import { NONCE, THUMBPRINT, approvalRequest, newAgentKey, signAuth } from '../bridge/helpers';

// RFC 8037 Appendix A (IETF Trust; code components Revised BSD): the fields of
// test/fixtures/jose/rfc8037-ed25519.json this file needs (provenance: test/fixtures/jose/README.md).
const rfc8037 = JSON.parse(readFileSync(new URL('../bridge/fixtures/rfc8037-ed25519.json', import.meta.url), 'utf8')) as {
  private_jwk: { kty: string; crv: string; d: string; x: string };
  public_jwk: { kty: 'OKP'; crv: 'Ed25519'; x: string };
  thumbprint_input: string;
  thumbprint_b64u: string;
};

describe('base64url', () => {
  it('round-trips every length and refuses non-canonical spellings', () => {
    for (let n = 0; n < 70; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 0xff);
      const text = base64urlEncode(bytes);
      expect(text).toBe(Buffer.from(bytes).toString('base64url'));
      expect([...base64urlDecode(text)]).toEqual([...bytes]);
    }
    for (const bad of ['A', 'AB=', 'a+b/', 'AF', 'AAB']) {
      expect(() => base64urlDecode(bad)).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID' }));
    }
  });

  it('makes 43-character canonical nonces', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const n = randomNonce();
      expect(n).toMatch(/^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/);
      seen.add(n);
    }
    expect(seen.size).toBe(50);
  });
});

describe('keys', () => {
  it('computes RFC 7638 thumbprints (RFC 8037 A.3 known answer)', async () => {
    expect(thumbprintInput(rfc8037.public_jwk)).toBe(rfc8037.thumbprint_input);
    expect(await jwkThumbprint(rfc8037.public_jwk)).toBe(rfc8037.thumbprint_b64u);
    // Metadata members do not change a thumbprint.
    expect(await jwkThumbprint({ ...rfc8037.public_jwk, kid: 'x', use: 'sig', alg: 'EdDSA' })).toBe(rfc8037.thumbprint_b64u);
  });

  it('matches node:crypto for P-256 keys', async () => {
    const key = await newAgentKey('P-256');
    const { createHash } = await import('node:crypto');
    const expected = createHash('sha256').update(`{"crv":"P-256","kty":"EC","x":"${key.jwk.x}","y":"${(key.jwk as { y: string }).y}"}`).digest('base64url');
    expect(key.thumbprint).toBe(expected);
  });

  it('refuses private keys, other curves and mismatched alg', async () => {
    for (const bad of [
      rfc8037.private_jwk,
      { ...rfc8037.public_jwk, crv: 'Ed448' },
      { ...rfc8037.public_jwk, alg: 'ES256' },
      { kty: 'RSA', n: 'AQAB', e: 'AQAB' },
      { kty: 'oct', k: 'c2VjcmV0' },
    ]) {
      await expect(jwkThumbprint(bad)).rejects.toMatchObject({ code: 'ERR_KEY_INVALID' });
    }
  });
});

describe('auth', () => {
  const fields = { extensionKeyThumbprint: THUMBPRINT, conn: 'c_AAAAAAAAAAAAAAAA', nonce: NONCE };

  it('verifies Ed25519 and P-256 (r‖s) signatures made with node:crypto', async () => {
    for (const kind of ['Ed25519', 'P-256'] as const) {
      const key = await newAgentKey(kind);
      const signature = signAuth(key, fields);
      const all = { ...fields, agentKeyThumbprint: key.thumbprint };
      expect(await verifyAgentAuth(key.jwk, all, signature)).toBe(true);
      // Each bound field matters.
      for (const change of [{ conn: 'c_BBBBBBBBBBBBBBBB' }, { nonce: randomNonce() }, { extensionKeyThumbprint: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs' }]) {
        expect(await verifyAgentAuth(key.jwk, { ...all, ...change }, signature)).toBe(false);
      }
      const other = await newAgentKey(kind);
      expect(await verifyAgentAuth(other.jwk, all, signature)).toBe(false);
    }
  });

  it('refuses a DER-encoded ECDSA signature (not 64 bytes)', async () => {
    const key = await newAgentKey('P-256');
    const der = sign('sha256', agentAuthInput({ ...fields, agentKeyThumbprint: key.thumbprint }), key.privateKey).toString('base64url');
    await expect(verifyAgentAuth(key.jwk, { ...fields, agentKeyThumbprint: key.thumbprint }, der)).rejects.toMatchObject({ code: 'ERR_ARGUMENT_INVALID' });
  });

  it('joins exactly five LF-separated fields and refuses a field that could break the join', () => {
    const bytes = agentAuthInput({ ...fields, agentKeyThumbprint: rfc8037.thumbprint_b64u });
    expect(new TextDecoder().decode(bytes).split('\n')).toEqual(['countersign/agent-auth/v1', THUMBPRINT, rfc8037.thumbprint_b64u, fields.conn, NONCE]);
    expect(() => agentAuthInput({ ...fields, agentKeyThumbprint: rfc8037.thumbprint_b64u, conn: 'a\nb' })).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID' }));
  });

  it('signs deterministically with the RFC 8037 key (the doc vector is reproducible)', () => {
    const priv = createPrivateKey({ key: rfc8037.private_jwk, format: 'jwk' });
    const data = agentAuthInput({ ...fields, agentKeyThumbprint: rfc8037.thumbprint_b64u });
    expect(sign(null, data, priv).toString('base64url')).toBe(sign(null, data, priv).toString('base64url'));
  });
});

describe('pairing code', () => {
  it('is 6 digits, changes with every input, and matches an independent computation', async () => {
    const { createHash } = await import('node:crypto');
    const f = { extensionKeyThumbprint: THUMBPRINT, agentKeyThumbprint: rfc8037.thumbprint_b64u, extensionNonce: randomNonce(), agentNonce: randomNonce() };
    const code = await pairingCode(f);
    expect(code).toMatch(/^\d{6}$/);
    const h = createHash('sha256').update(['countersign/pairing-code/v1', f.extensionKeyThumbprint, f.agentKeyThumbprint, f.extensionNonce, f.agentNonce].join('\n')).digest();
    expect(code).toBe(String(h.readUInt32BE(0) % 1_000_000).padStart(6, '0'));
    // Swapping the two nonces (or the two keys) is a different input: order is fixed.
    const swapped = await pairingCode({ ...f, extensionNonce: f.agentNonce, agentNonce: f.extensionNonce });
    const h2 = createHash('sha256').update(['countersign/pairing-code/v1', f.extensionKeyThumbprint, f.agentKeyThumbprint, f.agentNonce, f.extensionNonce].join('\n')).digest();
    expect(swapped).toBe(String(h2.readUInt32BE(0) % 1_000_000).padStart(6, '0'));
  });

  it('commits to the ASCII nonce', async () => {
    const { createHash } = await import('node:crypto');
    expect(await pairingCommitment(NONCE)).toBe(createHash('sha256').update(NONCE, 'ascii').digest('base64url'));
    await expect(pairingCommitment('short')).rejects.toMatchObject({ code: 'ERR_ARGUMENT_INVALID' });
  });
});

describe('socket path', () => {
  const base = { uid: 1000, username: 'jane', thumbprint: THUMBPRINT };

  it('prefers XDG_RUNTIME_DIR, then TMPDIR, then /tmp', () => {
    expect(agentSocketCandidates({ ...base, platform: 'linux', env: { XDG_RUNTIME_DIR: '/run/user/1000/', TMPDIR: '/var/tmp' } })).toEqual([
      `/run/user/1000/countersign/${THUMBPRINT}.sock`,
      `/var/tmp/countersign-1000/${THUMBPRINT}.sock`,
      `/tmp/countersign-1000/${THUMBPRINT}.sock`,
    ]);
    expect(agentSocketPath({ ...base, platform: 'linux', env: {} })).toBe(`/tmp/countersign-1000/${THUMBPRINT}.sock`);
    // A reduced environment (an MCP client's default HOME PATH SHELL TERM) still finds the
    // login session's runtime folder, last, so the bridge never listens there without the variable.
    expect(agentSocketCandidates({ ...base, platform: 'linux', env: { HOME: '/home/sam', PATH: '/usr/bin' } })).toEqual([
      `/tmp/countersign-1000/${THUMBPRINT}.sock`,
      `/run/user/1000/countersign/${THUMBPRINT}.sock`,
    ]);
    expect(agentSocketCandidates({ ...base, platform: 'darwin', env: {} })).toEqual([`/tmp/countersign-1000/${THUMBPRINT}.sock`]);
    // Relative or empty variables are ignored.
    expect(agentSocketPath({ ...base, platform: 'linux', env: { XDG_RUNTIME_DIR: 'run', TMPDIR: '' } })).toBe(`/tmp/countersign-1000/${THUMBPRINT}.sock`);
  });

  it('drops candidates longer than 103 bytes (macOS TMPDIR)', () => {
    const macTmp = '/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T/';
    const candidates = agentSocketCandidates({ ...base, uid: 501, platform: 'darwin', env: { TMPDIR: macTmp } });
    expect(candidates).toEqual([`/tmp/countersign-501/${THUMBPRINT}.sock`]);
    const long = `/run/user/${'x'.repeat(60)}`;
    expect(agentSocketCandidates({ ...base, platform: 'linux', env: { XDG_RUNTIME_DIR: long } })).toEqual([`/tmp/countersign-1000/${THUMBPRINT}.sock`]);
    expect(agentSocketCandidates({ ...base, uid: 501, platform: 'darwin', env: { XDG_RUNTIME_DIR: long } })).toEqual([`/tmp/countersign-501/${THUMBPRINT}.sock`]);
  });

  it('finds the account name the pipe is named after, the same way in the bridge and in every agent', () => {
    expect(accountName(() => ({ username: 'Jane Doe' }), { USERNAME: 'other' })).toBe('Jane Doe');
    const noEntry = () => {
      throw new Error('ENOENT: no such user');
    };
    expect(accountName(noEntry, { USERNAME: 'jane', USER: 'j' })).toBe('jane');
    expect(accountName(noEntry, { USER: 'j' })).toBe('j');
    expect(accountName(noEntry, {})).toBe('user');
  });

  it('names a Windows pipe after the user and the thumbprint', () => {
    expect(agentSocketPath({ ...base, username: 'Jane Doe', platform: 'win32', env: { XDG_RUNTIME_DIR: '/ignored' } })).toBe(`\\\\.\\pipe\\countersign-jane_doe-${THUMBPRINT}`);
    expect(pipeUserName('ÉVE\\admin')).toBe('_ve_admin');
    expect(pipeUserName('')).toBe('user');
  });

  it('refuses a thumbprint that is not one (no path injection)', () => {
    for (const bad of ['../../etc/passwd', `${THUMBPRINT.slice(0, 42)}/`, '']) {
      expect(() => agentSocketPath({ ...base, platform: 'linux', env: {}, thumbprint: bad })).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID' }));
    }
  });
});

describe('message schemas', () => {
  it('accept a valid approval request and keep unknown members out of the parsed copy', () => {
    const parsed = parseBridgeMessage(agentToExtensionMessage, { ...approvalRequest(), extra: 1 });
    expect(parsed.ok && parsed.message.type).toBe('approval_request');
    expect(parsed.ok && 'extra' in parsed.message).toBe(false);
  });

  it('give direction-specific errors: an agent cannot send a decision, nor the extension a hello', () => {
    expect(parseBridgeMessage(agentToExtensionMessage, { type: 'decision', v: 2, id: 'a', status: 'declined' }).ok).toBe(false);
    expect(parseBridgeMessage(extensionToAgentMessage, { type: 'decision', v: 2, id: 'a', status: 'declined' }).ok).toBe(true);
    expect(parseBridgeMessage(extensionToAgentMessage, { type: 'hello', v: 2 }).ok).toBe(false);
    expect(parseBridgeMessage(agentInboundMessage, { type: 'companion_unavailable', v: 2 }).ok).toBe(true);
    expect(parseBridgeMessage(extensionToBridgeMessage, { type: 'relay', v: 2, conn: 'c_1', message: { type: 'withdrawn', v: 2, operation_id: 'o', revision: 'r' } }).ok).toBe(true);
    expect(parseBridgeMessage(bridgeToExtensionMessage, { type: 'relay', v: 2, conn: 'c_1', message: { type: 'withdrawn', v: 2, operation_id: 'o', revision: 'r' } }).ok).toBe(false);
  });

  it('require jws with "approved", allow it with "declined", refuse it otherwise', () => {
    const d = (status: string, jws?: string) => parseBridgeMessage(extensionToAgentMessage, { type: 'decision', v: 2, id: 'r', status, ...(jws ? { jws } : {}) }).ok;
    expect(d('approved')).toBe(false);
    expect(d('approved', 'a.b.c')).toBe(true);
    expect(d('declined')).toBe(true);
    expect(d('declined', 'a.b.c')).toBe(true);
    expect(d('expired', 'a.b.c')).toBe(false);
    expect(d('superseded')).toBe(true);
  });

  it('map failures to ERR_PROTOCOL_VERSION, ERR_OPERATION_INVALID or ERR_BRIDGE_MESSAGE_INVALID', () => {
    const code = (schema: Parameters<typeof parseBridgeMessage>[0], v: unknown) => {
      const r = parseBridgeMessage(schema, v);
      return r.ok ? 'ok' : r.error.code;
    };
    expect(code(agentToExtensionMessage, { ...approvalRequest(), v: 1 })).toBe('ERR_PROTOCOL_VERSION');
    expect(code(extensionToBridgeMessage, { type: 'relay', v: 2, conn: 'c', message: { type: 'welcome', v: 3 } })).toBe('ERR_PROTOCOL_VERSION');
    expect(code(agentToExtensionMessage, { ...approvalRequest(), operation: { operation_id: 'x' } })).toBe('ERR_OPERATION_INVALID');
    expect(code(agentToExtensionMessage, { ...approvalRequest(), company: { name: 'X', origin: 'http://evil.example' } })).toBe('ERR_BRIDGE_MESSAGE_INVALID');
    expect(code(agentToExtensionMessage, [])).toBe('ERR_BRIDGE_MESSAGE_INVALID');
    expect(code(agentToExtensionMessage, null)).toBe('ERR_BRIDGE_MESSAGE_INVALID');
  });

  it('refuse names with control or bidi characters, origins with paths, and non-https URLs', () => {
    const bad = [
      { type: 'hello', v: 2, id: 'h1', versions: [2], agent_name: 'evil\u202Egpj', agent_key: { kty: 'OKP', crv: 'Ed25519', x: rfc8037.public_jwk.x } },
      { type: 'hello', v: 2, id: 'h1', versions: [2, 2], agent_name: 'ok', agent_key: { kty: 'OKP', crv: 'Ed25519', x: rfc8037.public_jwk.x } },
      { ...approvalRequest(), company: { name: 'X', origin: 'https://shop.example/' } },
      { ...approvalRequest(), request: { interface: 'api', method: 'POST', url: 'ftp://x.example/' } },
      { ...approvalRequest(), request: { interface: 'api', method: 'PO ST', url: 'https://x.example/' } },
      { ...approvalRequest(), request: { interface: 'mcp', tool: 't', arguments: [] } },
      { ...approvalRequest(), session: { kind: 'forever' } },
      { ...approvalRequest(), nonce: NONCE.slice(1) },
    ];
    for (const m of bad) expect(parseBridgeMessage(agentToExtensionMessage, m).ok).toBe(false);
  });

  it('refuse nesting beyond the limit without recursing', () => {
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    expect(exceedsDepth(deep, 72)).toBe(true);
    const result = parseBridgeMessage(agentToExtensionMessage, { ...approvalRequest(), request: { interface: 'api', method: 'POST', url: 'https://a.example/', body: deep } });
    expect(!result.ok && result.error.code).toBe('ERR_BRIDGE_MESSAGE_INVALID');
    expect(isCountersignError(!result.ok ? result.error : undefined)).toBe(true);
  });

  it('count nesting exactly: max levels pass, one more is refused, in arrays and objects and beside shallow siblings', () => {
    const nest = (levels: number, array: boolean): unknown => {
      let value: unknown = array ? [] : {};
      for (let i = 1; i < levels; i++) value = array ? [1, value] : { x: 1, y: value };
      return value;
    };
    for (const array of [false, true]) {
      expect(exceedsDepth(nest(10, array), 10)).toBe(false);
      expect(exceedsDepth(nest(11, array), 10)).toBe(true);
      expect(exceedsDepth({ shallow: [{}, {}], deep: nest(9, array) }, 10)).toBe(false);
      expect(exceedsDepth({ shallow: [{}, {}], deep: nest(10, array) }, 10)).toBe(true);
    }
    expect(exceedsDepth('text', 0)).toBe(false);
  });

  it('find a valid request id even in an invalid message', () => {
    expect(requestIdOf({ id: 'req_1', junk: true })).toBe('req_1');
    expect(requestIdOf({ id: 'bad id' })).toBeUndefined();
    expect(requestIdOf('x')).toBeUndefined();
  });
});
