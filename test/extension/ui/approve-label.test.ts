import { describe, expect, it } from 'vitest';
import { approveLabel } from '../../../src/extension/ui/approve-label';
import { toolCallAction, type ToolAction } from '../../../src/extension/ui/tool-call-action';
import type { ReviewedView } from '../../../src/extension/snapshot';
import { englishTranslate } from './locale-table';
import { jacketOperation, jacketView } from './jacket-view';

const t = englishTranslate();
/** Approve's words for a view, from its facts as the card reads them (the background's review). */
const label = (view: ReviewedView, danger: boolean, action?: ToolAction) => approveLabel(view, danger, action, view.review.facts, t);
const withTerms = (terms: Record<string, unknown> | undefined) => jacketView({ operation: jacketOperation({ terms }) });

describe('approveLabel: the consequence on the button (docs/ui.md, "The footer")', () => {
  it('names the one amount the person pays, from the terms', () => {
    expect(label(jacketView(), false)).toBe('Approve · pay $70.00');
  });

  it('names one refund as money back, without its minus sign', () => {
    expect(label(withTerms({ refund: { amount: '20.00', currency: 'USD' } }), false)).toBe('Approve · get $20.00 back');
    expect(label(withTerms({ price_difference: { amount: '-20.00', currency: 'USD' } }), false)).toBe('Approve · get $20.00 back');
  });

  it('stays plain for two amounts, an amount that goes neither way, or no terms', () => {
    const two = { price: { amount: '5.00', currency: 'USD' }, fee: { amount: '1.00', currency: 'USD' } };
    expect(label(withTerms(two), false)).toBe('Approve');
    expect(label(withTerms({ discount: { amount: '50.00', currency: 'USD' } }), false)).toBe('Approve');
    expect(label(withTerms(undefined), false)).toBe('Approve');
  });

  it('says "anyway" with a danger and "with passkey" when the item needs one', () => {
    expect(label(jacketView(), true)).toBe('Approve anyway · pay $70.00');
    expect(label(jacketView({ userVerification: 'required' }), false)).toBe('Approve with passkey');
  });

  it('names what a tool call does', () => {
    const view = jacketView({ toolCall: { server: { name: 's', reached_by: { transport: 'stdio', command: 'x', args: [] } }, tool: 'run', arguments: { command: 'ls' } } });
    expect(label(view, false, toolCallAction(view.toolCall!))).toBe('Approve · run command');
    const files = { files: [{ action: 'update', path: '/a' }, { action: 'create', path: '/b' }] };
    expect(label(view, false, toolCallAction({ tool: 'apply_patch', arguments: files }))).toBe('Approve · change 2 files');
  });
});
