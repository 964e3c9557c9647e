import * as z from 'zod';

/**
 * Settings the person can change, kept in the store and shown in the options page. Nothing here
 * can approve: no "always allow", ever (spec section 5). A module of its own so that the page
 * messages' shared types can name it without importing a message module.
 */
export const settingsSchema = z.object({ notifications: z.boolean() }).strict();
export type Settings = z.infer<typeof settingsSchema>;
export const DEFAULT_SETTINGS: Settings = { notifications: true };
