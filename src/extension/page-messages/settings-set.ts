import * as z from 'zod';
import { settingsSchema } from '../settings';
import { pageMessageModule } from './types';

export const settingsSetMessage = z.object({ type: z.literal('countersign/settings-set'), settings: settingsSchema }).strict();

export const settingsSet = pageMessageModule({
  schema: settingsSetMessage,
  from: 'any',
  handler: async (m, services) => {
    await services.ready();
    await services.saveSettings(m.settings);
    return { ok: true, settings: m.settings };
  },
});
