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

describe('wordTokens, word boundaries', () => {
  it.each([
    ['', []],
    ['-5', ['-5']],
    ['-x', ['-', 'x']],
    ['(-x', ['(', '-', 'x']],
    ['a+5', ['a', '+', '5']],
    ['a\u22125', ['a', '\u2212', '5']],
    ['($5)', ['(', '$5', ')']],
    ['(%', ['(', '%']],
    ['a/(', ['a', '/', '(']],
    ['end.)', ['end', '.', ')']],
    ['a-b', ['a-b']],
    ['well-known', ['well-known']],
    ['x - y', ['x', ' ', '-', ' ', 'y']],
  ])('cuts %j into %j', (text, tokens) => {
    expect(wordTokens(text)).toEqual(tokens);
  });

  it('gives nothing for empty text, with or without Intl.Segmenter', () => {
    expect(wordTokens('', null)).toEqual([]);
    expect(wordTokens('a \u27E8U+202E\u27E9', null)).toEqual(['a', ' ', '\u27E8U+202E\u27E9']);
    expect(wordTokens('\u27E8U+202E\u27E9', null)).toEqual(['\u27E8U+202E\u27E9']);
  });

  it('never joins pieces across white space or hidden-character tokens without Intl.Segmenter', () => {
    expect(wordTokens('- 5 $ 5 a - b', null)).toEqual(['-', ' ', '5', ' ', '$', ' ', '5', ' ', 'a', ' ', '-', ' ', 'b']);
    expect(wordTokens('$\u27E8U+202E\u27E970.00 a\u27E8U+200B\u27E9-b', null)).toEqual(['$', '\u27E8U+202E\u27E9', '70.00', ' ', 'a', '\u27E8U+200B\u27E9', '-b']);
  });

  it('falls back to white space when the engine has no Intl.Segmenter', () => {
    const descriptor = Object.getOwnPropertyDescriptor(Intl, 'Segmenter')!;
    Object.defineProperty(Intl, 'Segmenter', { ...descriptor, value: undefined });
    try {
      expect(wordTokens('Pay (a-b) now')).toEqual(['Pay', ' ', '(a-b)', ' ', 'now']);
      expect(wordDiff('Pay (a-b) now', 'Pay (a-c) now')).toEqual({
        parts: [
          { kind: 'same', text: 'Pay ' },
          { kind: 'removed', text: '(a-b)' },
          { kind: 'added', text: '(a-c)' },
          { kind: 'same', text: ' now' },
        ],
        coarse: false,
      });
    } finally {
      Object.defineProperty(Intl, 'Segmenter', descriptor);
    }
    expect(wordTokens('Pay (a-b) now')).toEqual(['Pay', ' ', '(', 'a-b', ')', ' ', 'now']);
  });
});

describe('wordDiff, exact tables', () => {
  it('shows words added or removed at the end after a shared start', () => {
    expect(wordDiff('x', 'x x')).toEqual({ parts: [{ kind: 'same', text: 'x' }, { kind: 'added', text: ' x' }], coarse: false });
    expect(wordDiff('x x', 'x')).toEqual({ parts: [{ kind: 'same', text: 'x' }, { kind: 'removed', text: ' x' }], coarse: false });
    expect(wordDiff('x', 'x')).toEqual({ parts: [{ kind: 'same', text: 'x' }], coarse: false });
    expect(wordDiff('', '')).toEqual({ parts: [], coarse: false });
    expect(wordDiff('', 'a b')).toEqual({ parts: [{ kind: 'added', text: 'a b' }], coarse: false });
  });

  it('is coarse only when the table would exceed the budget', () => {
    // One word against one word: a 2 × 2 table of 4 cells.
    const exact = { parts: [{ kind: 'removed', text: 'a' }, { kind: 'added', text: 'b' }] };
    expect(wordDiff('a', 'b', 4)).toEqual({ ...exact, coarse: false });
    expect(wordDiff('a', 'b', 3)).toEqual({ ...exact, coarse: true });
    // Two removed tokens (" " and "a") against none: 3 × 1 cells.
    expect(wordDiff('k a', 'k', 3)).toEqual({ parts: [{ kind: 'same', text: 'k' }, { kind: 'removed', text: ' a' }], coarse: false });
    expect(wordDiff('k a', 'k', 2)).toEqual({ parts: [{ kind: 'same', text: 'k' }, { kind: 'removed', text: ' a' }], coarse: true });
  });

  it.each([
    [
      'the quick brown fox jumps over the dog',
      'a quick red fox leaps over the lazy dog today',
      [
        ['removed', 'the'], ['added', 'a'], ['same', ' quick '], ['removed', 'brown'], ['added', 'red'], ['same', ' fox '],
        ['removed', 'jumps'], ['added', 'leaps'], ['same', ' over the '], ['added', 'lazy '], ['same', 'dog'], ['added', ' today'],
      ],
    ],
    ['b c d', 'a b c e', [['added', 'a '], ['same', 'b c '], ['removed', 'd'], ['added', 'e']]],
    ['p x q x s', 'x', [['removed', 'p '], ['same', 'x'], ['removed', ' q x s']]],
    ['one two three four', 'zero two four five', [['removed', 'one'], ['added', 'zero'], ['same', ' two '], ['removed', 'three '], ['same', 'four'], ['added', ' five']]],
    ['a b a b c', 'b a b a d', [['removed', 'a '], ['same', 'b a b '], ['removed', 'c'], ['added', 'a d']]],
    ['x y z w', 'y w x z', [['removed', 'x '], ['same', 'y '], ['removed', 'z '], ['same', 'w'], ['added', ' x z']]],
  ])('keeps the longest run of shared words between %j and %j', (before, after, parts) => {
    expect(wordDiff(before, after)).toEqual({ parts: parts.map(([kind, text]) => ({ kind, text })), coarse: false });
  });
});

describe('diffTerms, whole changes', () => {
  it('reports an item added to a list with its path, value and sentence', () => {
    expect(diffTerms({ a: [1] }, { a: [1, 2] })).toEqual([
      { kind: 'added', path: 'a[1]', after: 2, message: 'a[1] was added: 2.', text: { key: 'diff_added', substitutions: ['a[1]', '2'] } },
    ]);
  });

  it('reports removed fields with their values in the sentence', () => {
    expect(diffTerms({ a: 1, b: { c: 2 }, d: [3] }, { d: [] })).toEqual([
      { kind: 'removed', path: 'a', before: 1, message: 'a (1) was removed.', text: { key: 'diff_removed', substitutions: ['a', '1'] } },
      { kind: 'removed', path: 'b', before: { c: 2 }, message: 'b ({"c":2}) was removed.', text: { key: 'diff_removed', substitutions: ['b', '{"c":2}'] } },
      { kind: 'removed', path: 'd[0]', before: 3, message: 'd[0] (3) was removed.', text: { key: 'diff_removed', substitutions: ['d[0]', '3'] } },
    ]);
  });

  it('reports a list that became something else as one change', () => {
    expect(diffTerms({ a: [1] }, { a: 5 })).toEqual([
      { kind: 'changed', path: 'a', before: [1], after: 5, message: 'a changed from [1] to 5.', text: { key: 'diff_changed', substitutions: ['a', '[1]', '5'] } },
    ]);
    expect(diffTerms({ a: 'x' }, { a: ['x'] })).toEqual([
      { kind: 'changed', path: 'a', before: 'x', after: ['x'], message: 'a changed from "x" to ["x"].', text: { key: 'diff_changed', substitutions: ['a', '"x"', '["x"]'] } },
    ]);
  });

  it('says "the terms" when the values given are not objects at all', () => {
    expect(diffTerms('a' as never, 'b' as never)).toEqual([
      { kind: 'changed', path: '', before: 'a', after: 'b', message: 'The terms changed from "a" to "b".', text: { key: 'diff_termsChanged', substitutions: ['"a"', '"b"'] } },
    ]);
  });
});

describe('diffExpiry, sentences', () => {
  it('names both values when the deadline cannot be read or is the same moment', () => {
    expect(diffExpiry('2026-10-08T12:20:00Z', 'soon')).toEqual({
      before: '2026-10-08T12:20:00Z',
      after: 'soon',
      deltaMs: null,
      message: 'The approval deadline changed from "2026-10-08T12:20:00Z" to "soon".',
      text: { key: 'diff_deadlineChanged', substitutions: ['"2026-10-08T12:20:00Z"', '"soon"'] },
    });
    expect(diffExpiry('2026-10-08T12:20:00Z', '2026-10-08T05:20:00-07:00')).toEqual({
      before: '2026-10-08T12:20:00Z',
      after: '2026-10-08T05:20:00-07:00',
      deltaMs: 0,
      message: 'The approval deadline is written differently ("2026-10-08T12:20:00Z", now "2026-10-08T05:20:00-07:00") but is the same moment.',
      text: { key: 'diff_deadlineSameMoment', substitutions: ['"2026-10-08T12:20:00Z"', '"2026-10-08T05:20:00-07:00"'] },
    });
  });
});

describe('diffRevisions, findings and checks', () => {
  const BASE = { operation_id: 'op_1', revision: 'r1', summary: 'You pay $5.00.', expires_at: '2026-10-08T12:20:00Z' };
  const REUSED = {
    severity: 'danger',
    code: 'revision-reused',
    path: '',
    message: 'The Company sent different terms under the same revision, which the protocol forbids; an approval could cover terms you did not see.',
    text: { key: 'diff_revisionReused', substitutions: [] },
  };

  it.each([
    ['the summary alone', { summary: 'You pay $6.00.' }],
    ['the terms alone', { terms: { fee: '1.00' } }],
    ['the deadline alone', { expires_at: '2026-10-09T12:20:00Z' }],
  ])('flags a change of %s under the same revision as a danger', (_, change) => {
    expect(diffRevisions(BASE, { ...BASE, ...change }).findings).toEqual([REUSED]);
  });

  it('notes a new revision that changes nothing, with its sentence', () => {
    expect(diffRevisions(BASE, { ...BASE, revision: 'r2' }).findings).toEqual([
      { severity: 'info', code: 'no-change', path: '', message: 'The new revision changes nothing in the summary, the terms or the deadline.', text: { key: 'diff_noChange', substitutions: [] } },
    ]);
  });

  it('accepts operations without terms', () => {
    expect(diffRevisions(BASE, { ...BASE, revision: 'r2', summary: 'You pay $6.00.' })).toEqual({
      operationId: 'op_1',
      fromRevision: 'r1',
      toRevision: 'r2',
      summaryChanged: true,
      summary: [
        { kind: 'same', text: 'You pay ' },
        { kind: 'removed', text: '$5.00' },
        { kind: 'added', text: '$6.00' },
        { kind: 'same', text: '.' },
      ],
      summaryCoarse: false,
      terms: [],
      expiry: null,
      findings: [],
    });
  });

  it('compares the whole summary, also past the part shown by default', () => {
    const long = 'word '.repeat(2_100);
    const diff = diffRevisions({ ...BASE, summary: `${long}You pay $5.00.` }, { ...BASE, revision: 'r2', summary: `${long}You pay $6.00.` });
    expect(diff.summary.filter((p) => p.kind !== 'same')).toEqual([
      { kind: 'removed', text: '$5.00' },
      { kind: 'added', text: '$6.00' },
    ]);
  });

  it.each([
    ['previous', null, BASE, 'previous: expected an operation (spec section 3), got null'],
    ['next', BASE, 5, 'next: expected an operation (spec section 3), got a number'],
    ['operation_id', { ...BASE, operation_id: 1 }, BASE, 'previous.operation_id: expected a string, got a number'],
    ['revision', BASE, { ...BASE, revision: undefined }, 'next.revision: expected a string, got nothing'],
    ['summary', { ...BASE, summary: null }, BASE, 'previous.summary: expected a string, got null'],
    ['expires_at', BASE, { ...BASE, expires_at: 7 }, 'next.expires_at: expected a string, got a number'],
    ['terms (text)', BASE, { ...BASE, terms: 'x' }, 'next.terms: expected an object or nothing, got a string of 1 character'],
    ['terms (list)', { ...BASE, terms: [1] }, BASE, 'previous.terms: expected an object or nothing, got an array of 1 item'],
    ['terms (null)', BASE, { ...BASE, terms: null }, 'next.terms: expected an object or nothing, got null'],
    ['operation_id (another)', BASE, { ...BASE, operation_id: 'op_2' }, 'next.operation_id: expected the operation_id of previous (two revisions of one operation), got another'],
  ])('refuses a bad %s and says which', (_, previous, next, message) => {
    expect(() => diffRevisions(previous as never, next as never)).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID', message }));
  });
});
