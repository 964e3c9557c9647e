import * as z from 'zod';
import { CountersignError } from '../../protocol/errors';
import { base64urlEncode } from '../../protocol/base64url';
import { recordChallenge } from '../keys';
import { keyField, pageMessageModule } from './types';

/**
 * After a trusted Approve click on an item that needs the person's passkey, the window asks what
 * to have the passkey sign: the SHA-256 of exactly the claims the decision will carry, stamped
 * now (docs/bridge-protocol.md, "Passkey-verified decisions"). Nothing changes here: the item
 * stays pending until `decide` brings an assertion that verifies.
 */
export const passkeyChallengeMessage = z.object({ type: z.literal('countersign/passkey-challenge'), key: keyField }).strict();

export const passkeyChallenge = pageMessageModule({
  schema: passkeyChallengeMessage,
  from: ['approve'],
  refusal: 'a passkey confirms a decision in the approval window only',
  handler: async (m, services) => {
    const { store } = await services.ready();
    // Both reads at once: the person is waiting on the passkey prompt this answer opens.
    const [record, stored] = await Promise.all([store.get(m.key), store.getPasskey()]);
    if (record?.state !== 'pending') throw new CountersignError('ERR_NOT_ALLOWED', 'passkey: this item is not waiting for a decision');
    const passkey = stored?.credential ?? null;
    if (passkey === null) throw new CountersignError('ERR_NOT_ALLOWED', "passkey: none is registered; register one in Countersign's options first");
    const now = Date.now();
    const challenge = base64urlEncode(await recordChallenge(record, now));
    return { ok: true, challenge, credentialId: passkey.credential_id, now };
  },
});
