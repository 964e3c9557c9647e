import * as z from 'zod';
import { pageMessageModule } from './types';

/** Settings the person can change. Nothing here can approve: no "always allow", ever (spec section 5). */
export const settingsSchema = z.object({ notifications: z.boolean() }).strict();
export type Settings = z.infer<typeof settingsSchema>;
export const DEFAULT_SETTINGS: Settings = { notifications: true };
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
