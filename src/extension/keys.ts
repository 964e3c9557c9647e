import type { BridgePublicJwk } from '../protocol/bridge';
import { decisionClaims, generateSigningKeyPair, signDecision } from '../protocol/decision';
import { passkeyChallenge } from '../protocol/passkey';
import { signToolCallDecision, toolCallDecisionClaims } from '../protocol/tool-call-decision';
import type { ApprovalRecord, Store, StoredKeyPair } from './store';

/** The extension's public key as the protocol carries it: exactly the RFC 7638 members. */
export function wireJwk(jwk: JsonWebKey): BridgePublicJwk {
  return jwk.kty === 'EC'
    ? { kty: 'EC', crv: 'P-256', x: String(jwk.x), y: String(jwk.y) }
    : { kty: 'OKP', crv: 'Ed25519', x: String(jwk.x) };
}

/**
 * The extension's signing key: made once, non-extractable, kept in IndexedDB, so only the
 * extension can sign a decision (docs/bridge-protocol.md, "The signed decision"). No code path
 * exports its private half.
 */
export async function extensionKey(store: Store): Promise<StoredKeyPair> {
  const existing = await store.getKeyPair();
  if (existing) return existing;
  const pair = await generateSigningKeyPair({ extractable: false });
  return store.putKeyPairOnce({
    name: 'extension',
    alg: pair.alg,
    privateKey: pair.privateKey,
    publicKey: pair.publicKey,
    publicJwk: pair.publicJwk,
    thumbprint: pair.thumbprint,
    createdAt: Date.now(),
  });
}

/**
 * The claims a decision about the record signs, as signRecord signs them: what a passkey
 * assertion's challenge covers (docs/bridge-protocol.md, "Passkey-verified decisions").
 */
export async function recordClaims(record: ApprovalRecord, status: 'approved' | 'declined', now: number): Promise<object> {
  if (record.toolCall) return toolCallDecisionClaims({ call: record.toolCall, agent: record.agent, nonce: record.nonce }, status, now);
  return decisionClaims(record, status, now);
}

/** The passkey challenge of approving the record at `now`: SHA-256 of the claims signRecord would sign. */
export async function recordChallenge(record: ApprovalRecord, now: number): Promise<Uint8Array> {
  return passkeyChallenge(await recordClaims(record, 'approved', now));
}

/** A decision about the record: a tool-call decision for a tool call, else an operation's (the two never stand in for each other). */
export async function signRecord(key: StoredKeyPair, record: ApprovalRecord, status: 'approved' | 'declined', now = Date.now()): Promise<string> {
  if (record.toolCall) {
    const claims = await toolCallDecisionClaims({ call: record.toolCall, agent: record.agent, nonce: record.nonce }, status, now);
    return signToolCallDecision(claims, key.privateKey, key.alg, key.thumbprint);
  }
  return signDecision(await decisionClaims(record, status, now), key.privateKey, key.alg, key.thumbprint);
}
