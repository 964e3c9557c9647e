// @vitest-environment jsdom
/**
 * Finding 5 of the adversarial review: an amount with more than 100 decimals made `Intl` throw,
 * so the window dropped every fact of the terms and said the Company sent none; with that amount
 * in the summary the review found nothing, and the changed banner did not name 70 → 700. Spec
 * section 3: the terms hold what the summary says in words, and the window shows them as data.
 */
import { describe, expect, it } from 'vitest';
import { factFindings, keyFacts } from '../../src/review/index.ts';
import { renderApprovalCard } from '../../src/extension/ui/approval-card';
import { approveLabel } from '../../src/extension/ui/approve-label';
import { englishTranslate } from '../extension/ui/locale-table';
import { textOf } from '../extension/ui/fake-browser';
import { jacketOperation, jacketView, TERMS } from '../extension/ui/jacket-view';

const t = englishTranslate();
const label = (view: ReturnType<typeof jacketView>, danger: boolean) => approveLabel(view, danger, undefined, view.review.facts, t);
/** 700 and then 101 decimals: one more than `Intl.NumberFormat` can show (ECMA-402 caps them at 100). */
const HUGE = `700.${'0'.repeat(100)}1`;
const HUGE_TERMS = { ...TERMS, price_difference: { amount: HUGE, currency: 'USD' } };
/** The summary states that very amount, so the words-against-terms review has nothing to say. */
const HUGE_SUMMARY = `Exchange the Stormline Jacket (M) on order ord_7Hk2 for the Stormline Insulated Jacket (M), for $${HUGE} more, charged to the card used for the order.`;

function card(view: ReturnType<typeof jacketView>) {
  const out = renderApprovalCard(document, view, t);
  document.body.replaceChildren(out.card);
  return { ...out, $: (s: string) => out.card.querySelector<HTMLElement>(s) };
}

describe('finding 5: an amount Intl cannot format', () => {
  it('finding 5: 101 decimals are shown exactly as the terms write them, and keyFacts does not throw', () => {
    const facts = keyFacts(HUGE_TERMS, { locale: 'en-US' });
    expect(facts[0]).toEqual({ path: 'price_difference', label: 'Price difference', value: `${HUGE} USD`, kind: 'money', direction: 'charge', unformatted: true });
  });

  it('finding 5: one bad fact never hides the others (each fact is formatted on its own)', () => {
    const { facts } = jacketView({ operation: jacketOperation({ terms: { ...HUGE_TERMS, tiny: Number(`1e-101`) } }) }).review;
    expect(facts.map((f) => f.path)).toEqual(['price_difference', 'tiny', 'order_id', 'item_id', 'replacement_sku']);
    expect(facts.find((f) => f.path === 'tiny')).toMatchObject({ value: `0.${'0'.repeat(100)}1`, kind: 'number', unformatted: true });
    // An amount shown as written is never put on the button: the facts say it, digit by digit.
    expect(label(jacketView({ operation: jacketOperation({ terms: HUGE_TERMS }) }), true)).toBe('Approve anyway');
  });

  it('finding 5: a danger finding names the amount shown as written', () => {
    const findings = factFindings(HUGE_TERMS);
    expect(findings).toEqual([
      expect.objectContaining({ severity: 'danger', code: 'fact-unformatted', path: 'price_difference', message: expect.stringContaining(`${HUGE} USD`) }),
    ]);
    expect(factFindings(TERMS)).toEqual([]);
  });

  it('finding 5: the window shows the amount and the danger, never "no terms", with the amount in the summary', () => {
    const { $, risk } = card(jacketView({ operation: jacketOperation({ terms: HUGE_TERMS, summary: HUGE_SUMMARY }) }));
    expect(risk.danger).toBe(true);
    expect(textOf($('[data-testid="money"]'))).toBe(`${HUGE} USD`);
    expect(textOf($('[data-testid="facts"]'))).not.toContain(t('factsNoTerms'));
    expect(textOf($('[data-testid="findings"]'))).toContain(`${HUGE} USD`);
    expect($('[data-testid="risk"]')).not.toBeNull();
  });

  it('finding 5: the changed banner names 70 → 700 with that amount, compared as exact decimals', () => {
    const previous = jacketOperation();
    const next = jacketOperation({ revision: 'rev2', terms: HUGE_TERMS, summary: HUGE_SUMMARY });
    const { $ } = card(jacketView({ operation: next, previous }));
    expect(textOf($('[data-testid="changed"] .changes'))).toBe(`Price difference $70.00 → ${HUGE} USD`);
    // Equal amounts written differently are no change: 70.00 and 70 followed by 101 zeros.
    const same = jacketOperation({ revision: 'rev3', terms: { ...TERMS, price_difference: { amount: `70.${'0'.repeat(101)}`, currency: 'USD' } } });
    expect(card(jacketView({ operation: same, previous })).$('[data-testid="changed"] .changes')).toBeNull();
  });
});
