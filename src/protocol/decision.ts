import { CompactSign, base64url, compactVerify, importJWK } from 'jose';
import * as z from 'zod';
import { B64U_32_PATTERN, B64U_32_RULE, B64U_PATTERN } from './base64url';
import { base64url32Schema } from './text-schemas';
import { MAX_DECISION_JWS_LENGTH, companySchema, nonceSchema, thumbprintSchema } from './bridge-messages';
import { canonicalJson } from './canonical-json';
import { checkClaims, type ClaimChecks } from './claim-checks';
import { CountersignError, isCountersignError } from './errors';
import { idSchema } from './id';
import { describeValue, formatPath, isObject } from './issues';
import { isWellFormedText } from './json';
import { parsePublicJwk, type PublicJwk } from './jwk';
import { parseWith } from './parse-with';
import { RFC3339_RULE, checkRfc3339, instantOf } from './rfc3339';
import { DECISION_ALGORITHMS, algForKey, publicJwkThumbprint, type DecisionAlg } from './signing-key';
import { sha256Base64url } from './webcrypto';

export { parsePublicJwk, publicJwkSchema, type PublicJwk } from './jwk';
export {
  DECISION_ALGORITHMS,
  algForKey,
  generateSigningKeyPair,
  publicJwkThumbprint,
  type DecisionAlg,
  type SigningKeyPair,
} from './signing-key';

/**
 * Signed decisions (docs/bridge-protocol.md, "The signed decision").
 *
 * The extension signs what the User decided, with a key only it holds, over exactly what the
 * approval window showed: the operation's id and revision, the hashes of the summary and of the
 * terms, the Company's name and origin, and the operation's `expires_at` (spec sections 3 and 5).
 * The agent SDK verifies the signature against the key it pinned at pairing and every claim
 * against the operation it asked about, before it sends `Poppy-Approval` (section 6). A
 * prompt-injected model can ask for an approval; without the extension's key it cannot make one.
 *
 * Format (documented for other-language agents in docs/bridge-protocol.md):
 *
 *   compact JWS (RFC 7515 section 7.1)
 *   protected header, exactly these members in this order:
 *     { "alg": "EdDSA" | "ES256", "typ": "countersign-decision+jwt", "kid": <RFC 7638 thumbprint
 *       of the extension's public key> }
 *   payload, UTF-8 JSON with members in this order (`jti` only when present):
 *     { "v": 1, "status": "approved" | "declined", "operation_id", "revision",
 *       "summary_sha256", "terms_sha256", "company": { "name", "origin" }, "aud", "nonce",
 *       "iat", "expires_at", "jti"? }
 *
 * Declines are signed too. Only an approval leads to `Poppy-Approval`, but a signed decline lets
 * the agent tell the User's "no" from a forged one: anything between the extension and the agent
 * (the bridge, another local process on the socket) could otherwise answer "declined" and make the
 * agent give up on, and record as decided, an operation the User never saw. Callers of
 * `verifyDecision` must still branch on `status`: a verified decline is not an approval.
 *
 * Isomorphic: runs in the extension (browser) and in the agent SDK (Node), so it uses only jose,
 * WebCrypto (`globalThis.crypto.subtle`), zod and other src/protocol modules.
 *
 * Error messages name the field that failed and never echo its value: summaries, terms and
 * Company names are untrusted content (spec section 8), and an agent may hand our error text to a
 * language model.
 */

/** The JWS `typ` of a decision (RFC 7515 section 4.1.9; the `+jwt` suffix follows RFC 8725 section 3.11). */
export const DECISION_TYP = 'countersign-decision+jwt';

/** Version of the claims format; a verifier rejects any other value. */
export const DECISION_VERSION = 1;

/**
 * How far `iat` may lie in the future of the verifier's clock. The extension and the agent run on
 * the same machine, so their clocks agree; this only absorbs rounding and a small drift.
 */
export const DECISION_IAT_SKEW_SECONDS = 60;

/*
 * Shared with the bridge protocol (bridge-messages.ts, base64url.ts, jwk.ts), so each rule lives
 * in one place:
 * - MAX_DECISION_JWS_LENGTH (16 KiB): the longest compact JWS we read. A decision is a few KiB at
 *   most; the cap keeps a hostile peer from making us base64-decode and hash megabytes.
 * - base64url32Schema: canonical unpadded base64url of exactly 32 bytes (43 characters, the last
 *   one's 2 unused bits zero), so one digest or thumbprint has one spelling and comparing strings
 *   is comparing values.
 * - nonceSchema: the approval request's nonce, 32 random bytes in that spelling.
 * - thumbprintSchema: an RFC 7638 thumbprint in that spelling (`kid`, `aud`).
 * - companySchema: `{ name, origin }` as the agent resolved the Company (company.ts rules).
 * - publicJwkSchema: the Ed25519 or P-256 public key a decision is signed and pinned with.
 */
const sha256Schema = base64url32Schema;

/**
 * The Company as the agent resolved it (docs/core-assumptions.md): `organization.name` of its
 * poppy.json and the origin it was fetched from (spec section 5: the User is shown the Company's
 * name). The bridge rules, but strict: a signed payload carries nothing the verifier does not
 * check.
 */
export const decisionCompanySchema = z.strictObject({ ...companySchema.shape });

export const decisionClaimsSchema = z.strictObject({
  v: z.literal(DECISION_VERSION, { error: `expected ${DECISION_VERSION}` }),
  status: z.enum(['approved', 'declined'], { error: 'expected "approved" or "declined"' }),
  operation_id: idSchema,
  revision: idSchema,
  /** base64url(SHA-256(UTF-8 bytes of the exact `summary`)), spec section 3. */
  summary_sha256: sha256Schema,
  /** base64url(SHA-256(UTF-8 of RFC 8785 canonical JSON of `terms`)), or null when the operation has no `terms`. */
  terms_sha256: sha256Schema.nullable(),
  company: decisionCompanySchema,
  /** The RFC 7638 thumbprint of the agent's public key: the decision is for that agent only. */
  aud: thumbprintSchema,
  /** The nonce of the approval request this decision answers (bridge-messages.ts `approval_request.nonce`). */
  nonce: nonceSchema,
  /** When the User decided, in whole seconds since the epoch (RFC 7519 NumericDate). */
  iat: z.number({ error: 'expected a number' }).int({ error: 'expected whole seconds' }).min(0, { error: 'expected a time after 1970' }),
  /** The operation's own `expires_at`, exactly as the Company wrote it (spec section 3, "Expiry"). */
  expires_at: z.string({ error: `expected ${RFC3339_RULE}` }).refine((s) => checkRfc3339(s).ok, { error: `expected ${RFC3339_RULE}` }),
  /** Optional id of this decision, for the extension's history. */
  jti: idSchema.optional(),
});

export type DecisionClaims = z.output<typeof decisionClaimsSchema>;

// ---------------------------------------------------------------------------------------------
// Digests

/**
 * base64url(SHA-256) of the exact UTF-8 bytes of a `summary` (spec section 3): no trimming, no
 * Unicode normalization, no line-ending changes. What the window rendered is what was hashed.
 */
export async function digestSummary(summary: string): Promise<string> {
  if (typeof summary !== 'string') throw new CountersignError('ERR_ARGUMENT_INVALID', `summary: expected a string, got ${describeValue(summary)}`);
  // An unpaired surrogate has no UTF-8 encoding: TextEncoder would write U+FFFD, so two different
  // summaries would share a hash. Such text is refused rather than hashed (as operation.ts does).
  if (!isWellFormedText(summary)) throw new CountersignError('ERR_ARGUMENT_INVALID', 'summary: expected well-formed Unicode text, got an unpaired surrogate');
  return sha256Base64url(new TextEncoder().encode(summary));
}

/**
 * base64url(SHA-256) of the RFC 8785 canonical JSON of `terms`, or null when the operation has no
 * `terms` (spec section 3: `terms` is optional). Canonical JSON makes the hash independent of key
 * order and number spelling, so the Company, the extension and the agent agree on it whichever
 * JSON library each one uses.
 */
export async function digestTerms(terms: Record<string, unknown> | undefined): Promise<string | null> {
  if (terms === undefined) return null;
  if (!isObject(terms)) throw new CountersignError('ERR_ARGUMENT_INVALID', `terms: expected a JSON object or nothing, got ${describeValue(terms)}`);
  // canonicalJson refuses anything it cannot write with its own ERR_ARGUMENT_INVALID, naming the member.
  return sha256Base64url(new TextEncoder().encode(canonicalJson(terms)));
}

// ---------------------------------------------------------------------------------------------
// Compact JWS, the two primitives that every decision goes through

/** The only protected-header members a Countersign JWS may carry. */
const ALLOWED_HEADER_MEMBERS = new Set(['alg', 'typ', 'kid']);

export interface JwsHeader {
  alg: string;
  typ?: string;
  kid?: string;
}

function invalid(message: string, cause?: unknown): CountersignError {
  return new CountersignError('ERR_DECISION_INVALID', message, cause === undefined ? undefined : { cause });
}

/**
 * Decode one base64url segment, requiring the canonical spelling: jose's decoder also accepts
 * padding, white space and non-zero unused bits, which would let the same signature be written
 * several ways (a mutated last character of the signature would still verify).
 */
function decodeSegment(segment: string, name: string): Uint8Array {
  if (segment.length > 0 && !B64U_PATTERN.test(segment)) throw invalid(`decision ${name}: expected unpadded base64url`);
  let bytes: Uint8Array;
  try {
    bytes = base64url.decode(segment);
  } catch (cause) {
    throw invalid(`decision ${name}: expected unpadded base64url`, cause);
  }
  if (base64url.encode(bytes) !== segment) throw invalid(`decision ${name}: not the canonical base64url encoding`);
  return bytes;
}

function parseJsonBytes(bytes: Uint8Array, name: string): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes));
  } catch (cause) {
    throw invalid(`decision ${name}: expected UTF-8 JSON`, cause);
  }
}

function keyMatchesAlg(key: CryptoKey, alg: DecisionAlg, usage: KeyUsage): boolean {
  const algorithm = key.algorithm as { name?: string; namedCurve?: string };
  const fits = alg === 'EdDSA' ? algorithm.name === 'Ed25519' : algorithm.name === 'ECDSA' && algorithm.namedCurve === 'P-256';
  return fits && key.usages.includes(usage);
}

/**
 * Sign `payload` as a compact JWS with `header` as the protected header, serialized in the order
 * given. Deterministic for EdDSA (RFC 8032), which the RFC 8037 known-answer test relies on. The
 * key may be non-extractable: it is only ever passed to WebCrypto `sign`.
 */
export async function signCompactJws(header: JwsHeader, payload: Uint8Array, privateKey: CryptoKey): Promise<string> {
  if (!isObject(header)) throw new CountersignError('ERR_ARGUMENT_INVALID', `header: expected an object, got ${describeValue(header)}`);
  // Never sign what verifyCompactJws would refuse: the same allow-list on both sides.
  const members: Record<string, string> = {};
  for (const [member, value] of Object.entries(header)) {
    if (value === undefined) continue;
    if (!ALLOWED_HEADER_MEMBERS.has(member)) throw new CountersignError('ERR_ARGUMENT_INVALID', `header: expected only alg, typ and kid, got ${formatPath('', [member])}`);
    if (typeof value !== 'string') throw new CountersignError('ERR_ARGUMENT_INVALID', `header.${member}: expected a string, got ${describeValue(value)}`);
    members[member] = value;
  }
  const alg = header.alg;
  if (!(DECISION_ALGORITHMS as readonly string[]).includes(alg)) {
    throw new CountersignError('ERR_KEY_INVALID', 'alg: expected "EdDSA" or "ES256"');
  }
  if (typeof privateKey !== 'object' || privateKey === null || privateKey.type !== 'private' || !keyMatchesAlg(privateKey, alg as DecisionAlg, 'sign')) {
    throw new CountersignError('ERR_KEY_INVALID', `privateKey: expected a private ${alg === 'EdDSA' ? 'Ed25519' : 'ECDSA P-256'} CryptoKey usable for "sign"`);
  }
  try {
    return await new CompactSign(payload).setProtectedHeader({ ...members, alg }).sign(privateKey);
  } catch (cause) {
    throw new CountersignError('ERR_KEY_INVALID', 'privateKey: signing failed', { cause });
  }
}

/**
 * Verify a compact JWS against one pinned public key and return its header and payload bytes.
 *
 * The key is always `pinnedKey`: never one named or carried by the header. The header may hold only
 * `alg`, `typ` and `kid` (so `jwk`, `jku`, `x5u`, `x5c`, `crit`, `b64` and anything else are
 * refused), and `alg` must be the one algorithm of the pinned key's type: `none`, HMAC with the
 * public key as a secret, or an algorithm of another key type never reach a verifier.
 */
export async function verifyCompactJws(jws: string, pinnedKey: unknown): Promise<{ header: JwsHeader; payload: Uint8Array }> {
  const pinned = parsePublicJwk(pinnedKey, 'pinnedKey');
  if (typeof jws !== 'string') throw invalid('decision: expected a compact JWS string');
  if (jws.length > MAX_DECISION_JWS_LENGTH) throw invalid(`decision: longer than ${MAX_DECISION_JWS_LENGTH} characters`);
  const parts = jws.split('.');
  if (parts.length !== 3) throw invalid('decision: expected a compact JWS (three base64url parts separated by ".")');
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];

  const header = parseJsonBytes(decodeSegment(headerPart, 'header'), 'header');
  if (!isObject(header)) throw invalid('decision header: expected a JSON object');
  for (const member of Object.keys(header)) {
    if (!ALLOWED_HEADER_MEMBERS.has(member)) {
      const shown = /^[A-Za-z0-9_#-]{1,16}$/.test(member) ? `"${member}"` : 'an unknown member';
      throw invalid(`decision header: ${shown} is not allowed (only alg, typ, kid; the key is the one pinned at pairing)`);
    }
  }
  const { alg, typ, kid } = header;
  if (typeof alg !== 'string') throw invalid('decision header.alg: expected a string');
  if (alg === 'none') throw invalid('decision header.alg: "none" (an unsecured JWS) is never accepted');
  const expectedAlg = algForKey(pinned);
  if (alg !== expectedAlg) throw invalid(`decision header.alg: expected "${expectedAlg}", the algorithm of the pinned ${pinned.crv} key`);
  if (typ !== undefined && typeof typ !== 'string') throw invalid('decision header.typ: expected a string');
  if (kid !== undefined && typeof kid !== 'string') throw invalid('decision header.kid: expected a string');

  decodeSegment(payloadPart, 'payload');
  if (decodeSegment(signaturePart, 'signature').length === 0) throw invalid('decision signature: missing');

  let key: CryptoKey;
  try {
    key = await importJWK<PublicJwk>(pinned, expectedAlg, { extractable: true });
  } catch (cause) {
    throw new CountersignError('ERR_KEY_INVALID', 'pinnedKey: not a usable public key', { cause });
  }
  try {
    const { payload } = await compactVerify(jws, key, { algorithms: [expectedAlg] });
    const checked: JwsHeader = { alg };
    if (typ !== undefined) checked.typ = typ;
    if (kid !== undefined) checked.kid = kid;
    return { header: checked, payload };
  } catch (cause) {
    throw invalid('decision signature: does not verify with the pinned key', cause);
  }
}

// ---------------------------------------------------------------------------------------------
// Decisions

/**
 * The payload's member order: the order of `decisionClaimsSchema` (and of `decisionCompanySchema`
 * inside `company`), which is the order docs/bridge-protocol.md "The signed decision" documents.
 */
const CLAIM_ORDER = Object.keys(decisionClaimsSchema.shape) as Array<keyof DecisionClaims>;
const COMPANY_ORDER = Object.keys(decisionCompanySchema.shape) as Array<keyof DecisionClaims['company']>;

function inOrder<T extends object>(value: T, order: ReadonlyArray<keyof T>): Partial<T> {
  const out: Partial<T> = {};
  // An absent optional member (`jti`) is left out, not written as null.
  for (const name of order) if (value[name] !== undefined) out[name] = value[name];
  return out;
}

/** The payload bytes, members in the documented order whatever order the caller built them in. */
function encodeClaims(c: DecisionClaims): Uint8Array {
  const company = inOrder(c.company, COMPANY_ORDER);
  return new TextEncoder().encode(JSON.stringify(inOrder({ ...c, company }, CLAIM_ORDER)));
}

function expiresAtMs(expiresAt: string): number {
  // The one clock (rfc3339.ts): the same instant the extension's queue and window count down to.
  try {
    return instantOf(expiresAt);
  } catch (error) {
    throw invalid(`decision.${(error as Error).message}`);
  }
}

/**
 * Sign a decision as the extension's key. `kid` is the RFC 7638 thumbprint of the
 * signing key's public half (`publicJwkThumbprint`), passed in because a non-extractable private
 * key cannot be exported to compute it. Refuses to sign claims that fail the schema
 * (ERR_DECISION_INVALID) or a decision taken after the revision expired (ERR_DECISION_EXPIRED;
 * spec section 3 "Expiry": an expired revision cannot be approved).
 */
export async function signDecision(claims: DecisionClaims, privateKey: CryptoKey, alg: DecisionAlg, kid: string): Promise<string> {
  const checked = parseWith(decisionClaimsSchema, claims, 'ERR_DECISION_INVALID', 'decision');
  return signClaims(DECISION_TYP, checked, encodeClaims(checked), { privateKey, alg, kid }, 'operation');
}

/** The operation the agent asked about, as the Company returned it (spec section 3). */
export interface ExpectedOperation {
  operation_id: string;
  revision: string;
  summary: string;
  terms?: Record<string, unknown> | undefined;
  expires_at: string;
}

/** What a decision is about: the extension's approval record has these members (extension/store.ts). */
export interface DecisionSubject {
  operation: ExpectedOperation;
  company: { name: string; origin: string };
  /** The RFC 7638 thumbprint of the agent that asked: the decision's `aud`. */
  agent: string;
  /** The approval request's nonce. */
  nonce: string;
}

/** The claims of a decision: exactly what the window showed, for exactly the agent that asked. */
export async function decisionClaims(subject: DecisionSubject, status: 'approved' | 'declined', now = Date.now()): Promise<DecisionClaims> {
  return {
    v: DECISION_VERSION,
    status,
    operation_id: subject.operation.operation_id,
    revision: subject.operation.revision,
    summary_sha256: await digestSummary(subject.operation.summary),
    terms_sha256: await digestTerms(subject.operation.terms),
    company: { name: subject.company.name, origin: subject.company.origin },
    aud: subject.agent,
    nonce: subject.nonce,
    iat: Math.floor(now / 1000),
    expires_at: subject.operation.expires_at,
  };
}

export interface VerifyDecisionOptions {
  /** The extension's public key, pinned at pairing. The only key a decision is checked with. */
  pinnedKey: unknown;
  expected: {
    operation: ExpectedOperation;
    company: { name: string; origin: string };
    /** The RFC 7638 thumbprint of this agent's own public key. */
    audience: string;
    /** The nonce this agent sent with the approval request. */
    nonce: string;
  };
  /** The verifier's clock; defaults to now. */
  now?: Date;
  /**
   * Nonces of decisions already accepted. Checked, and the nonce added, only once everything else
   * has passed, so a forged or tampered decision cannot use up the nonce of the real one. `has`
   * and `add` run with no await between them. Without it, replay is only bounded by `nonce`
   * matching the request; the agent SDK always passes one.
   */
  seenNonces?: { has(nonce: string): boolean; add(nonce: string): unknown };
}

/**
 * How `verifyDecision` checks each claim: against what the agent asked about, or by the step
 * named. One entry per member of decisionClaimsSchema, so a new claim without its check does not
 * compile (claim-checks.ts).
 */
export const DECISION_CHECKS: ClaimChecks<DecisionClaims, VerifyDecisionOptions['expected']> = {
  v: { settledBy: 'schema', why: `exactly ${DECISION_VERSION}: a verifier refuses any other format` },
  status: { settledBy: 'caller', why: 'returned: an approval is sent only when it is "approved" (spec section 5: the answer is the User\'s)' },
  operation_id: { against: 'the operation asked about', differs: (c, e) => c.operation_id !== e.operation.operation_id && 'operation_id' },
  revision: { against: 'the revision asked about (spec section 5: an approval covers one revision)', differs: (c, e) => c.revision !== e.operation.revision && 'revision' },
  summary_sha256: { against: "the SHA-256 of the operation's summary", differs: async (c, e) => c.summary_sha256 !== (await digestSummary(e.operation.summary)) && 'summary_sha256' },
  terms_sha256: { against: "the SHA-256 of the operation's canonical terms", differs: async (c, e) => c.terms_sha256 !== (await digestTerms(e.operation.terms)) && 'terms_sha256' },
  company: {
    against: 'the Company asked for',
    differs: (c, e) => (c.company.name !== e.company.name ? 'company.name' : c.company.origin !== e.company.origin && 'company.origin'),
  },
  aud: { against: "this agent's key thumbprint", differs: (c, e) => c.aud !== e.audience && 'aud' },
  nonce: { against: 'the nonce of this request', differs: (c, e) => c.nonce !== e.nonce && 'nonce' },
  iat: { settledBy: 'time', why: 'not after expires_at, nor in the future of the verifier\'s clock (checkDecisionTime)' },
  expires_at: { against: "the operation's expires_at", differs: (c, e) => c.expires_at !== e.operation.expires_at && 'expires_at' },
  jti: { settledBy: 'schema', why: 'an id of the extension\'s history, only required to be well formed' },
};

/**
 * Steps 1 and 3 of every decision's verification, whatever its kind (an operation's here, a tool
 * call's in tool-call-decision.ts): the signature with the pinned key, `typ` and `kid`, then the
 * payload as JSON. The caller checks the claims against what it asked about, then `checkDecisionTime`.
 */
export async function openDecision(jws: string, pinnedKey: PublicJwk, typ: string): Promise<unknown> {
  const { header, payload } = await verifyCompactJws(jws, pinnedKey);
  if (header.typ !== typ) throw invalid(`decision header.typ: expected "${typ}"`);
  if (header.kid !== (await publicJwkThumbprint(pinnedKey))) throw invalid('decision header.kid: expected the thumbprint of the pinned key');
  return parseJsonBytes(payload, 'payload');
}

/** Time: `expires_at` is "the last time an approval of this revision is accepted" (section 3). */
export function checkDecisionTime(claims: { iat: number; expires_at: string }, nowMs: number, what: string): void {
  const expiresMs = expiresAtMs(claims.expires_at);
  if (nowMs > expiresMs) throw new CountersignError('ERR_DECISION_EXPIRED', `decision.expires_at: the ${what} has expired`);
  if (claims.iat * 1000 > expiresMs) throw new CountersignError('ERR_DECISION_EXPIRED', `decision.iat: decided after the ${what}'s expires_at`);
  if (claims.iat > Math.floor(nowMs / 1000) + DECISION_IAT_SKEW_SECONDS) throw invalid('decision.iat: in the future');
}

/**
 * Sign checked claims as the extension's key, whatever the decision's kind: the `kid` must be the
 * key's RFC 7638 thumbprint, and nothing is decided after it expired (spec section 3, "Expiry").
 */
export async function signClaims(typ: string, claims: { iat: number; expires_at: string }, payload: Uint8Array, key: { privateKey: CryptoKey; alg: DecisionAlg; kid: string }, what: string): Promise<string> {
  if (typeof key.kid !== 'string' || !B64U_32_PATTERN.test(key.kid)) throw new CountersignError('ERR_KEY_INVALID', `kid: expected the key's RFC 7638 thumbprint, ${B64U_32_RULE}`);
  if (claims.iat * 1000 > expiresAtMs(claims.expires_at)) throw new CountersignError('ERR_DECISION_EXPIRED', `decision.iat: after the ${what}'s expires_at; an expired ${what} cannot be decided`);
  return signCompactJws({ alg: key.alg, typ, kid: key.kid }, payload, key.privateKey);
}

/**
 * Verify a decision the way the agent SDK must before it sends `Poppy-Approval`: every claim is
 * checked, with the pinned key only, and any mismatch is an error, never an approval. Returns the
 * verified claims, `status` included: the caller sends an approval only when
 * `status === 'approved'` (spec section 5: the answer is the User's).
 *
 * Errors (all CountersignError, the jose or zod error in `cause`):
 * - ERR_KEY_INVALID: `pinnedKey` is not an Ed25519/P-256 public key.
 * - ERR_DECISION_INVALID: not a compact JWS, a header member or `alg` not allowed, bad signature,
 *   wrong `typ` or `kid`, claims that fail the schema, `iat` in the future.
 * - ERR_DECISION_MISMATCH: a claim differs from the operation, Company, audience or nonce expected.
 * - ERR_DECISION_EXPIRED: `now` is after `expires_at`, or the decision was taken after it.
 * - ERR_DECISION_REPLAYED: the nonce was accepted before.
 * - ERR_ARGUMENT_INVALID: `options` is not what this function takes (the expected operation
 *   cannot be hashed, `now` is not a date), or a caller's object (seenNonces, a getter) threw.
 */
export async function verifyDecision(jws: string, options: VerifyDecisionOptions): Promise<DecisionClaims> {
  try {
    return await verifyDecisionUnguarded(jws, options);
  } catch (cause) {
    // Fail closed, and with our error type only: a caller's seenNonces or getter that throws must
    // not surface as a foreign error, let alone as something that looks like success.
    if (isCountersignError(cause)) throw cause;
    throw new CountersignError('ERR_ARGUMENT_INVALID', 'options: expected values that can be read, got one that threw, so the decision was not verified', { cause });
  }
}

async function verifyDecisionUnguarded(jws: string, options: VerifyDecisionOptions): Promise<DecisionClaims> {
  if (!isObject(options)) throw new CountersignError('ERR_ARGUMENT_INVALID', `options: expected an object, got ${describeValue(options)}`);
  if (!isObject(options.expected)) throw new CountersignError('ERR_ARGUMENT_INVALID', `options.expected: expected an object, got ${describeValue(options.expected)}`);
  const { expected, seenNonces } = options;
  if (!isObject(expected.operation)) throw new CountersignError('ERR_ARGUMENT_INVALID', `options.expected.operation: expected an object, got ${describeValue(expected.operation)}`);
  if (!isObject(expected.company)) throw new CountersignError('ERR_ARGUMENT_INVALID', `options.expected.company: expected an object, got ${describeValue(expected.company)}`);
  const nowMs = options.now === undefined ? Date.now() : options.now instanceof Date ? options.now.getTime() : Number.NaN;
  if (!Number.isFinite(nowMs)) throw new CountersignError('ERR_ARGUMENT_INVALID', `options.now: expected a valid Date, got ${options.now instanceof Date ? 'an Invalid Date' : describeValue(options.now)}`);
  const pinned = parsePublicJwk(options.pinnedKey, 'pinnedKey');

  // 1. The signature, with the pinned key and its one algorithm (RFC 8725 sections 3.1, 3.2).
  const payload = await openDecision(jws, pinned, DECISION_TYP);

  // 2. The claims: well-formed, then equal to what this agent asked about.
  const claims = parseWith(decisionClaimsSchema, payload, 'ERR_DECISION_INVALID', 'decision');
  await checkClaims(DECISION_CHECKS, claims, expected);

  // 3. Time.
  checkDecisionTime(claims, nowMs, 'operation');

  // 4. Replay, last: only a decision that passed everything else consumes its nonce.
  if (seenNonces !== undefined) {
    if (seenNonces.has(claims.nonce)) throw new CountersignError('ERR_DECISION_REPLAYED', 'decision.nonce: already used by an accepted decision');
    seenNonces.add(claims.nonce);
  }
  return claims;
}
