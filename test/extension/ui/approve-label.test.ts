import { describe, expect, it } from 'vitest';
import { approveLabel } from '../../../src/extension/ui/approve-label';
import { toolCallAction } from '../../../src/extension/ui/tool-call-action';
import { englishTranslate } from './locale-table';
import { jacketOperation, jacketView } from './jacket-view';

const t = englishTranslate();
const withTerms = (terms: Record<string, unknown> | undefined) => jacketView({ operation: jacketOperation({ terms }) });

describe('approveLabel: the consequence on the button (docs/ui.md, "The footer")', () => {
  it('names the one amount the person pays, from the terms', () => {
    expect(approveLabel(jacketView(), false, undefined, t)).toBe('Approve · pay $70.00');
  });

  it('names one refund as money back, without its minus sign', () => {
    expect(approveLabel(withTerms({ refund: { amount: '20.00', currency: 'USD' } }), false, undefined, t)).toBe('Approve · get $20.00 back');
    expect(approveLabel(withTerms({ price_difference: { amount: '-20.00', currency: 'USD' } }), false, undefined, t)).toBe('Approve · get $20.00 back');
  });

  it('stays plain for two amounts, an amount that goes neither way, or no terms', () => {
    const two = { price: { amount: '5.00', currency: 'USD' }, fee: { amount: '1.00', currency: 'USD' } };
    expect(approveLabel(withTerms(two), false, undefined, t)).toBe('Approve');
    expect(approveLabel(withTerms({ discount: { amount: '50.00', currency: 'USD' } }), false, undefined, t)).toBe('Approve');
    expect(approveLabel(withTerms(undefined), false, undefined, t)).toBe('Approve');
  });

  it('says "anyway" with a danger and "with passkey" when the item needs one', () => {
    expect(approveLabel(jacketView(), true, undefined, t)).toBe('Approve anyway · pay $70.00');
    expect(approveLabel(jacketView({ userVerification: 'required' }), false, undefined, t)).toBe('Approve with passkey');
  });

  it('names what a tool call does', () => {
    const view = jacketView({ toolCall: { server: { name: 's', reached_by: { transport: 'stdio', command: 'x', args: [] } }, tool: 'run', arguments: { command: 'ls' } } });
    expect(approveLabel(view, false, toolCallAction(view.toolCall!), t)).toBe('Approve · run command');
    const files = { files: [{ action: 'update', path: '/a' }, { action: 'create', path: '/b' }] };
    expect(approveLabel(view, false, toolCallAction({ tool: 'apply_patch', arguments: files }), t)).toBe('Approve · change 2 files');
  });
});
