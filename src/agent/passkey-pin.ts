import path from 'node:path';
import * as z from 'zod';
import { CountersignError } from '../protocol/errors';
import { verifyPasskeyAnnouncement } from '../protocol/passkey-announcement';
import { passkeyChallenge, passkeyCredentialSchema, verifyPasskeyAssertion, type PasskeyAssertion, type PasskeyCredential } from '../protocol/passkey';
import { readPrivateFile, writePrivateFileAtomic, type PrivacyContext } from './files';

/**
 * The person's passkey as this agent pinned it (docs/agent-sdk.md, "Passkey-verified approvals"):
 * learned only from announcements signed by the extension key pinned at pairing, kept in
 * `passkey.json` beside that pin, with the newest announcement's `iat` (an older one is refused)
 * and the authenticator's signature counter (a counter that goes back is a cloned authenticator),
 * and whether the person requires the passkey for every approval of this agent.
 */

export const PASSKEY_FILE = 'passkey.json';

const passkeyFileSchema = z.strictObject({
  v: z.literal(1),
  kind: z.literal('countersign-passkey'),
  /** The announcement's `iat` (ms). */
  iat: z.int().min(0),
  passkey: passkeyCredentialSchema.nullable(),
  sign_count: z.int().min(0),
  /** The announcement's `user_verification: "required"`; absent in pins written before it existed. */
  required: z.boolean().optional(),
});

export interface PinnedPasskey {
  iat: number;
  passkey: PasskeyCredential | null;
  signCount: number;
  /** The person requires their passkey for every approval of this agent: no approval counts without it. */
  required: boolean;
}

/** What an accepted announcement changed (nothing: the same announcement again). */
export interface PasskeyChange {
  passkey: boolean;
  required: boolean;
}

export class PasskeyPin {
  #pinned: PinnedPasskey | undefined;
  readonly #file: string;
  readonly #ctx: PrivacyContext;

  private constructor(file: string, ctx: PrivacyContext, pinned: PinnedPasskey | undefined) {
    this.#file = file;
    this.#ctx = ctx;
    this.#pinned = pinned;
  }

  static async load(dir: string, ctx: PrivacyContext): Promise<PasskeyPin> {
    const file = path.join(dir, PASSKEY_FILE);
    const text = await readPrivateFile(file, ctx);
    if (text === undefined) return new PasskeyPin(file, ctx, undefined);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (cause) {
      throw new CountersignError('ERR_STORAGE_FAILED', `${file}: expected JSON`, { cause });
    }
    const parsed = passkeyFileSchema.safeParse(json);
    if (!parsed.success) throw new CountersignError('ERR_STORAGE_FAILED', `${file}: not a passkey pin this version reads`, { cause: parsed.error });
    return new PasskeyPin(file, ctx, { iat: parsed.data.iat, passkey: parsed.data.passkey, signCount: parsed.data.sign_count, required: parsed.data.required === true });
  }

  /** The pinned passkey; null when the person removed it, undefined when none was ever announced. */
  get current(): PinnedPasskey | undefined {
    return this.#pinned;
  }

  /**
   * An announcement from the extension (welcome.passkey, passkey_changed): verified with the pinned
   * extension key, then pinned when newer. Returns what changed: the passkey, the requirement, or
   * neither (the same announcement again, which every welcome carries).
   */
  async accept(jws: string, pinnedKey: unknown, agent: string): Promise<PasskeyChange> {
    const known = this.#pinned;
    const claims = await verifyPasskeyAnnouncement(jws, { pinnedKey, agent, ...(known === undefined ? {} : { after: known.iat - 1 }) });
    if (known !== undefined && claims.iat === known.iat) return { passkey: false, required: false };
    const required = claims.user_verification === 'required';
    // A new passkey starts its own counter; the same one keeps it.
    const same = known?.passkey?.credential_id === claims.passkey?.credential_id && claims.passkey !== null;
    await this.#save({ iat: claims.iat, passkey: claims.passkey, signCount: same ? (known?.signCount ?? 0) : 0, required });
    return { passkey: known === undefined || (known.passkey?.credential_id ?? null) !== (claims.passkey?.credential_id ?? null), required: (known?.required ?? false) !== required };
  }

  /**
   * Check a decision's passkey assertion as a relying party (passkey.ts), over exactly these
   * verified claims, and advance the pinned counter. Throws ERR_PASSKEY_INVALID: no passkey pinned,
   * or an assertion that does not verify.
   */
  async verify(claims: object, assertion: PasskeyAssertion | undefined): Promise<void> {
    const pinned = this.#pinned;
    if (pinned?.passkey == null) throw new CountersignError('ERR_PASSKEY_INVALID', 'passkey: the person has no passkey registered with Countersign (or removed it), so this approval cannot be verified');
    if (assertion === undefined) throw new CountersignError('ERR_PASSKEY_INVALID', 'decision.passkey_assertion: expected the person\'s passkey assertion, got none');
    const verified = await verifyPasskeyAssertion(assertion, {
      credential: pinned.passkey,
      challenge: await passkeyChallenge(claims),
      origin: pinned.passkey.rp_id,
      previousSignCount: pinned.signCount,
    });
    if (verified.signCount > pinned.signCount) await this.#save({ ...pinned, signCount: verified.signCount });
  }

  async #save(pinned: PinnedPasskey): Promise<void> {
    const record: z.input<typeof passkeyFileSchema> = { v: 1, kind: 'countersign-passkey', iat: pinned.iat, passkey: pinned.passkey, sign_count: pinned.signCount, required: pinned.required };
    await writePrivateFileAtomic(this.#file, `${JSON.stringify(record, null, 2)}\n`, this.#ctx);
    this.#pinned = pinned;
  }
}
