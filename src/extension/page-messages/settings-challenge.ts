import * as z from 'zod';
import { CountersignError } from '../../protocol/errors';
import { base64urlEncode } from '../../protocol/base64url';
import { changeFrom, settingsChangeChallenge, settingsChangeSchema } from './settings-change';
import { pageMessageModule } from './types';

/**
 * Before turning off a passkey requirement, or replacing or removing the passkey, the options
 * page asks what the passkey must sign: a challenge naming exactly that change, from the state
 * stored now, stamped now (settings-change.ts). Nothing changes here: the change itself is a
 * separate message that brings the assertion.
 */
export const settingsChallengeMessage = z.object({ type: z.literal('countersign/settings-challenge'), change: settingsChangeSchema }).strict();

export const settingsChallenge = pageMessageModule({
  schema: settingsChallengeMessage,
  from: ['options'],
  refusal: 'passkey settings change in the options page only',
  handler: async (m, services) => {
    const { store } = await services.ready();
    const passkey = (await store.getPasskey())?.credential ?? null;
    if (passkey === null) throw new CountersignError('ERR_NOT_ALLOWED', 'passkey: none is registered');
    const now = Date.now();
    const challenge = base64urlEncode(await settingsChangeChallenge(m.change, await changeFrom(store, m.change), now));
    return { ok: true, challenge, credentialId: passkey.credential_id, now };
  },
});
