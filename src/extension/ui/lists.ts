import { inspectText } from '../../summary/text-inspection.ts';
import type { Translate } from './approval-card';
import type { ApprovalView, Snapshot } from '../snapshot';

/** The i18n message that says what state an approval is in (one table for every page). */
export const STATE_MESSAGE: Record<ApprovalView['state'], string> = {
  pending: 'notificationTitle',
  held: 'stateHeld',
  approved: 'stateApproved',
  sent: 'stateSent',
  unknown: 'stateUnknown',
  performed: 'statePerformed',
  failed: 'stateFailed',
  declined: 'stateDeclined',
  withdrawn: 'stateWithdrawn',
  expired: 'stateExpired',
  superseded: 'stateSuperseded',
  cancelled: 'stateCancelled',
};

/**
 * A list of approvals as text only: Company name, state, first words of the summary as plain
 * text (the summary pipeline is for the approval window; here nothing is rendered at all).
 */
export function renderApprovalList(doc: Document, views: ApprovalView[], t: Translate): HTMLUListElement {
  const list = doc.createElement('ul');
  list.className = 'approvals';
  for (const v of views) {
    const item = doc.createElement('li');
    const name = doc.createElement('strong');
    // Company text: hidden and direction-changing characters shown as tokens, as in the window.
    name.textContent = inspectText(v.company.name, { singleLine: true }).display;
    const state = doc.createElement('span');
    state.className = `state ${v.state}`;
    state.textContent = ` — ${t(STATE_MESSAGE[v.state])}`;
    // Who asked, with the key: a history row must not read the same for two agents of one name.
    const asker = doc.createElement('span');
    asker.className = 'muted agent';
    asker.textContent = ` · ${inspectText(v.agentName, { singleLine: true }).display} (${v.agentFingerprint})`;
    const summary = doc.createElement('p');
    summary.className = 'muted';
    const excerpt = inspectText(v.operation.summary.slice(0, 140), { singleLine: true }).display;
    summary.textContent = v.operation.summary.length > 140 ? `${excerpt}…` : excerpt;
    item.append(name, state, asker, summary);
    list.append(item);
  }
  return list;
}

export function renderAgents(doc: Document, snapshot: Snapshot, onRevoke: (thumbprint: string) => void, t: Translate): HTMLTableElement {
  const table = doc.createElement('table');
  for (const agent of snapshot.agents) {
    const row = doc.createElement('tr');
    const name = doc.createElement('td');
    name.textContent = inspectText(agent.name, { singleLine: true }).display;
    const key = doc.createElement('td');
    // The short fingerprint the agent prints (and every prompt shows), then the full RFC 7638
    // thumbprint, grouped for reading aloud against the agent's own display.
    const short = doc.createElement('strong');
    short.textContent = agent.fingerprint;
    const full = doc.createElement('small');
    full.textContent = ` ${agent.thumbprint.match(/.{1,4}/g)!.join(' ')}`;
    key.append(short, full);
    key.setAttribute('aria-label', `${t('keyFingerprint')}: ${agent.fingerprint} (${agent.thumbprint})`);
    const when = doc.createElement('td');
    when.textContent = agent.revokedAt ? t('revokedOn', new Date(agent.revokedAt).toLocaleString()) : new Date(agent.pairedAt).toLocaleString();
    const action = doc.createElement('td');
    if (!agent.revokedAt) {
      const revoke = doc.createElement('button');
      revoke.type = 'button';
      revoke.textContent = t('revoke');
      revoke.setAttribute('aria-label', t('revokeLabel', agent.name));
      revoke.addEventListener('click', () => onRevoke(agent.thumbprint));
      action.append(revoke);
    }
    row.append(name, key, when, action);
    table.append(row);
  }
  return table;
}
