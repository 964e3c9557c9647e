import { toolCallAsRequest } from '../tool-call-request';
import { askPerson } from './approval-request';
import type { BridgeMessageHandler } from './types';

/**
 * `tool_call_request` (docs/bridge-protocol.md, section 9.7): a tool call for the person to
 * decide, taken in as an approval whose card Countersign writes from the call itself.
 */
export const toolCallRequest: BridgeMessageHandler<'tool_call_request'> = (c, m, session) => askPerson(c, session, () => toolCallAsRequest(m));
