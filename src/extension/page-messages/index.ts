import { agentVerification } from './agent-verification';
import { declineAll } from './decline-all';
import { decide } from './decide';
import { exportAll } from './export';
import { history } from './history';
import { openWindow } from './open-window';
import { pairAnswer } from './pair-answer';
import { passkeyChallenge } from './passkey-challenge';
import { passkeySet } from './passkey-set';
import { revokeAgent } from './revoke-agent';
import { settingsChallenge } from './settings-challenge';
import { settingsSet } from './settings-set';
import { snapshot } from './snapshot';
import { version } from './version';
import { withdraw } from './withdraw';

/**
 * Every message the extension's pages may send the background. `runtime-messages.ts` builds the
 * union the background parses with from this list, so no message is accepted without its module
 * here, and with it the pages allowed to send it.
 */
export const PAGE_MESSAGES = [history, exportAll, settingsSet, version, decide, withdraw, declineAll, snapshot, pairAnswer, revokeAgent, openWindow, passkeyChallenge, passkeySet, agentVerification, settingsChallenge] as const;

export type { BackgroundParts, PageMessageModule, PageName, PageSenders, PageServices } from './types';
export { PAGE_PATHS } from './types';
