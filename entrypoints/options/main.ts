import { z } from 'zod';
import { browser } from 'wxt/browser';
import { renderAgents, renderApprovalList } from '../../src/extension/ui/lists';
import type { Snapshot } from '../../src/extension/snapshot';

z.config({ jitless: true });
const t = (key: string, subs?: string | string[]) => browser.i18n.getMessage(key as never, subs as never) || key;

async function refresh(): Promise<void> {
  const snapshot = (await browser.runtime.sendMessage({ type: 'countersign/snapshot' })) as Snapshot;
  document.getElementById('key')!.textContent = `Extension key: ${snapshot.extensionKeyThumbprint ?? '…'}`;
  document.getElementById('agents')!.replaceChildren(
    renderAgents(document, snapshot, (thumbprint) => {
      void browser.runtime.sendMessage({ type: 'countersign/revoke-agent', thumbprint }).then(refresh);
    }),
  );
  document.getElementById('history')!.replaceChildren(renderApprovalList(document, snapshot.history, t));
}
void refresh();
