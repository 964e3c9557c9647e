import { describe, it, expect } from 'vitest';
import { changedFacts } from '../../../src/extension/ui/facts';
import { englishTranslate } from './locale-table';
import { jacketOperation, jacketView, T700, TERMS } from './jacket-view';

const t = englishTranslate();

/** What the changed banner lists for terms moving from `before` to `after`, from the background's review. */
function changes(before: Record<string, unknown> | undefined, after: Record<string, unknown> | undefined) {
  const previous = jacketOperation({ terms: before });
  return changedFacts(jacketView({ operation: jacketOperation({ revision: 'rev2', terms: after }), previous }).review, t);
}

describe('facts: changedFacts (a new revision while the person reads)', () => {
  it('an amount that moved: label, before, after', () => {
    expect(changes(TERMS, T700)).toEqual([{ label: 'Price difference', before: '$70.00', after: '$700.00' }]);
  });

  it('no change → nothing', () => {
    expect(changes(TERMS, structuredClone(TERMS))).toEqual([]);
  });

  it('a fact added shows "none" before; a fact removed shows "none" after', () => {
    const { item_id: _gone, ...without } = TERMS;
    const added = { ...TERMS, gift_wrap: true };
    expect(changes(TERMS, added)).toEqual([{ label: 'Gift wrap', before: t('factAbsent'), after: 'Yes' }]);
    expect(changes(TERMS, without)).toEqual([{ label: 'Item ID', before: 'itm_4Qa', after: t('factAbsent') }]);
    expect(changes(undefined, { order_id: 'ord_1' })).toEqual([{ label: 'Order ID', before: 'none', after: 'ord_1' }]);
  });

  it('compares every fact, not only those shown: a change in the twelfth is found', () => {
    const many = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`ref_${i + 1}`, `r_${i + 1}`]));
    const next = { ...many, ref_12: 'r_changed' };
    expect(changes(many, next)).toEqual([{ label: 'Ref 12', before: 'r_12', after: 'r_changed' }]);
  });

  it('an item that is no new revision has no changes', () => {
    expect(changedFacts(jacketView().review, t)).toEqual([]);
  });
});
