import * as z from 'zod';
import type { Approval } from './approval';
import { digestSummary, digestTerms } from './decision';
import { CountersignError, isCountersignError } from './errors';
import { isObject } from './issues';
import { parseWith } from './parse-with';
import { passkeyAssertionSchema, passkeyChallenge, verifyPasskeyAssertion, type PasskeyAssertion, type PasskeyCredential } from './passkey';
import { dictionaryMemberNames, parseDictionaryField, serializeDictionaryField } from './structured-fields';

/**
 * The passkey proof a Personal Agent may give the Company beside an approval (docs/agent-sdk.md,
 * "Passkey-verified approvals"): the decision's claims and the person's assertion over their
 * SHA-256, so a Company that registered the person's passkey (out of band) can check that a
 * verified person approved exactly this revision's terms. Carried where the spec leaves room:
 *
 * - API: an extra `Poppy-Approval` member, `countersign_passkey`, a Byte Sequence of the proof's
 *   UTF-8 JSON ("Companies MUST ignore members of Poppy-Approval they don't recognize", section 6,
 *   so a Company that does not know it is unaffected);
 * - MCP: `_meta["countersign.dev/passkey"]`, the proof as a JSON object.
 *
 * What it proves is what section 10.2 of docs/bridge-protocol.md says, no more: an authenticator
 * holding the registered passkey, with user verification, signed these claims.
 */

export const PASSKEY_PROOF_MEMBER = 'countersign_passkey';
export const PASSKEY_PROOF_META_KEY = 'countersign.dev/passkey';

export const passkeyProofSchema = z.strictObject({
  claims: z.record(z.string(), z.json()),
  assertion: passkeyAssertionSchema,
});
export type PasskeyProof = z.output<typeof passkeyProofSchema>;

const encoder = new TextEncoder();

/** The proof of an approved, passkey-verified result of the agent SDK (`decision` and `passkeyAssertion`); undefined without an assertion. */
export function passkeyProofOf(result: { decision?: object; passkeyAssertion?: PasskeyAssertion | undefined }): PasskeyProof | undefined {
  if (result.decision === undefined || result.passkeyAssertion === undefined) return undefined;
  return { claims: { ...result.decision }, assertion: result.passkeyAssertion };
}

/** `countersign_passkey=:<base64>:`, to append to the Poppy-Approval field after ", ". */
export function formatPasskeyProofMember(proof: PasskeyProof): string {
  const checked = parseWith(passkeyProofSchema, proof, 'ERR_ARGUMENT_INVALID', 'proof');
  const bytes = encoder.encode(JSON.stringify(checked));
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return serializeDictionaryField(new Map([[PASSKEY_PROOF_MEMBER, [buffer, new Map()]]]), { field: 'Poppy-Approval' });
}

function invalid(what: string, cause?: unknown): CountersignError {
  return new CountersignError('ERR_PASSKEY_INVALID', `Poppy-Approval ${PASSKEY_PROOF_MEMBER}: ${what}`, cause === undefined ? undefined : { cause });
}

/** The proof in a Poppy-Approval field value; undefined when the member is absent. Throws ERR_PASSKEY_INVALID when it is there but unreadable. */
export function passkeyProofFromHeader(field: string): PasskeyProof | undefined {
  const dictionary = parseDictionaryField(field, { field: 'Poppy-Approval', code: 'ERR_APPROVAL_HEADER_INVALID' });
  const member = dictionary.get(PASSKEY_PROOF_MEMBER);
  if (member === undefined) return undefined;
  if (dictionaryMemberNames(field).filter((n) => n === PASSKEY_PROOF_MEMBER).length > 1) throw invalid('expected once, got it twice');
  const value = member[0];
  if (!(value instanceof ArrayBuffer)) throw invalid('expected a Byte Sequence');
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(value));
  } catch (cause) {
    throw invalid('expected UTF-8 JSON', cause);
  }
  return parseWith(passkeyProofSchema, json, 'ERR_PASSKEY_INVALID', PASSKEY_PROOF_MEMBER);
}

/** The proof in an MCP `_meta`; undefined when absent. */
export function passkeyProofFromMeta(meta: unknown): PasskeyProof | undefined {
  if (!isObject(meta) || meta[PASSKEY_PROOF_META_KEY] === undefined) return undefined;
  return parseWith(passkeyProofSchema, meta[PASSKEY_PROOF_META_KEY], 'ERR_PASSKEY_INVALID', `_meta["${PASSKEY_PROOF_META_KEY}"]`);
}

export interface VerifyPasskeyProofOptions {
  /** The passkey the Company registered for this person (their account). */
  credential: PasskeyCredential;
  /** The approval the proof came with. */
  approval: Approval;
  /** The summary and terms of the revision the approval names, as the Company wrote them. */
  summary: string;
  terms: Record<string, unknown> | undefined;
  previousSignCount?: number;
}

/**
 * The Company's check: the claims are an approval of exactly this revision (its operation, its
 * summary and terms by hash), and the assertion verifies over them with the registered passkey.
 * Returns the new signature counter. Throws ERR_PASSKEY_INVALID.
 */
export async function verifyPasskeyProof(proof: PasskeyProof, options: VerifyPasskeyProofOptions): Promise<{ signCount: number }> {
  const { claims } = proof;
  const expected: Array<[string, unknown]> = [
    ['status', 'approved'],
    ['operation_id', options.approval.operation_id],
    ['revision', options.approval.revision],
    ['summary_sha256', await digestSummary(options.summary)],
    ['terms_sha256', await digestTerms(options.terms)],
  ];
  for (const [name, value] of expected) {
    if (claims[name] !== value) throw invalid(`claims.${name}: expected this revision's, got another`);
  }
  try {
    const verified = await verifyPasskeyAssertion(proof.assertion, {
      credential: options.credential,
      challenge: await passkeyChallenge(claims),
      origin: options.credential.rp_id,
      ...(options.previousSignCount === undefined ? {} : { previousSignCount: options.previousSignCount }),
    });
    return { signCount: verified.signCount };
  } catch (cause) {
    if (isCountersignError(cause, 'ERR_PASSKEY_INVALID')) throw invalid(cause.message, cause);
    throw cause;
  }
}
