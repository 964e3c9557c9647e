import puppeteer from 'puppeteer-core';
import { mkdtempSync, mkdirSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
const root = mkdtempSync('/tmp/cs-ff-');
const env = { HOME: root, XDG_RUNTIME_DIR: join(root, 'run'), XDG_CONFIG_HOME: join(root, 'config'), XDG_CACHE_HOME: join(root, 'cache') };
mkdirSync(env.XDG_RUNTIME_DIR, { mode: 0o700 });
console.log(execFileSync(process.execPath, ['dist/countersign-bridge.mjs', 'install', '--browser', 'firefox'], { env: { ...process.env, ...env }, encoding: 'utf8' }));
const t0 = Date.now();
const browser = await puppeteer.launch({ browser: 'firefox', executablePath: '/usr/bin/firefox-esr', headless: true, env: { ...process.env, ...env },
  extraPrefsFirefox: { 'extensions.webextensions.uuids': JSON.stringify({ 'countersign@countersign.dev': '6f0c1c5e-1a2b-4c3d-8e9f-0a1b2c3d4e5f' }) } });
console.log('launched', Date.now() - t0);
const id = await browser.installExtension(resolve('.output/firefox-mv3'));
console.log('installed', id, Date.now() - t0);
await new Promise((r) => setTimeout(r, 3000));
console.log(readdirSync(env.XDG_RUNTIME_DIR, { recursive: true }));
const page = await browser.newPage();
try { await page.goto('moz-extension://6f0c1c5e-1a2b-4c3d-8e9f-0a1b2c3d4e5f/popup.html'); console.log(await page.evaluate(() => document.body.innerText)); } catch (e) { console.log('goto failed', (e as Error).message); }
await browser.close();
