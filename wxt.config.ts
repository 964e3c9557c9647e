import { defineConfig } from 'wxt';
import { MANIFEST_PUBLIC_KEY, FIREFOX_EXTENSION_ID } from './src/extension/manifest-key';

// COUNTERSIGN_STORE=1 builds for a store upload: no manifest `key` (the store assigns the ID).
const forStore = process.env.COUNTERSIGN_STORE === '1';

export default defineConfig({
  manifestVersion: 3,
  manifest: ({ browser }) => ({
    name: '__MSG_extName__',
    description: '__MSG_extDescription__',
    default_locale: 'en',
    permissions: ['nativeMessaging', 'notifications', 'alarms'],
    content_security_policy: {
      extension_pages: "default-src 'self'; script-src 'self'; object-src 'none'; img-src 'self'; connect-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    },
    ...(browser === 'firefox'
      ? {
          browser_specific_settings: {
            gecko: {
              id: FIREFOX_EXTENSION_ID,
              strict_min_version: '140.0',
              data_collection_permissions: { required: ['none'] },
            },
          },
        }
      : forStore
        ? {}
        : { key: MANIFEST_PUBLIC_KEY }),
  }),
});
