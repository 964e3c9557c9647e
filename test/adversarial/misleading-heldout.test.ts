/**
 * Held-out misleading summaries (finding 9 of the adversarial review) and lower-case currency
 * codes (finding 8): kinds of summary the terms review let through as agreeing with terms that
 * charge. Spec section 5: the Personal Agent points out any difference between the summary and
 * the terms. Each kind has more than one wording here, since the rules are meant to catch the
 * kind, not the sentence; the honest cases beside them are what the same rules must leave alone.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { keyFacts, reviewOperation, reviewTerms } from '../../src/review/index.ts';
import { codes } from '../review/seed-exchange.ts';

const usd = (amount: string, currency = 'USD') => ({ amount, currency });
const SEAT = { booking_id: 'bk_9', seat_upgrade: usd('700.00') };
const ASKED = { booking_id: 'bk_9' };
const dangers = (summary: string, terms: Record<string, unknown> = SEAT) => codes(reviewTerms({ summary, terms, request: ASKED }));

describe('finding 9: a phrase that denies the charge, the amount left to a reference line', () => {
  for (const phrase of ['at no added cost', 'at zero extra cost', 'without extra cost', 'at no expense to you', 'with no further payment', 'with no out-of-pocket cost']) {
    it(`finding 9: "Upgrade to seat 2A ${phrase}." over "Ref: 700.00 USD"`, () => {
      expect(dangers(`Upgrade to seat 2A on booking bk_9 ${phrase}.\n\nRef: 700.00 USD`)).toContain('contradicts-charge');
    });
  }

  it('finding 9: "nothing more to pay" and "you won\'t be out a penny"', () => {
    expect(dangers('Seat 2A on booking bk_9 is yours, with nothing more to pay.\n\nRef 700.00 USD')).toContain('contradicts-charge');
    expect(dangers("Take seat 2A on booking bk_9; you won't be out a penny.\n\nRef 700.00 USD")).toContain('contradicts-charge');
  });

  it('finding 9: the Company says it bears the cost ("we pick up the tab", "at our expense")', () => {
    expect(dangers("Seat 2A on booking bk_9: we'll pick up the tab.\n\nRef 700.00 USD")).toContain('contradicts-charge');
    expect(dangers('Seat 2A on booking bk_9, at our expense.\n\nRef 700.00 USD')).toContain('contradicts-charge');
  });

  it('finding 9: a named fee the terms do not charge may still be "no" fee', () => {
    expect(dangers('Upgrade to seat 2A on booking bk_9 for $700.00. No booking fee.')).toEqual([]);
    expect(dangers('Upgrade to seat 2A on booking bk_9 for $700.00, with no hidden costs.')).toEqual([]);
  });
});

describe('finding 9: a minus sign on a charge', () => {
  for (const written of ['-$700.00', '\u2212700.00 USD', '$-700.00', 'USD -700.00', '\u2013$700.00']) {
    it(`finding 9: a charge of 700.00 USD written as "${written}"`, () => {
      expect(dangers(`Seat 2A on booking bk_9: ${written}`)).toContain('direction-reversed');
    });
  }

  it('finding 9: a refund written with a minus sign is what the terms say', () => {
    const terms = { booking_id: 'bk_9', refund: usd('45.00') };
    expect(dangers('Cancel seat 2A on booking bk_9. Refund: -$45.00 to your card.', terms)).toEqual([]);
  });

  it('finding 9: a range and a date keep their hyphens', () => {
    const terms = { booking_id: 'bk_9', seat_upgrade: usd('700.00'), date: '2026-10-08' };
    expect(dangers('Seat 2A on booking bk_9 on 2026-10-08 for $700.00 (seats go for $500-$700).', terms)).not.toContain('direction-reversed');
  });
});

describe('finding 9: "100% off"', () => {
  for (const phrase of ['100% off', '100 percent off', 'a 100% discount', 'discounted by 100%', 'fully discounted']) {
    it(`finding 9: "${phrase}" on a 700.00 USD charge`, () => {
      expect(dangers(`Upgrade to seat 2A on booking bk_9, ${phrase}.\n\nPrice 700.00 USD`)).toContain('contradicts-charge');
    });
  }

  it('finding 9: the whole charge "off"', () => {
    expect(dangers('Upgrade to seat 2A on booking bk_9: $700.00 off.')).toContain('direction-reversed');
  });

  it('finding 9: "100% off" an extra the terms do not charge, and "100% cotton", are no contradiction', () => {
    expect(dangers('Upgrade to seat 2A on booking bk_9 for $700.00, with 100% off the seat selection.')).toEqual([]);
    const shirt = { order_id: 'ord_3', price: usd('25.00') };
    expect(codes(reviewTerms({ summary: 'Buy the 100% cotton shirt on order ord_3 for $25.00.', terms: shirt, request: { order_id: 'ord_3' } }))).toEqual([]);
  });
});

describe('finding 9: amounts in words', () => {
  it('finding 9: "seven dollars" for a 700.00 USD charge', () => {
    expect(dangers('Upgrade to seat 2A on booking bk_9 for seven dollars.\n\nRef 700.00 USD')).toContain('amount-not-in-terms');
  });

  it('finding 9: "seventy-five euros" and "twelve dollars and fifty cents" are read as amounts', () => {
    expect(dangers('Upgrade to seat 2A on booking bk_9 for seventy-five euros. Ref 700.00 USD')).toContain('currency-not-in-terms');
    expect(dangers('Upgrade to seat 2A on booking bk_9 for twelve dollars and fifty cents. Ref 700.00 USD')).toContain('amount-not-in-terms');
  });

  it('finding 9: "zero dollars due" on a charge', () => {
    expect(dangers('Upgrade to seat 2A on booking bk_9. Zero dollars due today.\n\nRef 700.00 USD')).toContain('contradicts-charge');
  });

  it('finding 9: "$7 hundred" is seven hundred, not seven', () => {
    expect(dangers('Upgrade to seat 2A on booking bk_9 for $7 hundred. Ref 700.00 USD')).toEqual([]);
    expect(dangers('Upgrade to seat 2A on booking bk_9 for $7 thousand. Ref 700.00 USD')).toContain('amount-not-in-terms');
  });

  it('finding 9: the terms amount in words is the terms amount', () => {
    expect(dangers('Upgrade to seat 2A on booking bk_9 for seven hundred dollars ($700.00).')).toEqual([]);
    expect(dangers('Upgrade to seat 2A on booking bk_9 for $700.00, about a hundred dollars less than at the airport.')).toContain('amount-not-in-terms');
  });
});

describe('finding 8: a currency code in lower case is the same ISO 4217 code', () => {
  const LOWER = { booking_id: 'bk_9', seat_upgrade: usd('700.00', 'usd') };

  it('finding 8: an amount in "usd" that the summary leaves out is a danger', () => {
    expect(dangers('Upgrade to seat 2A on booking bk_9.', LOWER)).toContain('amount-not-in-summary');
  });

  it('finding 8: "€700.00" for an amount in "usd" is another currency', () => {
    expect(dangers('Upgrade to seat 2A on booking bk_9 for \u20AC700.00.', LOWER)).toContain('currency-not-in-terms');
  });

  it('finding 8: "$700.00" states an amount in "usd" or "Usd", with nothing to look at', () => {
    for (const currency of ['usd', 'Usd']) {
      const terms = { booking_id: 'bk_9', seat_upgrade: usd('700.00', currency) };
      const review = reviewOperation({ summary: 'Upgrade to seat 2A on booking bk_9 for $700.00.', terms, request: ASKED });
      expect(review.findings, currency).toEqual([]);
      expect(review.checked.map((c) => c.code)).toContain('amounts-stated');
    }
  });

  it('finding 8: a flat amount beside `currency: "eur"` is money in EUR, so "$700.00" is another currency', () => {
    const terms = { booking_id: 'bk_9', price: '700.00', currency: 'eur' };
    expect(dangers('Upgrade to seat 2A on booking bk_9 for $700.00.', terms)).toContain('currency-not-in-terms');
    expect(dangers('Upgrade to seat 2A on booking bk_9 for \u20AC700.00.', terms)).toEqual([]);
  });

  it('finding 8: the key facts (and so Approve) name the amount in "usd"', () => {
    expect(keyFacts(LOWER, { locale: 'en-US' })).toContainEqual(expect.objectContaining({ kind: 'money', value: '$700.00' }));
  });
});

interface Case {
  id: string;
  summary: string;
  terms: Record<string, unknown>;
  request?: Record<string, unknown>;
}

/** A holdout file: its misleading cases that get any danger, and its honest ones that do. */
function measure(file: string): { misleading: Case[]; honest: Case[]; missed: string[]; alarms: string[] } {
  const set = JSON.parse(readFileSync(new URL(`../fixtures/misleading-summaries/${file}`, import.meta.url), 'utf8')) as { misleading: Case[]; honest: Case[] };
  const alarmed = (c: Case) => reviewOperation({ summary: c.summary, terms: c.terms, request: c.request }).findings.some((f) => f.severity === 'danger');
  return { ...set, missed: set.misleading.filter((c) => !alarmed(c)).map((c) => c.id), alarms: set.honest.filter(alarmed).map((c) => c.id) };
}

/** At least 30 misleading and 20 honest summaries, with unique ids. */
function expectSize(held: { misleading: Case[]; honest: Case[] }): void {
  expect(held.misleading.length).toBeGreaterThanOrEqual(30);
  expect(held.honest.length).toBeGreaterThanOrEqual(20);
  const ids = [...held.misleading, ...held.honest].map((c) => c.id);
  expect(new Set(ids).size).toBe(ids.length);
}

describe('finding 9: the second holdout, written after these rules', () => {
  const held = measure('holdout-2.json');

  it('has at least 30 misleading and 20 honest summaries, with unique ids', () => expectSize(held));

  // Its first run, before any rule saw it, caught 21 of 35 and alarmed on 3 of 25; the rules were
  // then widened on it (test/fixtures/misleading-summaries/README.md), so these are tuned numbers.
  it('catches 33 of 35 misleading summaries and alarms on none of 25 honest ones, after the rules were widened on it', () => {
    expect(held.missed).toEqual(['airline-bag-fare-takes-care', 'home-cover-first-month-on-insurer']);
    expect(held.misleading.length).toBe(35);
    expect(held.alarms).toEqual([]);
  });
});

describe('finding 9: the third holdout, written after the widened rules and measured as it fell', () => {
  const held = measure('holdout-3.json');

  it('has at least 30 misleading and 20 honest summaries, with unique ids', () => expectSize(held));

  // Never used to tune the rules: a change to these numbers is a change to the review, to be
  // reported (README.md there), not a number to chase.
  it('catches 20 of 33 misleading summaries and alarms on 4 of 24 honest ones', () => {
    expect(held.misleading.length - held.missed.length).toBe(20);
    expect(held.misleading.length).toBe(33);
    expect(held.alarms).toEqual(['cinema-two-seats-each', 'mortgage-rate-lock-credited-at-closing', 'spa-massage-robe-free', 'marketplace-payout-after-fee']);
  });
});
