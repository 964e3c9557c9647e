// @vitest-environment jsdom
/**
 * Finding 7 of the adversarial review: the "changed" banner (a new revision of an operation
 * already shown, spec section 3 "New terms") cut values at 60 characters ("A… → A…" for a changed
 * payout account), and missed changes past the 200th fact, deeper than 16 levels, or in a 4th
 * decimal (0.0004 was shown as "0"). Section 5: a new revision needs a new approval, so the
 * person is shown what changed, all of it.
 */
import { describe, expect, it } from 'vitest';
import { renderApprovalCard } from '../../src/extension/ui/approval-card';
import { changedFacts } from '../../src/extension/ui/facts';
import { englishTranslate } from '../extension/ui/locale-table';
import { textOf } from '../extension/ui/fake-browser';
import { jacketOperation, jacketView, TERMS } from '../extension/ui/jacket-view';

const t = englishTranslate();

/** The window's card for `next`, a new revision of `previous` (same operation). */
function banner(previousTerms: Record<string, unknown>, nextTerms: Record<string, unknown>) {
  const previous = jacketOperation({ terms: previousTerms });
  const operation = jacketOperation({ revision: 'rev2', terms: nextTerms });
  const out = renderApprovalCard(document, jacketView({ operation, previous }), t);
  document.body.replaceChildren(out.card);
  const root = out.card.querySelector<HTMLElement>('[data-testid="changed"]')!;
  return { root, card: out.card, items: Array.from(root.querySelectorAll('li'), (li) => textOf(li)) };
}

/** Two IBAN-like payout accounts of 70 characters that share their first 60. */
const SHARED = `DE89 3704 0044 0532 0130 00 ${'X'.repeat(32)}`;
const OLD_ACCOUNT = `${SHARED}OLD-ACCOUNT`;
const NEW_ACCOUNT = `${SHARED}ATTACKER-01`;

describe('finding 7: the changed banner names every change, whole', () => {
  it('finding 7: a changed payout account longer than 60 characters is shown whole, old and new', () => {
    const { root, card, items } = banner({ ...TERMS, payout_account: OLD_ACCOUNT }, { ...TERMS, payout_account: NEW_ACCOUNT });
    expect(items).toEqual([`Payout account ${OLD_ACCOUNT} → ${NEW_ACCOUNT}`]);
    expect(textOf(root)).not.toContain('\u2026');
    // And so does the list of term changes under the summary's word diff.
    expect(textOf(card.querySelector('[data-testid="diff"] ul'))).toBe(`payout_account changed from "${OLD_ACCOUNT}" to "${NEW_ACCOUNT}".`);
  });

  it('finding 7: a label longer than 40 characters is shown whole', () => {
    const key = 'payout_destination_account_of_the_merchant_of_record';
    const { items } = banner({ ...TERMS, [key]: 'acct_1' }, { ...TERMS, [key]: 'acct_2' });
    expect(items).toEqual(['Payout destination account of the merchant of record acct_1 → acct_2']);
  });

  it('finding 7: a change past the 200th fact is named', () => {
    const many = Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`ref_${i}`, `id_${i}`]));
    const { items } = banner(many, { ...many, ref_240: 'id_changed' });
    expect(items).toEqual(['Ref 240 id_240 → id_changed']);
  });

  it('finding 7: a change deeper than 16 levels is named', () => {
    const nest = (depth: number, leaf: string): unknown => (depth === 0 ? leaf : { a: nest(depth - 1, leaf) });
    const { items } = banner({ ...TERMS, deep: nest(20, 'acct_old') }, { ...TERMS, deep: nest(20, 'acct_new') });
    expect(items).toEqual([`Deep${' A'.repeat(20)} acct_old → acct_new`]);
  });

  it('finding 7: a change in the 4th decimal (0.0003 → 0.0004) is named, with every digit', () => {
    const { items } = banner({ ...TERMS, rate: 0.0003 }, { ...TERMS, rate: 0.0004 });
    expect(items).toEqual(['Rate 0.0003 → 0.0004']);
    const fee = (amount: string) => ({ ...TERMS, fee: { amount, currency: 'USD' } });
    expect(banner(fee('1.0003'), fee('1.0004')).items).toEqual(['Fee $1.0003 → $1.0004']);
  });

  it('finding 7: more changes than the banner lists open in the window itself, every one named', () => {
    const before = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`ref_${i}`, `id_${i}`]));
    const after = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`ref_${i}`, `new_${i}`]));
    const { root, items } = banner(before, after);
    expect(items).toEqual(Array.from({ length: 12 }, (_, i) => `Ref ${i} id_${i} → new_${i}`));
    const more = root.querySelector('details')!;
    expect(more.open).toBe(false);
    expect(textOf(more.querySelector('summary'))).toBe('and 9 more changes');
    expect(more.querySelectorAll('li')).toHaveLength(9);
  });

  it('finding 7: a value that went away or appeared, a null and an emptied list are changes too', () => {
    const previous = jacketOperation({ terms: { ...TERMS, note: 'x', gift: null, items: ['a'] } });
    const changes = changedFacts(jacketView({ operation: jacketOperation({ revision: 'rev2', terms: { ...TERMS, gift: 'wrapped', items: [] } }), previous }).review, t);
    expect(changes.map((c) => `${c.label}: ${c.before} → ${c.after}`)).toEqual(['Gift: null → wrapped', 'Items: none → []', 'Note: x → none', 'Items 1: a → none']);
  });
});
