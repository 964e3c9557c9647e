import type { KeyFact } from '../../review/key-facts.ts';
import type { ApprovalView } from '../snapshot';
import type { Translate } from './i18n';
import type { ToolAction } from './tool-call-action';

/**
 * The words on Approve: what the click does, from data, never from the summary (docs/ui.md, "The
 * footer"). "Approve · pay $70.00" when the terms hold one amount the person pays, "Approve · get
 * $20.00 back" for one refund, "Approve · replace file" for a tool call; "Approve with passkey"
 * when the item needs one; with a danger "Approve anyway · …". Two amounts, or one that goes neither way, leave
 * the button plain: the facts above it say them, and a button cannot say two amounts clearly.
 */
export function approveLabel(view: ApprovalView, danger: boolean, action: ToolAction | undefined, facts: readonly KeyFact[], t: Translate): string {
  // The passkey is the consequence the person must know of first: "Approve with passkey" says
  // the next step, and the amount is in the facts right above (one line at 125 % zoom).
  if (!danger && view.userVerification === 'required') return t('approveWithPasskey');
  const base = danger ? t('approveAnyway') : t('approve');
  const what = consequence(view, action, facts, t);
  return what === undefined ? base : t('approveConsequence', [base, what]);
}

/** `facts`: the terms' facts as the card read them (RenderedCard.facts), money first. */
function consequence(view: ApprovalView, action: ToolAction | undefined, facts: readonly KeyFact[], t: Translate): string | undefined {
  if (view.toolCall) {
    if (action === undefined) return undefined;
    return action.verb === 'changeFiles' ? t.plural('toolConsequenceFiles', Number(action.target)) : t(`toolConsequence_${action.verb}`);
  }
  const money = facts.filter((f) => f.kind === 'money');
  const [only] = money;
  if (money.length !== 1 || only === undefined || only.unformatted) return undefined;
  if (only.direction === 'charge') return t('consequencePay', only.value);
  if (only.direction === 'refund') return t('consequenceRefund', only.value.replace(/^[-\u2212]\s?/, ''));
  return undefined;
}
