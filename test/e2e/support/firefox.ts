import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { execFileSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Companion } from '../../../src/agent/index.ts';
import { FIREFOX_EXTENSION_ID } from '../../../src/protocol/extension-identity';
import { connectAgent, privateHome, waitForSocket, type StackEnv } from './stack';

export const FIREFOX_PATH = process.env.COUNTERSIGN_FIREFOX ?? '/usr/bin/firefox-esr';
export const FIREFOX_EXTENSION_DIR = resolve('.output/firefox-mv3');
/** A fixed moz-extension:// UUID (pref `extensions.webextensions.uuids`), so tests know the pages' origin. */
export const FIREFOX_UUID = '6f0c1c5e-1a2b-4c3d-8e9f-0a1b2c3d4e5f';

/**
 * The same real stack as stack.ts, in Debian firefox-esr driven by puppeteer-core over WebDriver
 * BiDi: a private HOME holds the host manifest the installer
 * writes, the add-on is installed as a temporary add-on, agents use the SDK.
 */
export class FirefoxStack {
  browser!: Browser;
  private constructor(readonly root: string, readonly env: StackEnv) {}

  static async start(): Promise<FirefoxStack> {
    const { root, env } = await privateHome();
    const stack = new FirefoxStack(root, env);
    execFileSync(process.execPath, [resolve('dist/countersign-bridge.mjs'), 'install', '--browser', 'firefox'], { env: { ...process.env, ...env }, stdio: 'pipe' });
    stack.browser = await puppeteer.launch({
      browser: 'firefox',
      executablePath: FIREFOX_PATH,
      headless: true,
      env: { ...process.env, ...env },
      extraPrefsFirefox: { 'extensions.webextensions.uuids': JSON.stringify({ [FIREFOX_EXTENSION_ID]: FIREFOX_UUID }) },
    });
    await stack.browser.installExtension(FIREFOX_EXTENSION_DIR);
    await waitForSocket(env);
    return stack;
  }

  socket(): Promise<string> {
    return waitForSocket(this.env);
  }

  agent(name: string, configName?: string): Promise<Companion> {
    return connectAgent(this.root, this.env, name, configName);
  }

  /**
   * The approval window. Firefox sends no load events for extension popups over BiDi, so each
   * page is asked for its location (closed windows linger in pages() and fail that question).
   */
  async approvalWindow(timeoutMs = 15_000): Promise<Page> {
    return this.pageWhere((href) => href.startsWith(`moz-extension://${FIREFOX_UUID}/approve.html`), timeoutMs, 'the approval window did not open');
  }

  /** The first open page whose location passes `matches`, asked every 100 ms. */
  async pageWhere(matches: (href: string) => boolean, timeoutMs = 15_000, failure = 'no page opened there'): Promise<Page> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      for (const page of await this.browser.pages()) {
        const href = await Promise.race([
          page.evaluate(() => location.href).catch(() => ''),
          new Promise<string>((r) => setTimeout(() => r(''), 500)),
        ]);
        if (matches(href)) return page;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(failure);
  }

  async pairedAgent(name: string): Promise<Companion> {
    const agent = await this.agent(name);
    const { code, fingerprint, confirmed } = await agent.pair();
    const page = await this.approvalWindow();
    await until(page, (f) => document.querySelector('[data-testid="pair-agent"]')?.textContent?.includes(f) === true, fingerprint);
    await page.type('[data-testid="pair-code-input"]', code);
    await until(page, () => document.querySelector<HTMLButtonElement>('#pair-confirm')?.disabled === false, undefined);
    await page.click('#pair-confirm');
    await confirmed;
    return agent;
  }

  async close(): Promise<void> {
    await this.browser?.close().catch(() => undefined);
    await rm(this.root, { recursive: true, force: true });
  }
}

/**
 * Waits until `predicate` holds in the page, asking it every 100 ms. Not page.waitForFunction:
 * its poller builds the predicate with Function(), which the extension pages' CSP refuses in
 * Firefox ESR (EvalError); page.evaluate goes through WebDriver BiDi's callFunction instead.
 */
export async function until<A>(page: Page, predicate: (arg: A) => boolean, arg: A, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    // One ask that never answers (a page still loading, busy in a WebAuthn call) must not use up
    // the whole wait: each ask gets a second, then the next one goes.
    const asked = page.evaluate(predicate as (arg: unknown) => boolean, arg).catch(() => false);
    if (await Promise.race([asked, new Promise<false>((r) => setTimeout(() => r(false), 1000))])) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${predicate.toString().slice(0, 120)}`);
}
