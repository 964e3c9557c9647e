import path from 'node:path';
import * as z from 'zod';
import {
  B64U_32_PATTERN,
  agentAuthInput,
  base64urlEncode,
  bridgePublicJwkSchema,
  jwkThumbprint,
  type AgentAuthFields,
  type BridgePublicJwk,
} from '../protocol/bridge';
import { generateSigningKeyPair } from '../protocol/decision';
import { CountersignError, isCountersignError } from '../protocol/errors';
import { describeZodError } from '../protocol/describe-zod-error';
import { readPrivateFile, writePrivateFileAtomic, type PrivacyContext } from './files';

/**
 * The agent's own key pair and the extension key it pinned (docs/bridge-protocol.md, "Pairing").
 *
 * The agent's key proves, on every connection, that this is the agent the person paired (the
 * signed challenge of docs/bridge-protocol.md "Handshake"); its thumbprint is the `aud` of every
 * decision meant for it. Unlike the extension's key it must be extractable: a desktop process has
 * no non-extractable key store we can rely on on every OS, so the private JWK lives in a file
 * only the user can read (0600, in a 0700 folder).
 *
 * The pinned key is the extension's public key, written once the person confirmed the pairing
 * code. It is the only key a decision is ever verified with (spec section 5: the User's answer
 * comes from the agent's own interface, here the extension's window, and nothing else).
 */

export const KEY_FILE = 'agent-key.json';
export const PIN_FILE = 'extension-key.json';

const b64u32 = z.string().regex(B64U_32_PATTERN, { error: 'expected unpadded canonical base64url of 32 bytes' });

/** A private JWK as WebCrypto exports it, reduced to the members that make the key. */
const privateJwkSchema = z.discriminatedUnion('kty', [
  z.object({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: b64u32, d: b64u32 }),
  z.object({ kty: z.literal('EC'), crv: z.literal('P-256'), x: b64u32, y: b64u32, d: b64u32 }),
]);
type PrivateJwk = z.output<typeof privateJwkSchema>;

const keyFileSchema = z.object({
  v: z.literal(1),
  kind: z.literal('countersign-agent-key'),
  private_jwk: privateJwkSchema,
  created_at: z.string(),
});

const pinFileSchema = z.object({
  v: z.literal(1),
  kind: z.literal('countersign-extension-key'),
  extension_key: bridgePublicJwkSchema,
  thumbprint: b64u32,
  pinned_at: z.string(),
});

export interface AgentKey {
  alg: 'EdDSA' | 'ES256';
  publicJwk: BridgePublicJwk;
  /** RFC 7638 thumbprint of `publicJwk`: the agent's identity in the extension and the `aud` of its decisions. */
  thumbprint: string;
  /** Signs the handshake challenge (bridge.ts agentAuthInput). Non-extractable once imported. */
  signAuth(fields: AgentAuthFields): Promise<string>;
}

function publicOf(jwk: PrivateJwk): BridgePublicJwk {
  return jwk.kty === 'OKP' ? { kty: 'OKP', crv: 'Ed25519', x: jwk.x } : { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y };
}

const PROBE = new TextEncoder().encode('countersign agent key probe');

/**
 * Import the private half for signing only (non-extractable from here on: nothing in this process
 * can export it again), and prove it belongs to the public half stored beside it: a damaged or
 * hand-edited file must fail here, not as a mysterious ERR_AUTH_FAILED from the extension.
 */
async function importAgentKey(jwk: PrivateJwk, file: string): Promise<AgentKey> {
  const s = globalThis.crypto.subtle;
  const isEd = jwk.kty === 'OKP';
  const algorithm = isEd ? { name: 'Ed25519' } : { name: 'ECDSA', namedCurve: 'P-256' };
  const signParams = isEd ? { name: 'Ed25519' } : { name: 'ECDSA', hash: 'SHA-256' };
  const publicJwk = publicOf(jwk);
  let privateKey: CryptoKey;
  try {
    privateKey = await s.importKey('jwk', { ...jwk, ext: false }, algorithm, false, ['sign']);
    const publicKey = await s.importKey('jwk', publicJwk, algorithm, false, ['verify']);
    const signature = await s.sign(signParams, privateKey, PROBE);
    // Caught just below and given the file's name; typed all the same, like every throw here.
    if (!(await s.verify(signParams, publicKey, signature, PROBE))) throw new CountersignError('ERR_KEY_INVALID', 'private_jwk: expected the private half of the public key beside it, got another key');
  } catch (cause) {
    throw new CountersignError('ERR_KEY_INVALID', `${file}: not a usable key pair (remove it to make a new one, then pair again)`, { cause });
  }
  return {
    alg: isEd ? 'EdDSA' : 'ES256',
    publicJwk,
    thumbprint: await jwkThumbprint(publicJwk),
    async signAuth(fields) {
      // Ed25519 signatures and WebCrypto's ECDSA (IEEE P1363 r‖s) are both 64 bytes: the wire form.
      const signature = await s.sign(signParams, privateKey, agentAuthInput(fields) as Uint8Array<ArrayBuffer>);
      return base64urlEncode(new Uint8Array(signature));
    },
  };
}

/** A key or pin file, parsed: ERR_KEY_INVALID when it is not one, since what it holds is a key. */
function parseKeyFile<S extends z.ZodType>(schema: S, text: string, file: string): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new CountersignError('ERR_KEY_INVALID', `${file}: expected JSON, got text that is not`, { cause });
  }
  const parsed = schema.safeParse(value, { reportInput: true });
  if (!parsed.success) throw new CountersignError('ERR_KEY_INVALID', describeZodError(parsed.error, path.basename(file)), { cause: parsed.error });
  return parsed.data;
}

/**
 * Load the agent's key pair from `dir`, or make one (Ed25519; P-256 only where the runtime lacks
 * Ed25519, as for the extension's key) and store it. The caller holds the config folder's lock,
 * so no other writer races the creation.
 */
export async function loadOrCreateAgentKey(dir: string, ctx: PrivacyContext): Promise<AgentKey> {
  const file = path.join(dir, KEY_FILE);
  const text = await readPrivateFile(file, ctx);
  if (text !== undefined) return importAgentKey(parseKeyFile(keyFileSchema, text, file).private_jwk, file);

  const pair = await generateSigningKeyPair({ extractable: true });
  let exported: JsonWebKey;
  try {
    exported = await globalThis.crypto.subtle.exportKey('jwk', pair.privateKey);
  } catch (cause) {
    throw new CountersignError('ERR_KEY_INVALID', 'could not export the new agent key', { cause });
  }
  const parsed = privateJwkSchema.safeParse(exported);
  if (!parsed.success) throw new CountersignError('ERR_KEY_INVALID', 'the new agent key has an unexpected form', { cause: parsed.error });
  const record: z.input<typeof keyFileSchema> = { v: 1, kind: 'countersign-agent-key', private_jwk: parsed.data, created_at: new Date().toISOString() };
  await writePrivateFileAtomic(file, `${JSON.stringify(record, null, 2)}\n`, ctx);
  return importAgentKey(parsed.data, file);
}

export interface PinnedKey {
  key: BridgePublicJwk;
  thumbprint: string;
}

/** The extension key pinned at pairing, or undefined when this agent never paired. */
export async function loadPinnedKey(dir: string, ctx: PrivacyContext): Promise<PinnedKey | undefined> {
  const file = path.join(dir, PIN_FILE);
  const text = await readPrivateFile(file, ctx);
  if (text === undefined) return undefined;
  const pin = parseKeyFile(pinFileSchema, text, file);
  let thumbprint: string;
  try {
    thumbprint = await jwkThumbprint(pin.extension_key);
  } catch (cause) {
    throw new CountersignError('ERR_KEY_INVALID', `${file}: extension_key is not a usable public key`, { cause: isCountersignError(cause) ? cause : undefined });
  }
  // The stored thumbprint is redundant on purpose: an edit to the key that forgot it is caught here.
  if (thumbprint !== pin.thumbprint) throw new CountersignError('ERR_KEY_INVALID', `${file}: thumbprint does not match extension_key`);
  return { key: pin.extension_key, thumbprint };
}

/** Pin the extension's key (after the person confirmed the pairing code), atomically. */
export async function savePinnedKey(dir: string, key: BridgePublicJwk, ctx: PrivacyContext): Promise<PinnedKey> {
  const parsed = bridgePublicJwkSchema.safeParse(key, { reportInput: true });
  if (!parsed.success) throw new CountersignError('ERR_KEY_INVALID', describeZodError(parsed.error, 'extension_key'), { cause: parsed.error });
  const thumbprint = await jwkThumbprint(parsed.data);
  const record: z.input<typeof pinFileSchema> = {
    v: 1,
    kind: 'countersign-extension-key',
    extension_key: parsed.data,
    thumbprint,
    pinned_at: new Date().toISOString(),
  };
  await writePrivateFileAtomic(path.join(dir, PIN_FILE), `${JSON.stringify(record, null, 2)}\n`, ctx);
  return { key: parsed.data, thumbprint };
}
