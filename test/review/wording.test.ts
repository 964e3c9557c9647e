/**
 * reviewWording: what the summary says about money, read against the money in the terms.
 * Each test feeds one summary and one set of terms and compares every finding (severity,
 * code, path, English message), so a change in which amounts are allowed, which words count,
 * how far words and amounts may be apart, or what the messages quote shows up as a failure.
 */
import { describe, expect, it } from 'vitest';
import { termsMoney } from '../../src/review/money.ts';
import { reviewWording } from '../../src/review/wording.ts';

type Finding = [severity: string, code: string, path: string, message: string];

function review(summary: string, terms: Record<string, unknown>): Finding[] {
  return reviewWording(summary, termsMoney(terms)).map((f) => [f.severity, f.code, f.path, f.message]);
}

const usd = (amount: string) => ({ amount, currency: 'USD' });
const PRICE = { price: usd('70.00') };
const LONG = 'Please note that the new jacket ships from our warehouse in Ohio and it is entirely free of any handling surprises whatsoever at all.';

describe('reviewWording', () => {
  it('gives each finding its severity, code, path and message in English and as a message key', () => {
    expect(reviewWording('You pay nothing.', termsMoney(PRICE))).toEqual([
      {
        severity: 'danger',
        code: 'contradicts-charge',
        path: 'price',
        message: 'The summary says "pay nothing" ("You pay nothing."), but the terms charge 70.00 USD (price).',
        text: { key: 'review_contradictsCharge', substitutions: ['"pay nothing"', '"You pay nothing."', '70.00 USD (price)'] },
      },
    ]);
  });

  it('finds nothing in a summary that states the terms amount plainly', () => {
    expect(review('The new size costs $70.00 more.', PRICE)).toEqual([]);
  });
});

describe('amounts the summary presents', () => {
  it('reads "$0.00" and "Free" as well as the amounts the terms hold', () => {
    expect(review('Free exchange. You pay $0.00. Ref 700.00 USD', { price_difference: usd('700.00') })).toEqual([
      ['danger', 'amount-not-in-terms', '', 'The summary states "$0.00", but the terms hold no such amount (they set price_difference 700.00 USD); you may be misled about what you pay.'],
      ['danger', 'contradicts-charge', 'price_difference', 'The summary says "Free" ("Free exchange."), but the terms charge 700.00 USD (price_difference).'],
      ['danger', 'contradicts-charge', 'price_difference', 'The summary says "$0.00" ("You pay $0.00."), but the terms charge 700.00 USD (price_difference).'],
    ]);
  });

  it('adds no terms amount finer than a millionth into a sum', () => {
    expect(review('Fee $5.00, total $6.1234567.', { a: usd('1.1234567'), b: usd('5.00') })).toEqual([
      ['danger', 'amount-not-in-terms', '', 'The summary states "$6.1234567", but the terms hold no such amount (they set a 1.1234567 USD, b 5.00 USD); you may be misled about what you pay.'],
    ]);
  });

  it('does not net a waived fee against a charge', () => {
    expect(review('You pay $75.00.', { price: usd('100.00'), waived_fee: usd('25.00') })).toEqual([
      ['danger', 'amount-not-in-terms', '', 'The summary states "$75.00", but the terms hold no such amount (they set price 100.00 USD, waived_fee 25.00 USD); you may be misled about what you pay.'],
    ]);
  });

  it('allows a unit price to the cent and the amount times the count', () => {
    expect(review('Each night is $50.00, for $200.00 in all.', { price: usd('100.00'), nights: 2 })).toEqual([]);
  });

  it('allows no unit price that is not a whole number of cents', () => {
    expect(review('Each night is $33.333333.', { price: usd('100.00'), nights: 3 })).toEqual([
      ['danger', 'amount-not-in-terms', '', 'The summary states "$33.333333", but the terms hold no such amount (they set price 100.00 USD); you may be misled about what you pay.'],
    ]);
  });

  it('allows the sum of the charges', () => {
    expect(review('Total $120.00.', { price: usd('100.00'), fee: usd('20.00') })).toEqual([]);
  });

  it('allows the sum of the refunds', () => {
    expect(review('You get $50.00 back in all.', { price: usd('10.00'), refund_a: usd('30.00'), refund_b: usd('20.00') })).toEqual([]);
  });

  it('allows the charges less the refunds, as a charge when the charges are larger', () => {
    expect(review('You pay $70.00 more.', { price: usd('100.00'), refund: usd('30.00') })).toEqual([]);
  });

  it('allows the charges less the refunds, as money to the person when the refunds are larger', () => {
    expect(review('You get $70.00 back.', { price: usd('30.00'), refund: usd('100.00') })).toEqual([]);
  });

  it('allows no net amount of zero', () => {
    expect(review('You pay $0.00.', { price: usd('30.00'), refund: usd('30.00') })).toEqual([
      ['danger', 'amount-not-in-terms', '', 'The summary states "$0.00", but the terms hold no such amount (they set price 30.00 USD, refund 30.00 USD); you may be misled about what you pay.'],
      ['danger', 'contradicts-charge', 'price', 'The summary says "$0.00" ("You pay $0.00."), but the terms charge 30.00 USD (price).'],
    ]);
  });

  it('matches an amount of the terms in no stated currency to any currency', () => {
    expect(review('Fee $5.00.', { fee: 5 })).toEqual([]);
  });

  it('reads amounts in a currency code of the terms that has no sign of its own', () => {
    expect(review('Fee 80 GEL.', { price: { amount: '70.00', currency: 'GEL' } })).toEqual([
      ['danger', 'amount-not-in-terms', '', 'The summary states "80 GEL", but the terms hold no such amount (they set price 70.00 GEL); you may be misled about what you pay.'],
    ]);
  });

  it('says the terms hold no amount at all, as a warning, when they hold none', () => {
    expect(review('Pay $5.00 now.', { order_id: 'x' })).toEqual([
      ['warning', 'amount-not-in-terms', '', 'The summary states "$5.00", but the terms hold no amount at all.'],
    ]);
  });

  it('reports an amount in a currency the terms do not use as a danger', () => {
    expect(review('Cost \u20AC70.00.', PRICE)).toEqual([
      ['danger', 'currency-not-in-terms', '', 'The summary states "\u20AC70.00", in a currency that no amount of the terms is in (the terms set price 70.00 USD).'],
    ]);
  });

  it('lowers an estimate ("About \u20AC645") to a warning', () => {
    expect(review('About \u20AC645 for the room, see the terms.', PRICE)).toEqual([
      ['warning', 'currency-not-in-terms', '', 'The summary states "\u20AC645", in a currency that no amount of the terms is in (the terms set price 70.00 USD).'],
    ]);
  });

  it('looks only 20 characters back for an estimate word', () => {
    expect(review(`about${' '.repeat(17)}€645.`, PRICE)).toEqual([
      ['danger', 'currency-not-in-terms', '', 'The summary states "\u20AC645", in a currency that no amount of the terms is in (the terms set price 70.00 USD).'],
    ]);
  });

  it('reads an estimate word before an opening parenthesis', () => {
    expect(review('Hotel (ref) about (\u20AC645).', PRICE)).toEqual([
      ['warning', 'currency-not-in-terms', '', 'The summary states "\u20AC645", in a currency that no amount of the terms is in (the terms set price 70.00 USD).'],
    ]);
  });

  it('reports at most five amounts', () => {
    expect(review('Pay $1.00, $2.00, $3.00, $4.00, $5.00, $6.00 and $8.00.', PRICE)).toEqual([
      ['danger', 'amount-not-in-terms', '', 'The summary states "$1.00", but the terms hold no such amount (they set price 70.00 USD); you may be misled about what you pay.'],
      ['danger', 'amount-not-in-terms', '', 'The summary states "$2.00", but the terms hold no such amount (they set price 70.00 USD); you may be misled about what you pay.'],
      ['danger', 'amount-not-in-terms', '', 'The summary states "$3.00", but the terms hold no such amount (they set price 70.00 USD); you may be misled about what you pay.'],
      ['danger', 'amount-not-in-terms', '', 'The summary states "$4.00", but the terms hold no such amount (they set price 70.00 USD); you may be misled about what you pay.'],
      ['danger', 'amount-not-in-terms', '', 'The summary states "$5.00", but the terms hold no such amount (they set price 70.00 USD); you may be misled about what you pay.'],
    ]);
  });
});

describe('words that contradict a charge', () => {
  it('prefers the longer phrase ("pay nothing") to the word inside it', () => {
    expect(review('You pay nothing.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "pay nothing" ("You pay nothing."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('does not turn a phrase around when "not" comes before it', () => {
    expect(review('It is not on us.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "on us" ("It is not on us."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('reads curly apostrophes as straight ones ("don\u2019t pay")', () => {
    expect(review('You don\u2019t pay anything.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "don\'t pay anything" ("You don\'t pay anything."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('lists every charge of the terms when there are several', () => {
    expect(review('Free exchange.', { price: usd('70.00'), fee: usd('5.00') })).toEqual([
      ['danger', 'contradicts-charge', '', 'The summary says "Free" ("Free exchange."), but the terms charge price 70.00 USD, fee 5.00 USD.'],
    ]);
  });

  it('reports "$0.00" and the words in the order they appear', () => {
    expect(review('You pay $0.00. Free exchange. It is gratis.', PRICE)).toEqual([
      ['danger', 'amount-not-in-terms', '', 'The summary states "$0.00", but the terms hold no such amount (they set price 70.00 USD); you may be misled about what you pay.'],
      ['danger', 'contradicts-charge', 'price', 'The summary says "$0.00" ("You pay $0.00."), but the terms charge 70.00 USD (price).'],
      ['danger', 'contradicts-charge', 'price', 'The summary says "Free" ("Free exchange."), but the terms charge 70.00 USD (price).'],
      ['danger', 'contradicts-charge', 'price', 'The summary says "gratis" ("It is gratis."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('reports the same words once', () => {
    expect(review('Free. Free.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "Free" ("Free."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('counts words that differ only in spacing as the same', () => {
    expect(review('No charge. No  charge. No charge.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "No charge" ("No charge."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('counts "Cash back" and "cashback" as different words', () => {
    expect(review('Cash back here, cashback there.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "Cash back" ("Cash back here, cashback there."), but the terms charge 70.00 USD (price).'],
      ['danger', 'contradicts-charge', 'price', 'The summary says "cashback" ("Cash back here, cashback there."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('counts a look-alike letter as a different word ("Refund\u017F")', () => {
    expect(review('Refunds apply. Refund\u017F apply.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "Refunds" ("Refunds apply."), but the terms charge 70.00 USD (price).'],
      ['danger', 'contradicts-charge', 'price', 'The summary says "Refund\u017F" ("Refund\u017F apply."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('does not read "$0.00" as free when the terms hold a zero amount', () => {
    expect(review('You pay $0.00 today.', { price: usd('70.00'), discount: usd('0.00') })).toEqual([]);
  });

  it('excuses "$0.00" in a clause whose other amounts are all information ("$25.00 off")', () => {
    expect(review('$25.00 off means $0.00 extra.', { price: usd('70.00'), discount: usd('25.00') })).toEqual([
      ['danger', 'amount-not-in-terms', '', 'The summary states "$0.00", but the terms hold no such amount (they set price 70.00 USD, discount 25.00 USD); you may be misled about what you pay.'],
    ]);
  });

  it('does not excuse "$0.00" when another amount in its clause is money to the person', () => {
    expect(review('$25.00 off and $30.00 back means $0.00 today.', { price: usd('70.00'), discount: usd('25.00'), refund: usd('30.00') })).toEqual([
      ['danger', 'amount-not-in-terms', '', 'The summary states "$0.00", but the terms hold no such amount (they set price 70.00 USD, discount 25.00 USD, refund 30.00 USD); you may be misled about what you pay.'],
      ['danger', 'contradicts-charge', 'price', 'The summary says "$0.00" ("\u2026off and $30.00 back means $0.00 today."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('does not excuse "$0.00" beside an amount that is both information and money to the person', () => {
    expect(review('$30.00 off means $0.00 today.', { price: usd('70.00'), discount: usd('30.00'), refund: usd('30.00') })).toEqual([
      ['danger', 'amount-not-in-terms', '', 'The summary states "$0.00", but the terms hold no such amount (they set price 70.00 USD, discount 30.00 USD, refund 30.00 USD); you may be misled about what you pay.'],
      ['danger', 'contradicts-charge', 'price', 'The summary says "$0.00" ("$30.00 off means $0.00 today."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('does not excuse "$0.00" beside a refund', () => {
    expect(review('$30.00 back means $0.00 today.', { price: usd('70.00'), refund: usd('30.00') })).toEqual([
      ['danger', 'amount-not-in-terms', '', 'The summary states "$0.00", but the terms hold no such amount (they set price 70.00 USD, refund 30.00 USD); you may be misled about what you pay.'],
      ['danger', 'contradicts-charge', 'price', 'The summary says "$0.00" ("$30.00 back means $0.00 today."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('does not excuse "$0.00" beside an amount that is not in the terms', () => {
    expect(review('You pay $0.00 now and $5.00 later.', PRICE)).toEqual([
      ['danger', 'amount-not-in-terms', '', 'The summary states "$0.00", but the terms hold no such amount (they set price 70.00 USD); you may be misled about what you pay.'],
      ['danger', 'amount-not-in-terms', '', 'The summary states "$5.00", but the terms hold no such amount (they set price 70.00 USD); you may be misled about what you pay.'],
      ['danger', 'contradicts-charge', 'price', 'The summary says "$0.00" ("You pay $0.00 now and $5.00 later."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('excuses words in a clause that names a zero amount of the terms ("No fee." with change_fee 0.00)', () => {
    expect(review('No fee.', { price: usd('70.00'), change_fee: usd('0.00') })).toEqual([]);
  });

  it('looks for the name of a zero amount only in the clause of the words', () => {
    expect(review('Free exchange. There is a fee.', { price: usd('70.00'), change_fee: usd('0.00') })).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "Free" ("Free exchange."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('does not excuse words for a general money word ("price") of an information amount', () => {
    expect(review('Free price match.', { price_difference: usd('70.00'), original_price: usd('100.00') })).toEqual([
      ['danger', 'contradicts-charge', 'price_difference', 'The summary says "Free" ("Free price match."), but the terms charge 70.00 USD (price_difference).'],
    ]);
  });

  it('does not excuse words for a key word of two letters ("eu")', () => {
    expect(review('Free in the EU.', { price: usd('70.00'), eu_fee: usd('0.00') })).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "Free" ("Free in the EU."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('does not excuse words in a sentence that mentions cancelling without a condition', () => {
    expect(review('It is free and you may cancel.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "free" ("It is free and you may cancel."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('does not excuse words because another sentence is about cancelling', () => {
    expect(review('Free exchange. You can cancel before May 1.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "Free" ("Free exchange."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('excuses words in a sentence about cancelling "up to" a date', () => {
    expect(review('Free: cancel up to May 1.', PRICE)).toEqual([]);
  });

  it('excuses words in a sentence about cancelling "up  to" a date, whatever the spacing', () => {
    expect(review('Free: cancel up  to May 1.', PRICE)).toEqual([]);
  });

  it('does not excuse words about cancelling in a sentence that holds a charged amount', () => {
    expect(review('Free if you cancel before May 1, else $70.00.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "Free" ("Free if you cancel before May 1,\u2026"), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('counts an amount as charged when one of the terms amounts it may be is a charge', () => {
    expect(review('Free if you cancel before May 1, else $70.00.', { price: usd('70.00'), waived_fee: usd('70.00') })).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "Free" ("Free if you cancel before May 1,\u2026"), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('excuses words about cancelling beside an amount that is money to the person', () => {
    expect(review('Free if you cancel before May 1, and $70.00 is refunded.', { price: usd('30.00'), refund: usd('70.00') })).toEqual([]);
  });

  it('counts a charged amount at the very start of the sentence', () => {
    expect(review('$70.00 if you cancel before May 1, otherwise free.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "free" ("\u2026before May 1, otherwise free."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('counts a charged amount at the very end of the text', () => {
    expect(review('Free if you cancel before May 1, otherwise you pay $70.00', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "Free" ("Free if you cancel before May 1,\u2026"), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('excuses refund words in a sentence with a deposit that is given back', () => {
    expect(review('The $50.00 deposit is refunded at checkout, the room costs $100.00.', { room: usd('100.00'), deposit_amount: usd('50.00') })).toEqual([]);
  });

  it('does not count a deposit that is only information as held', () => {
    expect(review('A refund of the $50.00 deposit.', { price: usd('100.00'), waived_deposit: usd('50.00') })).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "refund" ("A refund of the $50.00 deposit."), but the terms charge 100.00 USD (price).'],
    ]);
  });

  it('does not count a derived amount as a held deposit', () => {
    expect(review('You get a refund, total $120.00.', { price: usd('100.00'), fee: usd('20.00') })).toEqual([
      ['danger', 'contradicts-charge', '', 'The summary says "You get" ("You get a refund, total $120.00."), but the terms charge price 100.00 USD, fee 20.00 USD.'],
      ['danger', 'contradicts-charge', '', 'The summary says "refund" ("You get a refund, total $120.00."), but the terms charge price 100.00 USD, fee 20.00 USD.'],
    ]);
  });

  it('does not excuse "free" after an extra when its clause holds a charged amount', () => {
    expect(review('Delivery free with your $70.00 order.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "free" ("Delivery free with your $70.00 order."), but the terms charge 70.00 USD (price).'],
      ['danger', 'direction-reversed', 'price', 'The summary presents "$70.00" as money you get or do not pay ("Delivery free with your $70.00 order."), but in the terms price (70.00 USD) is a charge.'],
    ]);
  });

  it('excuses "free" after an extra at the start of a long text', () => {
    expect(review(`Delivery free. ${'y'.repeat(70)}`, PRICE)).toEqual([]);
  });

  it('counts only amounts wholly within the clause of the words', () => {
    expect(review('Shipping free $ - 70.00.', PRICE)).toEqual([
      ['danger', 'direction-reversed', 'price', 'The summary presents "$ - 70.00" as money you get or do not pay ("Shipping free $ - 70.00."), but in the terms price (70.00 USD) is a charge.'],
    ]);
  });

  it('excuses a waived fee the terms do not charge, even when they charge another fee', () => {
    expect(review('Change fee waived.', { service_fee: usd('5.00') })).toEqual([]);
  });

  it('excuses waived fees the terms do not charge, even when they charge other fees', () => {
    expect(review('Change fees waived.', { service_fees: usd('5.00') })).toEqual([]);
  });

  it('does not excuse a waived fee that the terms charge', () => {
    expect(review('Change fee waived.', { change_fee: usd('5.00') })).toEqual([
      ['danger', 'contradicts-charge', 'change_fee', 'The summary says "waived" ("Change fee waived."), but the terms charge 5.00 USD (change_fee).'],
    ]);
  });

  it('does not excuse free returns when the terms charge shipping, whatever the capitals', () => {
    expect(review('Free ReturnS.', { shipping: usd('9.99') })).toEqual([
      ['danger', 'contradicts-charge', 'shipping', 'The summary says "Free" ("Free ReturnS."), but the terms charge 9.99 USD (shipping).'],
    ]);
  });
});

describe('words that need an amount', () => {
  it('counts an amount right after the words, even past a comma', () => {
    expect(review('You will receive, $70.00.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "You will receive" ("You will receive, $70.00."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('counts an amount 25 characters after the words', () => {
    expect(review('You will receive; see the note below for $70.00.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "You will receive" ("You will receive; see the note below for\u2026"), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('does not count an amount 26 characters after the words in another clause', () => {
    expect(review('You will receive; see the note below for  $70.00.', PRICE)).toEqual([]);
  });

  it('counts an amount anywhere in the clause of the words', () => {
    expect(review('You will receive within the next thirty days $70.00.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "You will receive" ("You will receive within the next thirty days\u2026"), but the terms charge 70.00 USD (price).'],
      ['danger', 'direction-reversed', 'price', 'The summary presents "$70.00" as money you get or do not pay ("\u2026within the next thirty days $70.00."), but in the terms price (70.00 USD) is a charge.'],
    ]);
  });

  it('ignores the words with no amount near them', () => {
    expect(review('You will receive a card. Later on we talk about $70.00.', PRICE)).toEqual([]);
  });
});

describe('which way an amount goes', () => {
  it('reports a net charge presented as money back', () => {
    expect(review('You get $70.00 back.', { price: usd('100.00'), refund: usd('30.00') })).toEqual([
      ['danger', 'direction-reversed', '', 'The summary presents "$70.00" as money you get or do not pay ("You get $70.00 back."), but in the terms an amount derived from the terms is a charge.'],
    ]);
  });

  it('reports net money to the person presented as a charge', () => {
    expect(review('You pay $70.00 more.', { price: usd('30.00'), refund: usd('100.00') })).toEqual([
      ['danger', 'direction-reversed', '', 'The summary presents "$70.00" as a charge ("You pay $70.00 more."), but in the terms an amount derived from the terms is money to you.'],
    ]);
  });

  it('reads a derived refund as money to the person', () => {
    expect(review('You are charged $30.00.', { price: usd('60.00'), refund: usd('90.00'), nights: 3 })).toEqual([
      ['danger', 'direction-reversed', '', 'The summary presents "$30.00" as a charge ("You are charged $30.00."), but in the terms an amount derived from the terms is money to you.'],
    ]);
  });

  it('reads the sum of the refunds as money to the person', () => {
    expect(review('You are charged $30.00.', { refund_a: usd('10.00'), refund_b: usd('20.00'), nights: 3 })).toEqual([
      ['danger', 'direction-reversed', '', 'The summary presents "$30.00" as a charge ("You are charged $30.00."), but in the terms an amount derived from the terms is money to you.'],
    ]);
  });

  it('says nothing of an amount that is both a charge and a refund', () => {
    expect(review('You get $70.00 back.', { price: usd('70.00'), refund: usd('70.00') })).toEqual([]);
  });

  it('says nothing of an amount that is both a charge and information', () => {
    expect(review('You get $70.00 back.', { price: usd('70.00'), waived_fee: usd('70.00') })).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "You get" ("You get $70.00 back."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('takes the nearest words in the clause', () => {
    expect(review('You get $70.00 right back.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "You get" ("You get $70.00 right back."), but the terms charge 70.00 USD (price).'],
      ['danger', 'direction-reversed', 'price', 'The summary presents "$70.00" as money you get or do not pay ("You get $70.00 right back."), but in the terms price (70.00 USD) is a charge.'],
    ]);
  });

  it('does not take words around the amount itself', () => {
    expect(review('You get $70 right back.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "You get $70 right back" ("You get $70 right back."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('takes refund words even before an extra', () => {
    expect(review('Refund on shipping: $70.00.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "Refund" ("Refund on shipping: $70.00."), but the terms charge 70.00 USD (price).'],
      ['danger', 'direction-reversed', 'price', 'The summary presents "$70.00" as money you get or do not pay ("Refund on shipping: $70.00."), but in the terms price (70.00 USD) is a charge.'],
    ]);
  });

  it('reads "off" after a charge as money off the person\'s bill, and "off-peak" as no direction', () => {
    expect(review('That is $70.00 off.', PRICE)).toEqual([
      ['danger', 'direction-reversed', 'price', 'The summary presents "$70.00" as money you get or do not pay ("That is $70.00 off."), but in the terms price (70.00 USD) is a charge.'],
    ]);
    expect(review('That is $70.00 off-peak.', PRICE)).toEqual([]);
    expect(review('That is $70.00 off.', { price: usd('70.00'), discount: usd('70.00') })).toEqual([]);
  });

  it('reads "extra" after an amount as a charge', () => {
    expect(review('That is $70.00 extra.', { refund: usd('70.00') })).toEqual([
      ['danger', 'direction-reversed', 'refund', 'The summary presents "$70.00" as a charge ("That is $70.00 extra."), but in the terms refund (70.00 USD) is money to you.'],
    ]);
  });

  it('reads "additional" after an amount as a charge', () => {
    expect(review('That is $70.00 additional.', { refund: usd('70.00') })).toEqual([
      ['danger', 'direction-reversed', 'refund', 'The summary presents "$70.00" as a charge ("That is $70.00 additional."), but in the terms refund (70.00 USD) is money to you.'],
    ]);
  });

  it('reads "more" after an amount as a charge', () => {
    expect(review('That is $70.00 more.', { refund: usd('70.00') })).toEqual([
      ['danger', 'direction-reversed', 'refund', 'The summary presents "$70.00" as a charge ("That is $70.00 more."), but in the terms refund (70.00 USD) is money to you.'],
    ]);
  });

  it('ignores words in another clause', () => {
    expect(review('Refund; $70.00 today.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "Refund" ("Refund; $70.00 today."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('takes words at the start of the clause', () => {
    expect(review('Refunded $70.00.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "Refunded" ("Refunded $70.00."), but the terms charge 70.00 USD (price).'],
      ['danger', 'direction-reversed', 'price', 'The summary presents "$70.00" as money you get or do not pay ("Refunded $70.00."), but in the terms price (70.00 USD) is a charge.'],
    ]);
  });

  it('takes words at the very end of the text', () => {
    expect(review('$70.00 is refunded', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "refunded" ("$70.00 is refunded"), but the terms charge 70.00 USD (price).'],
      ['danger', 'direction-reversed', 'price', 'The summary presents "$70.00" as money you get or do not pay ("$70.00 is refunded"), but in the terms price (70.00 USD) is a charge.'],
    ]);
  });

  it('takes words right before the amount', () => {
    expect(review('Refund$70.00.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "Refund" ("Refund$70.00."), but the terms charge 70.00 USD (price).'],
      ['danger', 'direction-reversed', 'price', 'The summary presents "70.00" as money you get or do not pay ("Refund$70.00."), but in the terms price (70.00 USD) is a charge.'],
    ]);
  });

  it('measures the gap from the amount, not from the start of the text', () => {
    expect(review('This is a fairly long first sentence, nothing to see here. And $70.00 is refunded.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "refunded" ("And $70.00 is refunded."), but the terms charge 70.00 USD (price).'],
      ['danger', 'direction-reversed', 'price', 'The summary presents "$70.00" as money you get or do not pay ("And $70.00 is refunded."), but in the terms price (70.00 USD) is a charge.'],
    ]);
  });

  it('takes words 60 characters away', () => {
    expect(review(`$70.00 ${'a'.repeat(58)} refunded.`, PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "refunded" ("\u2026refunded."), but the terms charge 70.00 USD (price).'],
      ['danger', 'direction-reversed', 'price', 'The summary presents "$70.00" as money you get or do not pay ("$70.00\u2026"), but in the terms price (70.00 USD) is a charge.'],
    ]);
  });

  it('ignores words 61 characters away', () => {
    expect(review(`$70.00 ${'a'.repeat(59)} refunded.`, PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "refunded" ("\u2026refunded."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('takes the earlier of two words at the same distance', () => {
    expect(review('Refund $70.00 charge.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "Refund" ("Refund $70.00 charge."), but the terms charge 70.00 USD (price).'],
      ['danger', 'direction-reversed', 'price', 'The summary presents "$70.00" as money you get or do not pay ("Refund $70.00 charge."), but in the terms price (70.00 USD) is a charge.'],
    ]);
  });

  it('reports the same amount once', () => {
    expect(review('$70.00 back. $70.00 back.', PRICE)).toEqual([
      ['danger', 'direction-reversed', 'price', 'The summary presents "$70.00" as money you get or do not pay ("$70.00 back."), but in the terms price (70.00 USD) is a charge.'],
    ]);
  });
});

describe('amounts presented as the total', () => {
  it('ignores an amount more than 30 characters after the words', () => {
    expect(review('You pay $70.00 now. Total fees are listed below with the $5.00 fee.', { price: usd('70.00'), fee: usd('5.00') })).toEqual([]);
  });

  it('ignores an amount 34 characters after the words', () => {
    expect(review('You pay $70.00. Total (ref 1234567890123456789012345): $5.00.', { price: usd('70.00'), fee: usd('5.00') })).toEqual([]);
  });

  it('takes an amount 30 characters after the words', () => {
    expect(review('You pay $70.00. Total (ref 123456789012345678901): $5.00.', { price: usd('70.00'), fee: usd('5.00') })).toEqual([
      ['danger', 'second-total', '', 'The summary presents different amounts as the total or what you pay: "$70.00" and "$5.00".'],
    ]);
  });

  it('ignores an amount in the next sentence', () => {
    expect(review('You pay $70.00 in total. $5.00 goes to the fee.', { price: usd('70.00'), fee: usd('5.00') })).toEqual([]);
  });

  it('ignores an amount after more than three words', () => {
    expect(review('You pay $70.00. Total for the two of us: $75.00.', { price: usd('70.00'), fee: usd('5.00') })).toEqual([]);
  });

  it('takes an amount after three words', () => {
    expect(review('You pay $70.00. Total for us all: $75.00.', { price: usd('70.00'), fee: usd('5.00') })).toEqual([
      ['danger', 'second-total', '', 'The summary presents different amounts as the total or what you pay: "$70.00" and "$75.00".'],
    ]);
  });

  it('takes an amount right before the words', () => {
    expect(review('You pay $70.00 now. $75.00 in total.', { price: usd('70.00'), fee: usd('5.00') })).toEqual([
      ['danger', 'second-total', '', 'The summary presents different amounts as the total or what you pay: "$70.00" and "$75.00".'],
    ]);
  });

  it('takes an amount 20 characters before the words', () => {
    expect(review('You pay $70.00. $75.00 is the price of it in total.', { price: usd('70.00'), fee: usd('5.00') })).toEqual([
      ['danger', 'second-total', '', 'The summary presents different amounts as the total or what you pay: "$70.00" and "$75.00".'],
    ]);
  });

  it('ignores an amount 21 characters before the words', () => {
    expect(review('You pay $70.00. $75.00 is the price of it  in total.', { price: usd('70.00'), fee: usd('5.00') })).toEqual([]);
  });

  it('ignores an amount far before the words', () => {
    expect(review('You pay $70.00. $75.00 and a very long stretch of words in total.', { price: usd('70.00'), fee: usd('5.00') })).toEqual([]);
  });

  it('ignores an amount in the previous sentence', () => {
    expect(review('You pay $70.00. Fee $5.00. That is the total.', { price: usd('70.00'), fee: usd('5.00') })).toEqual([]);
  });

  it('ignores an amount just before the words but in the previous sentence', () => {
    expect(review('You pay $70.00. $75.00. In total.', { price: usd('70.00'), fee: usd('5.00') })).toEqual([]);
  });

  it('takes an amount at the very start of the text', () => {
    expect(review('$75.00 in total. You pay $70.00.', { price: usd('70.00'), fee: usd('5.00') })).toEqual([
      ['danger', 'second-total', '', 'The summary presents different amounts as the total or what you pay: "$75.00" and "$70.00".'],
    ]);
  });

  it('ignores what is not an amount', () => {
    expect(review('You pay $70.00. 75.00$total.', { price: usd('70.00'), fee: usd('5.00') })).toEqual([]);
  });

  it('ignores an amount whose currency code is the word itself', () => {
    expect(review('Total 80.00 PAY. It is 70 PAY now.', { price: { amount: '70', currency: 'PAY' } })).toEqual([
      ['danger', 'amount-not-in-terms', '', 'The summary states "80.00 PAY", but the terms hold no such amount (they set price 70 PAY); you may be misled about what you pay.'],
    ]);
  });

  it('ignores an amount per unit', () => {
    expect(review('You pay $70.00 each. Total $75.00.', { price: usd('70.00'), fee: usd('5.00') })).toEqual([]);
  });

  it('compares amounts not in the terms by their own value', () => {
    expect(review('Total $80.00. You pay $90.00.', PRICE)).toEqual([
      ['danger', 'amount-not-in-terms', '', 'The summary states "$80.00", but the terms hold no such amount (they set price 70.00 USD); you may be misled about what you pay.'],
      ['danger', 'amount-not-in-terms', '', 'The summary states "$90.00", but the terms hold no such amount (they set price 70.00 USD); you may be misled about what you pay.'],
      ['danger', 'second-total', '', 'The summary presents different amounts as the total or what you pay: "$80.00" and "$90.00".'],
    ]);
  });

  it('tells the same number in two currencies apart', () => {
    expect(review('Total $70.00. You pay \u20AC70.00.', PRICE)).toEqual([
      ['danger', 'currency-not-in-terms', '', 'The summary states "\u20AC70.00", in a currency that no amount of the terms is in (the terms set price 70.00 USD).'],
      ['danger', 'second-total', '', 'The summary presents different amounts as the total or what you pay: "$70.00" and "\u20AC70.00".'],
    ]);
  });

  it('shows the first way the summary writes an amount', () => {
    expect(review('Total $70.00. You pay $70. Total today: $7.00.', PRICE)).toEqual([
      ['danger', 'amount-not-in-terms', '', 'The summary states "$7.00", but the terms hold no such amount (they set price 70.00 USD); you may be misled about what you pay.'],
      ['danger', 'second-total', '', 'The summary presents different amounts as the total or what you pay: "$70.00" and "$7.00".'],
    ]);
  });

  it('reports a derived total beside another amount', () => {
    expect(review('Total $75.00. You pay $70.00.', { price: usd('70.00'), fee: usd('5.00') })).toEqual([
      ['danger', 'second-total', '', 'The summary presents different amounts as the total or what you pay: "$75.00" and "$70.00".'],
    ]);
  });

  it('accepts two amounts each under a key that names a total or a due amount', () => {
    expect(review('Total $70.00. Due today: $20.00.', { total_price: usd('70.00'), deposit_due_today: usd('20.00') })).toEqual([]);
  });

  it('reports two amounts when only one is under such a key', () => {
    expect(review('Total $70.00. You pay $5.00.', { total: usd('70.00'), fee: usd('5.00') })).toEqual([
      ['danger', 'second-total', '', 'The summary presents different amounts as the total or what you pay: "$70.00" and "$5.00".'],
    ]);
  });

  it('reports one amount of the terms shown in two currencies as two totals', () => {
    expect(review('Total: $70.00. You pay \u20AC70.00 today.', { total: 70 })).toEqual([
      ['danger', 'second-total', '', 'The summary presents different amounts as the total or what you pay: "$70.00" and "\u20AC70.00".'],
    ]);
  });

  it('names three amounts in one finding', () => {
    expect(review('Total $70.00. You pay $5.00. Due now: $75.00.', { price: usd('70.00'), fee: usd('5.00') })).toEqual([
      ['danger', 'second-total', '', 'The summary presents different amounts as the total or what you pay: "$70.00", "$5.00" and "$75.00".'],
    ]);
  });
});

describe('quoting the summary', () => {
  it('quotes a short sentence whole, spaces collapsed, without ellipses', () => {
    expect(review('Exchange done.  Free  exchange  today.  Enjoy.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "Free" ("Free exchange today."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('quotes whole words around the words in a long sentence, with ellipses', () => {
    expect(review(LONG, PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "free" ("\u2026in Ohio and it is entirely free of any handling surprises\u2026"), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('quotes only the sentence of the words', () => {
    expect(review(`Free exchange. ${'x'.repeat(60)}`, PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "Free" ("Free exchange."), but the terms charge 70.00 USD (price).'],
    ]);
  });

  it('starts the sentence after a full stop and a line break', () => {
    expect(review('Ok.\nWe hope you like the new size free.', PRICE)).toEqual([
      ['danger', 'contradicts-charge', 'price', 'The summary says "free" ("We hope you like the new size free."), but the terms charge 70.00 USD (price).'],
    ]);
  });
});

describe('one total stated twice, once without its currency', () => {
  it('is one total, not two', () => {
    expect(review('Total: $70.00. You pay 70.00 today.', { total: usd('70.00') })).toEqual([]);
  });

  it('is still two totals when the bare number is another amount', () => {
    expect(review('Total: $70.00. You pay 75.00 today.', { total: usd('70.00') })).toContainEqual(
      ['danger', 'second-total', '', 'The summary presents different amounts as the total or what you pay: "$70.00" and "75.00".'],
    );
  });
});

const SEAT = { seat: usd('700.00') };
/** Severity and code of each finding, for the cases where the wording's message is not the point. */
const said = (summary: string, terms: Record<string, unknown> = SEAT) => review(summary, terms).map(([severity, code]) => `${severity} ${code}`);

describe('a charge denied in other words, or borne by someone else', () => {

  it.each([
    'at no added cost',
    'at zero extra cost',
    'without any payment',
    'with no out-of-pocket cost',
    'at no expense to you',
    'a no-cost upgrade',
    'nothing further to pay',
    'it costs you zilch',
    'without paying',
    'our treat',
    'our gift to you',
    'it will not cost you a dollar',
    "you won't be out a penny",
    'at our own expense',
    "we're picking up the tab",
    'we foot the bill',
    'comped',
    '100% off',
    '100 per cent discount',
    '150% off',
    '100%-covered',
    'discounted by 100%',
    'a reduction of 100 percent',
    'fully paid for',
    'a full discount',
    "on the front desk's tab",
    "at the airline's expense",
    'your insurer covers the whole amount',
    'the full cost is covered',
    'as a courtesy',
    'courtesy of the crew',
    'settled already',
    'nil to pay',
    'nothing outstanding',
    'nothing left on your account',
    'it costs you not a cent',
    '100% rebated',
  ])('reads "%s" as the charge denied', (words) => {
    expect(said(`Seat 2A: ${words}.\n\nRef 700.00 USD`)).toEqual(['danger contradicts-charge']);
  });

  it('quotes the words and what the terms charge', () => {
    expect(review('Seat 2A at no added cost.', SEAT)).toEqual([
      ['danger', 'contradicts-charge', 'seat', 'The summary says "no added cost" ("Seat 2A at no added cost."), but the terms charge 700.00 USD (seat).'],
    ]);
  });

  it('does not read "no money back", "no hidden fees", "50% off" or "100% cotton" as the charge denied', () => {
    expect(said('Seat 2A for $700.00. No money back after check-in.')).toEqual([]);
    expect(said('Seat 2A for $700.00. No hidden fees.')).toEqual([]);
    expect(said('Seat 2A for $700.00. Lounge passes 50% off.')).toEqual([]);
    expect(said('Seat 2A for $700.00. Blankets are 100% cotton.')).toEqual([]);
    expect(said('Seat 2A for $700.00. No 100% discount applies.')).toEqual([]);
  });

  it('reads a denial of more than the charge as about what comes on top, once the charge is stated', () => {
    expect(said('Seat 2A for $700.00. No further payment is needed.')).toEqual([]);
    expect(said('You pay $700.00 for seat 2A and nothing more to pay later.')).toEqual([]);
    expect(said('Seat 2A costs $700.00, not a penny more.')).toEqual([]);
  });

  it('reads the same denial as the charge denied when the charge comes only after it, or as a reference, or as money off', () => {
    expect(said('No further payment is needed for seat 2A. Seat: $700.00.')).toEqual(['danger contradicts-charge']);
    expect(said('Ref: $700.00. No further payment is needed for seat 2A.')).toEqual(['danger contradicts-charge']);
    expect(said('Seat 2A, -$700.00. No further payment is needed.')).toEqual(['danger contradicts-charge', 'danger direction-reversed']);
    expect(said('Seat 2A, $700.00 off. No further payment is needed.')).toEqual(['danger contradicts-charge', 'danger direction-reversed']);
  });

  it('still excuses "no cost" of an extra the terms do not charge', () => {
    expect(said('Seat 2A for $700.00; no booking fee.')).toEqual([]);
    expect(said('Seat 2A for $700.00. Seat selection at no cost.')).toEqual([]);
  });
});

describe('which way a marked amount goes', () => {
  it('reads a minus sign on a charge as money to the person, and on a refund as a refund', () => {
    expect(review('Seat 2A: -$700.00.', { seat: usd('700.00') })).toEqual([
      ['danger', 'direction-reversed', 'seat', 'The summary presents "-$700.00" as money you get or do not pay ("Seat 2A: -$700.00."), but in the terms seat (700.00 USD) is a charge.'],
    ]);
    expect(review('Refund: \u2212$45.00.', { refund: usd('45.00') })).toEqual([]);
  });

  it('reads CR after an amount as a credit and DR as a debit', () => {
    expect(review('Seat 2A: 700.00 USD CR', { seat: usd('700.00') }).map(([, code]) => code)).toEqual(['direction-reversed']);
    expect(review('Seat 2A: 700.00 USD DR', { seat: usd('700.00') })).toEqual([]);
    expect(review('Refund 45.00 USD DR', { refund: usd('45.00') }).map(([, code]) => code)).toEqual(['direction-reversed']);
  });
});

describe('amounts in words', () => {
  it('reads "seven dollars" as an amount, and "zero dollars" as nothing to pay', () => {
    expect(review('Seat 2A for seven dollars.', { seat: usd('700.00') }).map(([, code]) => code)).toEqual(['amount-not-in-terms']);
    expect(review('Zero dollars due today.', { seat: usd('700.00') }).map(([, code]) => code)).toEqual(['amount-not-in-terms', 'contradicts-charge']);
    expect(review('Seat 2A for seven hundred dollars.', { seat: usd('700.00') })).toEqual([]);
  });
});

describe('a denial that is about something on top, or about the person', () => {
  it('reads "on your tab" as the person paying', () => {
    expect(said('Seat 2A for $700.00, on your tab.')).toEqual([]);
  });

  it('reads "already included" as nothing on top once the charge is stated, and as the charge denied before', () => {
    expect(said('Seat 2A for $700.00. Meals are already included in that.')).toEqual([]);
    expect(said('Seat 2A is already included in your fare.\n\nRef 700.00 USD')).toEqual(['danger contradicts-charge']);
  });

  it('reads "no fees" as about fees when the terms charge no fee and the charge is stated', () => {
    expect(said('Give $700.00 to the food bank. No fees are taken from your gift.', { donation: usd('700.00') })).toEqual([]);
    expect(said('Give to the food bank. No fees are taken.\n\nRef 700.00 USD', { donation: usd('700.00') })).toEqual(['danger contradicts-charge']);
    expect(said('Seat 2A for $700.00. No fees.', { seat_fee: usd('700.00') })).toEqual(['danger contradicts-charge']);
  });
});

describe('money that arrives, and money taken off', () => {
  it('reads "a bonus" near an amount, "paid into your account" and "back on your bill" as money to the person', () => {
    const terms = { fee: usd('25.00') };
    expect(review('A $25.00 bonus lands in your balance.', terms).map(([, code]) => code)).toEqual(['contradicts-charge', 'contradicts-charge', 'direction-reversed']);
    expect(review('A bonus of $25.00.', terms).map(([, code]) => code)).toEqual(['contradicts-charge', 'direction-reversed']);
    expect(review('Earn bonus miles on this flight for $25.00.', terms)).toEqual([]);
    expect(review('We pay $25.00 into your account.', terms).map(([, code]) => code)).toEqual(['contradicts-charge']);
    expect(review('We pay $25.00 into your account.', { payout: usd('25.00') })).toEqual([]);
    expect(review('You see $25.00 come back on your next bill.', terms).map(([, code]) => code)).toEqual(['contradicts-charge', 'direction-reversed']);
  });

  it('reads "knocked off" and "off your bill" as the amount taken off what the person pays', () => {
    expect(review('The full $89.00 is knocked off.', { price: usd('89.00') }).map(([, code]) => code)).toEqual(['direction-reversed']);
    expect(review('We take $89.00 off your bill.', { price: usd('89.00') }).map(([, code]) => code)).toEqual(['direction-reversed']);
  });

  it('reads a minus sign with words of money leaving the account as the bank\'s debit', () => {
    expect(review('Card bill: \u2212$612.40 from checking.', { payment: usd('612.40') })).toEqual([]);
    expect(review('\u2212$612.40 debited on 5 January.', { payment: usd('612.40') })).toEqual([]);
    expect(review('Card bill: \u2212$612.40.', { payment: usd('612.40') }).map(([, code]) => code)).toEqual(['direction-reversed']);
  });
});
