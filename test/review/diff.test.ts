/**
 * diffRevisions: what changed between two revisions of one operation (spec section 3, "New
 * terms"; section 5: each revision needs its own approval).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wordTokens } from '../../src/review/diff.ts';
import { diffExpiry, diffRevisions, diffTerms, wordDiff, type WordPart } from '../../src/review/index.ts';

const FIRST = {
  operation_id: 'exc_5Rt2',
  revision: '1791487200-k3Jd9Qx2mW8v',
  summary: 'Exchange the Stormline Jacket (M) on order ord_7Hk2 for the Stormline Insulated Jacket (M), for $70.00 more, charged to the card used for the order.',
  terms: {
    order_id: 'ord_7Hk2',
    item_id: 'itm_4Qa',
    replacement_sku: 'stormline-insulated-m',
    price_difference: { amount: '70.00', currency: 'USD' },
  },
  expires_at: '2026-10-08T12:20:00-07:00',
};

/** The user asked for a large instead (section 3's own example of new terms). */
const SECOND = {
  ...FIRST,
  revision: '1791487800-Zp0Lq7Rt1aYb',
  summary: 'Exchange the Stormline Jacket (M) on order ord_7Hk2 for the Stormline Insulated Jacket (L), for $75.00 more, charged to the card used for the order.',
  terms: { ...FIRST.terms, replacement_sku: 'stormline-insulated-l', price_difference: { amount: '75.00', currency: 'USD' } },
  expires_at: '2026-10-08T12:30:00-07:00',
};

const join = (parts: WordPart[], keep: WordPart['kind']) => parts.filter((p) => p.kind === 'same' || p.kind === keep).map((p) => p.text).join('');

describe('diffRevisions', () => {
  it('shows the changed words, the changed terms and the later deadline', () => {
    const diff = diffRevisions(FIRST, SECOND);
    expect(diff).toMatchObject({ operationId: 'exc_5Rt2', fromRevision: FIRST.revision, toRevision: SECOND.revision, summaryChanged: true, summaryCoarse: false, findings: [] });
    expect(diff.summary.filter((p) => p.kind !== 'same')).toEqual([
      { kind: 'removed', text: 'M' },
      { kind: 'added', text: 'L' },
      { kind: 'removed', text: '$70.00' },
      { kind: 'added', text: '$75.00' },
    ]);
    expect(diff.terms).toEqual([
      {
        kind: 'changed',
        path: 'replacement_sku',
        before: 'stormline-insulated-m',
        after: 'stormline-insulated-l',
        message: 'replacement_sku changed from "stormline-insulated-m" to "stormline-insulated-l".',
        text: { key: 'diff_changed', substitutions: ['replacement_sku', '"stormline-insulated-m"', '"stormline-insulated-l"'] },
      },
      {
        kind: 'changed',
        path: 'price_difference.amount',
        before: '70.00',
        after: '75.00',
        message: 'price_difference.amount changed from "70.00" to "75.00".',
        text: { key: 'diff_changed', substitutions: ['price_difference.amount', '"70.00"', '"75.00"'] },
      },
    ]);
    expect(diff.expiry).toEqual({
      before: FIRST.expires_at,
      after: SECOND.expires_at,
      deltaMs: 600_000,
      message: 'The approval deadline moved 10 minutes later, from "2026-10-08T12:20:00-07:00" to "2026-10-08T12:30:00-07:00".',
      text: { key: 'diff_deadlineLaterMinutes', substitutions: ['10', '"2026-10-08T12:20:00-07:00"', '"2026-10-08T12:30:00-07:00"'], count: 10 },
    });
  });

  it('shows a changed amount as one removed and one added word, not digits inside "$7075.00"', () => {
    const diff = diffRevisions({ ...FIRST, summary: 'You pay **$70.00** today.' }, { ...FIRST, revision: 'r2', summary: 'You pay **$75.00** today.' });
    expect(diff.summary).toEqual([
      { kind: 'same', text: 'You pay ' },
      { kind: 'removed', text: '$70.00' },
      { kind: 'added', text: '$75.00' },
      { kind: 'same', text: ' today.' },
    ]);
  });

  it('compares the words as rendered: Markdown markers and escapes are not words', () => {
    const diff = diffRevisions({ ...FIRST, summary: '- Fee: *$5.00*\n- Order ord\\_7Hk2' }, { ...FIRST, revision: 'r2', summary: '- Fee: **$5.00**\n- Order ord_7Hk2' });
    expect(diff.summaryChanged).toBe(true);
    expect(diff.summary.every((p) => p.kind === 'same')).toBe(true);
    expect(diff.summary.map((p) => p.text).join('')).not.toMatch(/[*\\]/);
    const moved = diffRevisions({ ...FIRST, summary: '**Total: $70.00**' }, { ...FIRST, revision: 'r2', summary: '**Total: -$70.00**' });
    expect(moved.summary.filter((p) => p.kind !== 'same')).toEqual([
      { kind: 'removed', text: '$70.00' },
      { kind: 'added', text: '-$70.00' },
    ]);
  });

  it('flags different terms under the same revision as a danger', () => {
    const diff = diffRevisions(FIRST, { ...SECOND, revision: FIRST.revision });
    expect(diff.findings).toEqual([expect.objectContaining({ severity: 'danger', code: 'revision-reused' })]);
  });

  it('notes a new revision that changes nothing, and nothing for the same revision twice', () => {
    expect(diffRevisions(FIRST, { ...FIRST, revision: 'r2' }).findings).toEqual([expect.objectContaining({ severity: 'info', code: 'no-change' })]);
    const same = diffRevisions(FIRST, FIRST);
    expect(same).toMatchObject({ summaryChanged: false, terms: [], expiry: null, findings: [] });
    expect(same.summary).toEqual([{ kind: 'same', text: FIRST.summary }]);
  });

  it('makes an inserted hidden character a visible change', () => {
    const diff = diffRevisions(FIRST, { ...FIRST, revision: 'r2', summary: FIRST.summary.replace('$70', '$\u202E70') });
    expect(diff.summary.filter((p) => p.kind !== 'same')).toEqual([
      { kind: 'removed', text: '$70.00' },
      { kind: 'added', text: '$\u27E8U+202E\u27E970.00' },
    ]);
  });

  it('refuses two different operations, and things that are not operations', () => {
    expect(() => diffRevisions(FIRST, { ...SECOND, operation_id: 'exc_other' })).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID' }));
    expect(() => diffRevisions(FIRST, null as never)).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID' }));
  });
});

describe('diffTerms', () => {
  it('reports added, removed and changed fields with paths, at any depth', () => {
    const changes = diffTerms(
      { a: 1, items: [{ sku: 'x' }, { sku: 'y' }], gone: true, shape: 'text' },
      { a: 2, items: [{ sku: 'x', qty: 2 }], added: null, shape: { now: 'object' } },
    );
    expect(changes.map((c) => [c.kind, c.path])).toEqual([
      ['changed', 'a'],
      ['added', 'items[0].qty'],
      ['removed', 'items[1]'],
      ['removed', 'gone'],
      ['changed', 'shape'],
      ['added', 'added'],
    ]);
  });

  it('reports terms appearing or going away as a whole', () => {
    expect(diffTerms(undefined, { a: 1 })).toEqual([expect.objectContaining({ kind: 'added', path: '' })]);
    expect(diffTerms({ a: 1 }, undefined)).toEqual([expect.objectContaining({ kind: 'removed', path: '' })]);
    expect(diffTerms(undefined, undefined)).toEqual([]);
  });

  it('shows hidden characters of keys and values in paths and messages', () => {
    const [change] = diffTerms({ 'k\u202E': 'a' }, { 'k\u202E': 'a\u200B' });
    expect(change!.path).toBe('["k\u27E8U+202E\u27E9"]');
    expect(change!.message).toBe('["k\u27E8U+202E\u27E9"] changed from "a" to "a\u27E8U+200B\u27E9".');
  });
});

describe('diffExpiry', () => {
  it('says earlier, later, the same moment, or unreadable', () => {
    expect(diffExpiry('2026-10-08T12:20:00Z', '2026-10-08T12:20:00Z')).toBeNull();
    expect(diffExpiry('2026-10-08T12:20:00Z', '2026-10-07T12:20:00Z')?.message).toMatch(/^The approval deadline moved 1 day earlier/);
    expect(diffExpiry('2026-10-08T12:20:00Z', '2026-10-08T05:20:00-07:00')).toMatchObject({ deltaMs: 0, message: expect.stringContaining('same moment') });
    // A leap second is read with the one clock (23:59:59.999 UTC), so it compares; what names no instant does not.
    expect(diffExpiry('2026-12-31T23:59:60Z', '2027-01-01T00:00:00Z')).toMatchObject({ deltaMs: 1 });
    expect(diffExpiry('2026-12-31T23:59:60Z', 'soon')).toMatchObject({ deltaMs: null });
  });
});

describe('wordTokens', () => {
  it('keeps an amount with its currency sign, and dates, times and IDs whole', () => {
    expect(wordTokens('Pay $70.00 (or -\u20AC5, 70,00 \u20AC, 10%) by 2026-10-08 12:20 for ord_7Hk2.')).toEqual([
      'Pay', ' ', '$70.00', ' ', '(', 'or', ' ', '-\u20AC5', ',', ' ', '70,00', ' ', '\u20AC', ',', ' ', '10%', ')', ' ',
      'by', ' ', '2026-10-08', ' ', '12:20', ' ', 'for', ' ', 'ord_7Hk2', '.',
    ]);
  });

  it('keeps a hidden-character token as one unit', () => {
    expect(wordTokens('$\u27E8U+202E\u27E970.00')).toEqual(['$', '\u27E8U+202E\u27E9', '70.00']);
  });

  it('cuts text without spaces into words (Japanese), and falls back to white space without Intl.Segmenter', () => {
    expect(wordTokens('\u5408\u8A08\u306F7,000\u5186\u3067\u3059').length).toBeGreaterThan(2);
    expect(wordTokens('Pay  $70.00\nnow', null)).toEqual(['Pay', '  ', '$70.00', '\n', 'now']);
  });
});

describe('wordDiff', () => {
  it('falls back to one removal and one addition past its budget', () => {
    const diff = wordDiff('keep a b c keep', 'keep x y z keep', 4);
    expect(diff.coarse).toBe(true);
    expect(diff.parts).toEqual([
      { kind: 'same', text: 'keep ' },
      { kind: 'removed', text: 'a b c' },
      { kind: 'added', text: 'x y z' },
      { kind: 'same', text: ' keep' },
    ]);
  });

  it('gives back both texts, exactly, for any input (1,000 runs each, exact and coarse)', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 80 }),
      fc.array(fc.constantFrom('the', 'jacket', '$70.00', ' ', '  ', '\n', ',', '.', '(M)', '\u202E', '\u00E9'), { maxLength: 30 }).map((w) => w.join('')),
    );
    for (const budget of [Infinity, 16]) {
      fc.assert(
        fc.property(text, text, (a, b) => {
          const { parts } = wordDiff(a, b, budget);
          expect(join(parts, 'removed')).toBe(a);
          expect(join(parts, 'added')).toBe(b);
          for (let i = 1; i < parts.length; i += 1) expect(parts[i]!.kind).not.toBe(parts[i - 1]!.kind);
          expect(parts.every((p) => p.text !== '')).toBe(true);
        }),
        { numRuns: 1_000 },
      );
    }
  });
});
