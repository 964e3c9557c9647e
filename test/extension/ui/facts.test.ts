import { describe, it, expect } from 'vitest';
import { changedFacts, factsOf } from '../../../src/extension/ui/facts';
import { translator } from '../../../src/extension/ui/i18n';
import { chromeGetMessage, englishMessages, englishTranslate } from './locale-table';
import { T700, TERMS } from './jacket-view';

const t = englishTranslate();

describe('facts: factsOf (spec section 3: the facts come from the terms, never the summary)', () => {
  it('money first, labelled from the key, formatted, with the way it goes (a price difference is a charge)', () => {
    const facts = factsOf(TERMS, t);
    expect(facts[0]).toMatchObject({ path: 'price_difference', label: 'Price difference', value: '$70.00', kind: 'money', direction: 'charge' });
    expect(facts.map((f) => f.label)).toEqual(['Price difference', 'Order ID', 'Item ID', 'Replacement SKU']);
  });

  it('formats for the translator\'s locale (German: 70,00 $)', () => {
    const de = translator(chromeGetMessage(englishMessages()), 'de');
    expect(factsOf(TERMS, de)[0]!.value).toBe('70,00\u00A0$');
  });

  it('a limit keeps the first facts only', () => {
    expect(factsOf(TERMS, t, 2).map((f) => f.label)).toEqual(['Price difference', 'Order ID']);
  });

  it('no terms, or terms the review cannot read, give no facts (and never throw)', () => {
    expect(factsOf(undefined, t)).toEqual([]);
    expect(factsOf(['not', 'an', 'object'] as unknown as Record<string, unknown>, t)).toEqual([]);
  });
});

describe('facts: changedFacts (a new revision while the person reads)', () => {
  it('an amount that moved: label, before, after', () => {
    expect(changedFacts({ terms: TERMS }, { terms: T700 }, t)).toEqual([{ label: 'Price difference', before: '$70.00', after: '$700.00' }]);
  });

  it('no change → nothing', () => {
    expect(changedFacts({ terms: TERMS }, { terms: structuredClone(TERMS) }, t)).toEqual([]);
  });

  it('a fact added shows "none" before; a fact removed shows "none" after', () => {
    const { item_id: _gone, ...without } = TERMS;
    const added = { ...TERMS, gift_wrap: true };
    expect(changedFacts({ terms: TERMS }, { terms: added }, t)).toEqual([{ label: 'Gift wrap', before: t('factAbsent'), after: 'Yes' }]);
    expect(changedFacts({ terms: TERMS }, { terms: without }, t)).toEqual([{ label: 'Item ID', before: 'itm_4Qa', after: t('factAbsent') }]);
    expect(changedFacts({}, { terms: { order_id: 'ord_1' } }, t)).toEqual([{ label: 'Order ID', before: 'none', after: 'ord_1' }]);
  });

  it('compares every fact, not only those shown: a change in the twelfth is found', () => {
    const many = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`ref_${i + 1}`, `r_${i + 1}`]));
    const next = { ...many, ref_12: 'r_changed' };
    expect(changedFacts({ terms: many }, { terms: next }, t)).toEqual([{ label: 'Ref 12', before: 'r_12', after: 'r_changed' }]);
  });
});
