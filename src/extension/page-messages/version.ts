import * as z from 'zod';
import { BRIDGE_PROTOCOL_VERSION } from '../../protocol/bridge';
import { pageMessageModule } from './types';

export const versionQuery = z.object({ type: z.literal('countersign/version') }).strict();

export const versionAnswer = z.object({
  product: z.literal('Countersign'),
  version: z.string(),
  bridgeProtocol: z.number().int(),
  startedAt: z.number(),
});
export type VersionAnswer = z.infer<typeof versionAnswer>;

/**
 * Which Countersign runs, and since when (the end-to-end tests and the doctor ask). Answered
 * without starting the background's parts: a worker whose IndexedDB is stuck still says who it is.
 */
export const version = pageMessageModule({
  schema: versionQuery,
  from: 'any',
  handler: async (_message, services) => {
    const answer: VersionAnswer = { product: 'Countersign', version: services.version, bridgeProtocol: BRIDGE_PROTOCOL_VERSION, startedAt: services.startedAt };
    return answer;
  },
});
