import { defaultClientConditions, type Plugin } from 'vite';
import { defineConfig } from 'wxt';
import { MANIFEST_PUBLIC_KEY, FIREFOX_EXTENSION_ID } from './src/protocol/extension-identity';

// COUNTERSIGN_STORE=1 builds for a store upload: no manifest `key` (the store assigns the ID).
// `npm run zip` (scripts/zip.mjs) sets it; store builds go to `.output/<browser>-mv3-store`, so
// they never replace the development builds (with the key) that the end-to-end tests load.
const forStore = process.env.COUNTERSIGN_STORE === '1';

/**
 * What Mozilla's reviewers get to rebuild the Firefox package: an allow-list, because WXT's
 * sources zip ignores .gitignore (keys, browser profiles, test output and builds must never slip
 * in). Everything the extension build reads, and nothing else; test/package/zip.test.ts rebuilds
 * the extension from this zip and compares it with the uploaded one.
 */
export const SOURCE_FILES = [
  'README.md',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'wxt.config.ts',
  'scripts/zip.mjs',
  'entrypoints/**',
  'public/**',
  'src/extension/**',
  'src/protocol/**',
  'src/review/**',
  'src/summary/**',
];

export default defineConfig({
  manifestVersion: 3,
  ...(forStore ? { outDirTemplate: '{{browser}}-mv{{manifestVersion}}-store' } : {}),
  zip: {
    // {{manifestVersion}} renders as "mv3": countersign-0.1.0-chrome-mv3.zip, ...-firefox-mv3.zip.
    artifactTemplate: '{{name}}-{{packageVersion}}-{{browser}}-{{manifestVersion}}.zip',
    sourcesTemplate: '{{name}}-{{packageVersion}}-{{browser}}-{{manifestVersion}}-sources.zip',
    includeSources: SOURCE_FILES,
    excludeSources: ['**/*.pem', '**/*.key', '**/*.crx', '**/*.zip', '**/*.xpi'],
  },
  // Every browser Countersign supports has modulepreload (Chrome 66, Firefox 115): Vite's polyfill
  // is not needed, and it was the only code of the module script the approval window got.
  vite: () => ({ build: { modulePreload: { polyfill: false } }, plugins: [dropEmptyModuleScripts()] }),
  hooks: {
    'vite:build:extendConfig': (entrypoints, config) => {
      // The service worker has no `document`: packages that ship a DOM build for browsers and a
      // plain one for workers (micromark's character-reference decoder is one) must give it the
      // worker build, or the worker dies when it loads them and no bridge socket ever opens.
      if (entrypoints.some((e) => e.type === 'background')) {
        config.resolve = { ...config.resolve, conditions: ['worker', ...defaultClientConditions] };
      }
    },
    'zip:start': () => {
      // A zip made without COUNTERSIGN_STORE=1 would carry the manifest key, which the Chrome Web
      // Store refuses: package through `npm run zip` only.
      if (!forStore) throw new Error('packages are made by "npm run zip" (it sets COUNTERSIGN_STORE=1); not by "wxt zip" directly');
    },
  },
  manifest: ({ browser }) => ({
    name: '__MSG_extName__',
    description: '__MSG_extDescription__',
    default_locale: 'en',
    permissions: ['nativeMessaging', 'notifications', 'alarms', 'storage'],
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

/**
 * A page whose only import is the shared style sheet gets a module script from Vite all the same:
 * the style sheet's chunk, which holds no code. The approval window loads its code as one classic
 * script (entrypoints/approve-main.ts), and that empty module alone made it paint about 7 ms later,
 * so pages lose the script tags of chunks with no code. The chunk stays for the pages that import it.
 */
function dropEmptyModuleScripts(): Plugin {
  return {
    name: 'countersign:drop-empty-module-scripts',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const empty = new Set(Object.values(bundle).flatMap((f) => (f.type === 'chunk' && f.code.trim() === '' ? [f.fileName] : [])));
      for (const file of Object.values(bundle)) {
        if (file.type !== 'asset' || !file.fileName.endsWith('.html')) continue;
        file.source = String(file.source).replace(/\n?[ \t]*<script type="module"[^>]*\ssrc="\/([^"]+)"[^>]*><\/script>/g, (tag, src: string) => (empty.has(src) ? '' : tag));
      }
    },
  };
}
