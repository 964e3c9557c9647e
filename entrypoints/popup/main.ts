import { z } from 'zod';
import { browser } from 'wxt/browser';
import { versionAnswer } from '../../src/extension/runtime-messages';
import { renderApprovalList } from '../../src/extension/ui/lists';
import type { Snapshot } from '../../src/extension/snapshot';

z.config({ jitless: true });
const t = (key: string, subs?: string | string[]) => browser.i18n.getMessage(key as never, subs as never) || key;
const app = document.getElementById('app')!;
const answer = versionAnswer.parse(await browser.runtime.sendMessage({ type: 'countersign/version' }));
const snapshot = (await browser.runtime.sendMessage({ type: 'countersign/snapshot' })) as Snapshot | undefined;

const title = document.createElement('h1');
title.textContent = `Countersign ${answer.version}`;
app.replaceChildren(title);
if (snapshot) {
  const bridge = document.createElement('p');
  bridge.textContent = snapshot.bridge === 'up' ? 'Bridge connected' : 'Bridge not connected — run: countersign-bridge doctor';
  app.append(bridge);
  const open = document.createElement('button');
  open.type = 'button';
  open.textContent = snapshot.active.length ? `${snapshot.active.length} waiting — open` : t('nothingPending');
  open.disabled = snapshot.active.length === 0;
  open.addEventListener('click', () => void browser.runtime.sendMessage({ type: 'countersign/open-window' }));
  app.append(open, renderApprovalList(document, snapshot.history.slice(0, 5), t));
}
