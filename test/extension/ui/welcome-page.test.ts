// @vitest-environment jsdom
import { describe, it, expect, beforeEach, vi } from 'vitest';
import { mountWelcome } from '../../../src/extension/ui/welcome-page';
import { fakeBrowser, flush, loadPage, textOf, unlocalisedText } from './fake-browser';

describe('welcome page (opened on install)', () => {
  beforeEach(() => document.body.replaceChildren());

  it('says what Countersign does in two sentences, shows the setup checklist and a way to settings', async () => {
    loadPage('welcome');
    const f = fakeBrowser({ bridge: 'down', bridgeError: 'No such native application x', browserFamily: 'firefox', agents: [], agentsConnected: 0 });
    const copy = vi.fn(async () => undefined);
    const page = mountWelcome(document, f.browser, { pollMs: 0, copy });
    await page.ready;
    expect([...document.querySelectorAll('.intro p')].map(textOf)).toEqual([f.msg('welcomeWhat'), f.msg('welcomeHow')]);
    expect(textOf(document.querySelector('[data-testid="install-command"]'))).toBe('npx countersign-bridge install --browser firefox');
    document.querySelector<HTMLButtonElement>('[data-testid="copy-command"]')!.click();
    await flush();
    expect(copy).toHaveBeenCalledWith('npx countersign-bridge install --browser firefox');
    document.querySelector<HTMLButtonElement>('[data-testid="settings"]')!.click();
    expect(f.openOptionsPage).toHaveBeenCalledTimes(1);
    expect(unlocalisedText(document.body, f.shown)).toEqual([]);
  });

  it('the checklist moves on when the helper comes up, then when an agent is paired', async () => {
    loadPage('welcome');
    const f = fakeBrowser({ bridge: 'down', bridgeError: 'x', agents: [], agentsConnected: 0 });
    const page = mountWelcome(document, f.browser, { pollMs: 0 });
    await page.ready;
    expect(document.querySelector('[data-testid="checklist"]')?.getAttribute('data-step')).toBe('install');
    f.snapshot.bridge = 'up';
    await page.refresh();
    expect(document.querySelector('[data-testid="checklist"]')?.getAttribute('data-step')).toBe('pair');
    expect(textOf(document.querySelector('[data-step="pair"]'))).toContain(f.msg('setupPairHow'));
    f.snapshot.agents = fakeBrowser().snapshot.agents;
    f.snapshot.agentsConnected = 1;
    await page.refresh();
    expect(document.querySelector('[data-testid="checklist"]')?.getAttribute('data-step')).toBe('ready');
    expect(textOf(document.body)).toContain(f.msg('welcomeAllSet'));
    expect(unlocalisedText(document.body, f.shown)).toEqual([]);
  });
});
