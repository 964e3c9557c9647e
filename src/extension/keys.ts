import { generateSigningKeyPair, signDecision, digestSummary, digestTerms, type DecisionClaims } from '../protocol/decision';
import type { ApprovalRecord, Store, StoredKeyPair } from './store';

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
    publicJwk: pair.publicJwk as JsonWebKey,
    thumbprint: pair.thumbprint,
    createdAt: Date.now(),
  });
}

/** The claims of a decision: exactly what the window showed, for exactly the agent that asked. */
export async function decisionClaims(record: ApprovalRecord, status: 'approved' | 'declined', now = Date.now()): Promise<DecisionClaims> {
  return {
    v: 1,
    status,
    operation_id: record.operation.operation_id,
    revision: record.operation.revision,
    summary_sha256: await digestSummary(record.operation.summary),
    terms_sha256: await digestTerms(record.operation.terms),
    company: { name: record.company.name, origin: record.company.origin },
    aud: record.agent,
    nonce: record.nonce,
    iat: Math.floor(now / 1000),
    expires_at: record.operation.expires_at,
  };
}

export async function signRecord(key: StoredKeyPair, record: ApprovalRecord, status: 'approved' | 'declined', now = Date.now()): Promise<string> {
  return signDecision(await decisionClaims(record, status, now), key.privateKey, key.alg, key.thumbprint);
}
