import { chromium, expect, type BrowserContext, type Page, type Worker } from '@playwright/test';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, mkdir, writeFile, rm, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Companion } from '../../../src/agent/index.ts';
import { CHROMIUM_PATH, EXTENSION_DIR } from './chromium';
import { isCountersignError } from '../../../src/protocol/errors';

const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * The real stack for end-to-end tests: Debian Chromium with the built extension, the bridge
 * installed into the profile by its own installer, and agents that use the SDK over the
 * bridge's socket. Everything lives in one temporary folder (HOME, XDG_RUNTIME_DIR, profile).
 */
export interface StackEnv {
  HOME: string;
  XDG_RUNTIME_DIR: string;
  XDG_CONFIG_HOME: string;
  XDG_DATA_HOME: string;
  XDG_CACHE_HOME: string;
}

export class Stack {
  context!: BrowserContext;
  worker!: Worker;
  private constructor(readonly root: string, readonly env: StackEnv, readonly extensionDir = EXTENSION_DIR) {}

  get profile(): string {
    return join(this.root, 'profile');
  }

  /** `extensionDir`: another build of the extension (same key, so the same ID), e.g. pseudo-localised. */
  static async start(options: { installBridge?: boolean; extensionDir?: string } = {}): Promise<Stack> {
    const { root, env } = await privateHome();
    const stack = new Stack(root, env, options.extensionDir);
    await mkdir(join(stack.profile, 'Default'), { recursive: true });
    await writeFile(join(stack.profile, 'Default', 'Preferences'), JSON.stringify({ extensions: { ui: { developer_mode: true } } }));
    // The installer under test writes the host manifest and the launcher.
    if (options.installBridge !== false) execFileSync(process.execPath, [resolve('dist/countersign-bridge.mjs'), 'install', '--browser', 'chromium', '--user-data-dir', stack.profile], {
      env: { ...process.env, ...env },
      stdio: 'pipe',
    });
    await stack.launch(options.installBridge !== false);
    return stack;
  }

  async launch(waitForBridge = true): Promise<void> {
    this.context = await chromium.launchPersistentContext(this.profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      env: { ...process.env, ...this.env },
      args: [...FLAGS, `--disable-extensions-except=${this.extensionDir}`, `--load-extension=${this.extensionDir}`],
    });
    this.worker = this.context.serviceWorkers()[0] ?? (await this.context.waitForEvent('serviceworker'));
    if (waitForBridge) await this.socket();
  }

  /** Closes the browser and starts it again on the same profile (IndexedDB and keys kept). */
  async restartBrowser(): Promise<void> {
    await this.context.close();
    await rm(join(this.env.XDG_RUNTIME_DIR, 'countersign'), { recursive: true, force: true });
    await this.launch();
  }

  /** Kills the bridge process the browser started (SIGKILL: no goodbye to anyone). */
  killBridge(): void {
    execFileSync('pkill', ['-KILL', '-f', `${this.root}/.*countersign-bridge\\.mjs`], { stdio: 'ignore' });
  }

  /** An extension page opened in a tab (popup.html, options.html). */
  async extensionPage(path: string): Promise<Page> {
    const page = await this.context.newPage();
    await page.goto(new URL(path, this.worker.url()).href);
    return page;
  }

  socket(timeoutMs?: number): Promise<string> {
    return waitForSocket(this.env, timeoutMs);
  }

  agent(name: string, configName?: string): Promise<Companion> {
    return connectAgent(this.root, this.env, name, configName);
  }

  /**
   * Pairs a new agent as a person does: types the code the agent shows into the window, then clicks Pair.
   * Pairs again, once, when the bridge goes away meanwhile (docs/agent-sdk.md, "unavailable"): in
   * the first seconds after an install the browser may restart the extension's worker, and with it
   * the bridge the agent had just reached (connectAgent covers the connection itself).
   */
  async pairedAgent(name: string): Promise<Companion> {
    for (let attempt = 1; ; attempt++) {
      let agent: Companion | undefined;
      let shownFingerprint: string | undefined;
      try {
        agent = await this.agent(name);
        const { code, fingerprint, confirmed } = await agent.pair();
        shownFingerprint = fingerprint;
        const page = await this.approvalWindow();
        // In front, as a person typing the code: Pair arms only while the window has the focus.
        await page.bringToFront();
        const card = page.getByTestId('pairing').filter({ hasText: fingerprint });
        const input = card.getByTestId('pair-code-input');
        const confirm = card.locator('#pair-confirm');
        const typed = `${code.slice(0, 3)} ${code.slice(3)}`;
        await input.fill(typed);
        // Seen now and then under load: the field found empty again a moment after it was filled,
        // the card rebuilt. A person would type the code again, and so does this, once; the
        // failure still says what held Pair back.
        await expect(confirm).toBeEnabled({ timeout: 10_000 }).catch(async () => {
          if ((await input.inputValue()) === '') await input.fill(typed);
        });
        await expect(confirm).toBeEnabled({ timeout: 10_000 }).catch(async (error: unknown) => {
          const state = await page.evaluate((f) => {
            const shown = [...document.querySelectorAll<HTMLElement>('[data-testid="pairing"]')].find((c) => c.textContent?.includes(f));
            return {
              focused: document.hasFocus(),
              visibility: document.visibilityState,
              typed: shown?.querySelector<HTMLInputElement>('[data-testid="pair-code-input"]')?.value,
              note: shown?.querySelector('.pair-note')?.textContent,
              bridgeDown: document.getElementById('bridge-down')?.hidden === false,
              pairingIds: [...document.querySelectorAll<HTMLElement>('[data-testid="pairing"]')].map((c) => c.dataset.pairingId),
            };
          }, fingerprint);
          throw new Error(`Pair never armed for ${name}: ${JSON.stringify(state)}`, { cause: error });
        });
        await confirm.click();
        await confirmed;
        return agent;
      } catch (error) {
        if (attempt > 1 || !isCountersignError(error, 'ERR_COMPANION_UNAVAILABLE')) throw error;
        await agent?.close().catch(() => undefined);
        // The next attempt pairs the same key, so its card has the same fingerprint: the code must
        // not go into this attempt's card while the window still shows it.
        const window = this.context.pages().find((p) => p.url().includes('/approve.html'));
        if (shownFingerprint !== undefined && window !== undefined) {
          await expect(window.getByTestId('pairing').filter({ hasText: shownFingerprint })).toHaveCount(0, { timeout: 10_000 });
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  /** The extension's approval window (opened by the background). */
  async approvalWindow(timeoutMs = 10_000): Promise<Page> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const page = this.context.pages().find((p) => p.url().includes('/approve.html'));
      if (page) return page;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the approval window did not open');
  }

  /** Stops the extension's service worker, as Chromium does after 30 s idle. */
  async stopWorker(): Promise<void> {
    const page = this.context.pages()[0] ?? (await this.context.newPage());
    const cdp = await this.context.newCDPSession(page);
    await cdp.send('ServiceWorker.enable');
    await cdp.send('ServiceWorker.stopAllWorkers');
    await cdp.detach();
  }

  async close(): Promise<void> {
    await this.context?.close().catch(() => undefined);
    await rm(this.root, { recursive: true, force: true });
  }
}

/** A private HOME and runtime folder, so tests never touch the real user's browsers or sockets. */
export async function privateHome(): Promise<{ root: string; env: StackEnv }> {
  const root = await mkdtemp(join(tmpdir(), 'countersign-e2e-'));
  const env: StackEnv = {
    HOME: root,
    XDG_RUNTIME_DIR: join(root, 'run'),
    XDG_CONFIG_HOME: join(root, 'config'),
    XDG_DATA_HOME: join(root, 'data'),
    XDG_CACHE_HOME: join(root, 'cache'),
  };
  await mkdir(env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
  return { root, env };
}

/** The bridge's agent socket, once the extension has started the bridge. */
export async function waitForSocket(env: StackEnv, timeoutMs = 15_000): Promise<string> {
  const dir = join(env.XDG_RUNTIME_DIR, 'countersign');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const names = await readdir(dir).catch(() => [] as string[]);
    const sock = names.find((n) => n.endsWith('.sock'));
    if (sock) return join(dir, sock);
    // Every 10 ms: the cold-start benchmark times the new bridge's socket by this wait.
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the bridge socket did not appear');
}

/**
 * Connects as an agent should (docs/agent-sdk.md, "unavailable": connect again, once): right after
 * the browser starts, it may restart the extension's worker and with it the bridge, whose socket
 * file then refuses until the next bridge replaces it.
 */
export async function connectAgent(root: string, env: StackEnv, name: string, configName = name.replace(/\W+/g, '-')): Promise<Companion> {
  const connect = async () =>
    Companion.connect({
      agentName: name,
      configDir: join(root, 'agents', configName),
      env: { ...process.env, ...env },
      socketPath: await waitForSocket(env),
    });
  try {
    return await connect();
  } catch (error) {
    if (!isCountersignError(error, 'ERR_COMPANION_UNAVAILABLE')) throw error;
    await new Promise((r) => setTimeout(r, 1000));
    return connect();
  }
}

/** A page message from one of the extension's own pages (the background answers only those). */
/**
 * Pairs a command of the package (`countersign-mcp pair`, `countersign-hook pair`) as a person
 * does: the command prints the code, the person types it into the window and clicks Pair.
 * Resolves with what the command printed once it exited 0.
 */
export async function pairCommand(stack: Stack, args: string[]): Promise<string> {
  const pairing = spawn(process.execPath, args, { env: { ...(process.env as Record<string, string>), ...stack.env } });
  let printed = '';
  pairing.stderr.on('data', (d: Buffer) => (printed += d.toString()));
  const exited = new Promise<number | null>((r) => pairing.on('exit', r));
  const code = () => /confirm:\s+(\d{3} \d{3})/.exec(printed)?.[1];
  await expect.poll(code, { timeout: 15_000 }).toBeTruthy();
  const page = await stack.approvalWindow();
  await page.getByTestId('pair-code-input').fill(code()!);
  await page.locator('#pair-confirm:enabled').click();
  expect(await exited, printed).toBe(0);
  return printed;
}

export function pageMessage<T>(page: Page, message: Record<string, unknown>): Promise<T> {
  return page.evaluate(
    (m) => (globalThis as unknown as { chrome: { runtime: { sendMessage(m: unknown): Promise<unknown> } } }).chrome.runtime.sendMessage(m),
    message,
  ) as Promise<T>;
}

/**
 * Scrolls the approval window's summary to its end, as a person must, until Approve arms. When
 * the end has moved off screen meanwhile (a card arriving above it, a line wrapping anew), the
 * read hint shows again and the person scrolls again; so does this. On failure it says what the
 * window showed: the read hint, where the summary's end is, the focus, the bridge banner.
 */
export async function readToEnd(page: Page, timeoutMs = 10_000): Promise<void> {
  try {
    await expect(async () => {
      await page.getByTestId('summary').evaluate((el) => el.scrollIntoView({ block: 'end' }));
      await expect(page.locator('#approve')).toBeEnabled({ timeout: 3_000 });
    }).toPass({ timeout: timeoutMs });
  } catch (error) {
    const seen = await page.evaluate(() => {
      const hint = document.querySelector<HTMLElement>('#read-hint');
      const content = document.querySelector('#content')?.getBoundingClientRect();
      const end = document.querySelector('[data-testid="summary"]')?.getBoundingClientRect();
      return {
        hint: hint && !hint.hidden ? hint.textContent : null,
        summaryEnd: end?.bottom,
        contentBottom: content?.bottom,
        focused: document.hasFocus(),
        banner: document.querySelector<HTMLElement>('#bridge-down')?.hidden === false,
        approve: document.querySelector('#approve')?.outerHTML,
      };
    });
    throw new Error(`Approve did not arm after reading to the end: ${JSON.stringify(seen)}`, { cause: error });
  }
}

/** What the background shows its pages now (read from IndexedDB): the parts the tests look at. */
export interface SnapshotSeen {
  active: Array<{ key: string; state: string; company: { name: string; origin: string }; operation: { operation_id: string; revision: string } }>;
  agents: Array<{ name: string; fingerprint: string; revokedAt?: number }>;
}

export function snapshotOf(page: Page): Promise<SnapshotSeen> {
  return pageMessage<SnapshotSeen>(page, { type: 'countersign/snapshot' });
}

/** Writes raw frames to the agent socket and collects what comes back (for malformed-input tests). */
export async function rawSocket(socketPath: string): Promise<{ send(text: string): void; replies: unknown[]; close(): void }> {
  const { createConnection } = await import('node:net');
  const replies: unknown[] = [];
  const sock = createConnection(socketPath);
  let buffer = Buffer.alloc(0);
  sock.on('data', (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    while (buffer.length >= 4) {
      const length = buffer.readUInt32BE(0);
      if (buffer.length < 4 + length) break;
      replies.push(JSON.parse(buffer.subarray(4, 4 + length).toString('utf8')));
      buffer = buffer.subarray(4 + length);
    }
  });
  await new Promise((r) => sock.once('connect', r));
  return {
    replies,
    send(text: string) {
      const body = Buffer.from(text, 'utf8');
      const head = Buffer.alloc(4);
      head.writeUInt32BE(body.length);
      sock.write(Buffer.concat([head, body]));
    },
    close: () => sock.destroy(),
  };
}

/** An operation of the seed's jacket exchange (spec section 3), expiring `inMs` from now. */
export function jacketOperation(revision = 'rev1', inMs = 10 * 60_000, overrides: Record<string, unknown> = {}) {
  return {
    operation_id: 'exc_5Rt2',
    revision,
    summary:
      'Exchange the Stormline Jacket (M) on order ord_7Hk2 for the Stormline Insulated Jacket (M), for **$70.00** more, charged to the card used for the order.',
    terms: {
      order_id: 'ord_7Hk2',
      item_id: 'itm_4Qa',
      replacement_sku: 'stormline-insulated-m',
      price_difference: { amount: '70.00', currency: 'USD' },
    },
    expires_at: new Date(Date.now() + inMs).toISOString(),
    ...overrides,
  };
}

export const STORMLINE = { name: 'Stormline Outfitters', origin: 'https://stormline.example' };
export const EXCHANGE_REQUEST = {
  interface: 'api' as const,
  method: 'POST',
  url: 'https://api.stormline.example/orders/ord_7Hk2/exchanges',
  body: { item_id: 'itm_4Qa', replacement_sku: 'stormline-insulated-m' },
};
