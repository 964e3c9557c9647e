import { chromium, type BrowserContext, type Worker } from '@playwright/test';
import { mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const CHROMIUM_PATH = process.env.COUNTERSIGN_CHROMIUM ?? '/usr/bin/chromium';
export const EXTENSION_DIR = resolve('.output/chrome-mv3');

// Flags that keep Debian Chromium quiet and working as root on a closed network
// (measured with Debian Chromium 156).
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface LaunchedExtension {
  context: BrowserContext;
  worker: Worker;
  profileDir: string;
  extensionId: string;
  close(): Promise<void>;
}

export interface LaunchOptions {
  /** Host manifests to seed under <profile>/NativeMessagingHosts (Chromium reads them there). */
  nativeHosts?: Record<string, unknown>;
  /** Reuse an existing profile (browser restart tests). */
  profileDir?: string;
}

/** A fresh profile with the built extension loaded; resolves once its service worker runs. */
export async function launchWithExtension(options: LaunchOptions = {}): Promise<LaunchedExtension> {
  const profileDir = options.profileDir ?? (await mkdtemp(join(tmpdir(), 'countersign-chromium-')));
  // Developer mode keeps a command-line extension loaded across runtime.reload().
  await mkdir(join(profileDir, 'Default'), { recursive: true });
  await writeFile(
    join(profileDir, 'Default', 'Preferences'),
    JSON.stringify({ extensions: { ui: { developer_mode: true } } }),
  );
  if (options.nativeHosts) {
    await mkdir(join(profileDir, 'NativeMessagingHosts'), { recursive: true });
    for (const [name, manifest] of Object.entries(options.nativeHosts)) {
      await writeFile(join(profileDir, 'NativeMessagingHosts', `${name}.json`), JSON.stringify(manifest));
    }
  }
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...FLAGS, `--disable-extensions-except=${EXTENSION_DIR}`, `--load-extension=${EXTENSION_DIR}`],
  });
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
  const extensionId = new URL(worker.url()).host;
  return {
    context,
    worker,
    profileDir,
    extensionId,
    async close() {
      await context.close();
      if (!options.profileDir) await rm(profileDir, { recursive: true, force: true });
    },
  };
}
