/**
 * src/review/statements.ts on its own: the literal matchers that decide whether the summary
 * states a value of the terms (an amount with its currency, a number, an ID, a slug, a currency
 * code, a date, a zero amount by name) and the reading of numbers and amounts in the summary.
 * The terms review covers them through `reviewTerms`; these pin each rule by name, since a
 * matcher that says "stated" too easily hides a difference the user should see.
 */
import { describe, expect, it } from 'vitest';
import {
  canonicalDecimal,
  currencyCode,
  isCurrencyCode,
  isIsoDate,
  knownCurrency,
  moneyMentions,
  numberMentions,
  statesCurrency,
  statesDate,
  statesLiteral,
  statesMoney,
  statesNumber,
  statesSlug,
  statesZeroByName,
  wordNumberMentions,
} from '../../src/review/statements.ts';

const NBSP = '\u27E8U+00A0\u27E9';

/** Each number of the text as written, with the values it can mean. */
const numbers = (text: string) => numberMentions(text).map((m) => [text.slice(m.start, m.end), m.values]);
const money = (text: string, codes: string[] = []) => moneyMentions(text, numberMentions(text), codes);
const statesAmount = (text: string, amount: string, currency: string) => statesMoney(text, numberMentions(text), amount, currency);

const DOLLAR_WORD = ['USD', 'CAD', 'AUD', 'NZD', 'HKD', 'SGD', 'MXN'];
const CENT_WORD = ['USD', 'EUR', 'CAD', 'AUD', 'NZD', 'HKD', 'SGD', 'MXN'];

describe('canonicalDecimal', () => {
  it.each([
    ['70', '70'],
    ['70.00', '70'],
    ['070.50', '70.5'],
    ['0070', '70'],
    ['000', '0'],
    ['0.50', '0.5'],
    ['-70.10', '70.1'],
    ['+5', '5'],
    ['\u221270', '70'],
  ])('reads %j as %j', (input, expected) => {
    expect(canonicalDecimal(input)).toBe(expected);
  });

  it.each(['x70', '70x', '70.00 USD', 'USD 70', ' 70', '70 ', '7.0.0', '.5', '5.', '', '1,000'])('is null for %j', (input) => {
    expect(canonicalDecimal(input)).toBeNull();
  });

  it('reads finite numbers and rejects the others', () => {
    expect(canonicalDecimal(70)).toBe('70');
    expect(canonicalDecimal(70.5)).toBe('70.5');
    expect(canonicalDecimal(-3)).toBe('3');
    expect(canonicalDecimal(Number.NaN)).toBeNull();
    expect(canonicalDecimal(Number.POSITIVE_INFINITY)).toBeNull();
  });
});

describe('isCurrencyCode and knownCurrency', () => {
  it('takes exactly three capital letters as a code', () => {
    expect(isCurrencyCode('USD')).toBe(true);
    expect(isCurrencyCode('XYZ')).toBe(true);
    expect(isCurrencyCode('USDT')).toBe(false);
    expect(isCurrencyCode('XUSD')).toBe(false);
    expect(isCurrencyCode('usd')).toBe(false);
    expect(isCurrencyCode('US')).toBe(false);
  });

  it('knows the built-in currencies only', () => {
    expect(knownCurrency('USD')).toBe(true);
    expect(knownCurrency('ZAR')).toBe(true);
    expect(knownCurrency('XYZ')).toBe(false);
    expect(knownCurrency('toString')).toBe(false);
  });
});

describe('numberMentions', () => {
  it('reads grouping and decimal marks both ways where both make sense', () => {
    expect(numbers('123,456')).toEqual([['123,456', ['123456', '123.456']]]);
    expect(numbers('1.234')).toEqual([['1.234', ['1.234', '1234']]]);
    expect(numbers('1,234.50')).toEqual([['1,234.50', ['1234.5']]]);
    expect(numbers('70')).toEqual([['70', ['70']]]);
  });

  it('takes no reading with two decimal marks', () => {
    expect(numbers('1.2.3')).toEqual([['1.2.3', []]]);
    expect(numbers('1.234.567')).toEqual([['1.234.567', ['1234567']]]);
  });

  it('groups only by three digits, after a first group of at most three', () => {
    expect(numbers('1234,567')).toEqual([['1234,567', ['1234.567']]]);
    expect(numbers('1,23,456')).toEqual([['1,23,456', []]]);
    expect(numbers('12,3456')).toEqual([['12,3456', ['12.3456']]]);
  });

  it('skips digits that are the tail of an ID or of a date', () => {
    expect(numbers('ord_7Hk2')).toEqual([]);
    expect(numbers('ord-7')).toEqual([]);
    expect(numbers('on 2026-10-08')).toEqual([['2026', ['2026']]]);
  });

  it('keeps a number after a minus sign that does not continue a word', () => {
    expect(numbers('-70')).toEqual([['70', ['70']]]);
    expect(numbers('$-70')).toEqual([['70', ['70']]]);
    expect(numbers('pay -70')).toEqual([['70', ['70']]]);
  });

  it('skips digits after a lone decimal mark', () => {
    expect(numbers('.5')).toEqual([]);
    expect(numbers(',5')).toEqual([]);
    expect(numbers('v.5 and 6')).toEqual([['6', ['6']]]);
  });
});

describe('statesMoney', () => {
  it('finds the amount with its sign before or its code after', () => {
    expect(statesAmount('$70', '70.00', 'USD')).toBe(true);
    expect(statesAmount('You pay $70.00 today', '70', 'USD')).toBe(true);
    expect(statesAmount('70.00 USD', '70', 'USD')).toBe(true);
    expect(statesAmount('USD 70', '70', 'USD')).toBe(true);
    expect(statesAmount('70,00 \u20AC', '70', 'EUR')).toBe(true);
    expect(statesAmount('$70', '7', 'USD')).toBe(false);
    expect(statesAmount('70', '70', 'USD')).toBe(false);
  });

  it('is false for an amount that is not a decimal', () => {
    expect(statesAmount('$70', 'seventy', 'USD')).toBe(false);
    expect(statesAmount('$70', '', 'USD')).toBe(false);
  });

  it('accepts a minus between the sign and the number', () => {
    expect(statesAmount('$-70', '70', 'USD')).toBe(true);
    expect(statesAmount('-$70', '70', 'USD')).toBe(true);
  });

  it('does not take a hyphen before the sign as part of a word', () => {
    expect(statesAmount('refund-$70', '70', 'USD')).toBe(true);
    expect(statesAmount('refund$70', '70', 'USD')).toBe(false);
  });

  it('looks past a no-break space on both sides of a minus before the number', () => {
    expect(statesAmount(`USD${NBSP}-${NBSP}70`, '70', 'USD')).toBe(true);
    expect(statesAmount(`Pay USD${NBSP}-${NBSP}70`, '70', 'USD')).toBe(true);
    expect(statesAmount(`Pay XUSD${NBSP}-${NBSP}70`, '70', 'USD')).toBe(false);
  });

  it('does not take a sign that is the end of another one', () => {
    expect(statesAmount('CA$70', '70', 'USD')).toBe(false);
    expect(statesAmount('CA$70', '70', 'CAD')).toBe(true);
    expect(statesAmount('70 USDT', '70', 'USD')).toBe(false);
    expect(statesAmount('70 USD-ish', '70', 'USD')).toBe(false);
  });

  it('lets a symbol sign be followed by a hyphen or an underscore', () => {
    expect(statesAmount('a 70\u20AC-voucher', '70', 'EUR')).toBe(true);
    expect(statesAmount('70 \u20AC_', '70', 'EUR')).toBe(true);
    expect(statesAmount('70 \u20ACx', '70', 'EUR')).toBe(false);
  });

  it('finds a currency name of any length written before or after the number', () => {
    expect(statesAmount('70 ABCDEFGHIJKL', '70', 'ABCDEFGHIJKL')).toBe(true);
    expect(statesAmount(`ABCD${NBSP}-${NBSP}70`, '70', 'ABCD')).toBe(true);
  });

  it('knows only the code itself for a currency without built-in signs', () => {
    expect(statesAmount('70 XYZ', '70', 'XYZ')).toBe(true);
    expect(statesAmount('$70', '70', 'XYZ')).toBe(false);
  });
});

describe('moneyMentions', () => {
  it('spans the sign, the number and the code', () => {
    expect(money('$70')).toEqual([{ start: 0, end: 3, numberStart: 1, numberEnd: 3, values: ['70'], currencies: ['USD'], negative: false }]);
    expect(money('-$70')).toEqual([{ start: 0, end: 4, numberStart: 2, numberEnd: 4, values: ['70'], currencies: ['USD'], negative: true }]);
    expect(money('70 USD')).toEqual([{ start: 0, end: 6, numberStart: 0, numberEnd: 2, values: ['70'], currencies: ['USD'], negative: false }]);
    expect(money('Pay 70 USD now')).toEqual([{ start: 4, end: 10, numberStart: 4, numberEnd: 6, values: ['70'], currencies: ['USD'], negative: false }]);
  });

  it('reads a currency word after the number', () => {
    expect(money('70 dollars')).toEqual([{ start: 0, end: 10, numberStart: 0, numberEnd: 2, values: ['70'], currencies: DOLLAR_WORD, negative: false }]);
    expect(money('you get 70 euros back')).toEqual([{ start: 8, end: 16, numberStart: 8, numberEnd: 10, values: ['70'], currencies: ['EUR'], negative: false }]);
  });

  it('does not read a currency word after a number that has a sign', () => {
    expect(money('$70 dollars')).toEqual([{ start: 0, end: 3, numberStart: 1, numberEnd: 3, values: ['70'], currencies: ['USD'], negative: false }]);
    expect(money('$50 cents')).toEqual([{ start: 0, end: 3, numberStart: 1, numberEnd: 3, values: ['50'], currencies: ['USD'], negative: false }]);
  });

  it('reads cents as hundredths', () => {
    expect(money('50 cents')).toEqual([{ start: 0, end: 8, numberStart: 0, numberEnd: 2, values: ['0.5'], currencies: CENT_WORD, negative: false }]);
    expect(money('5 cents')).toEqual([{ start: 0, end: 7, numberStart: 0, numberEnd: 1, values: ['0.05'], currencies: CENT_WORD, negative: false }]);
    expect(money('7.5 cents')).toEqual([{ start: 0, end: 9, numberStart: 0, numberEnd: 3, values: ['0.075'], currencies: CENT_WORD, negative: false }]);
    expect(money('1234 cents')).toEqual([{ start: 0, end: 10, numberStart: 0, numberEnd: 4, values: ['12.34'], currencies: CENT_WORD, negative: false }]);
    expect(money('100 cents')).toEqual([{ start: 0, end: 9, numberStart: 0, numberEnd: 3, values: ['1'], currencies: CENT_WORD, negative: false }]);
  });

  it('keeps both readings only where a decimal comma is usual', () => {
    expect(money('$1.234')).toEqual([{ start: 0, end: 6, numberStart: 1, numberEnd: 6, values: ['1.234'], currencies: ['USD'], negative: false }]);
    expect(money('1.234 \u20AC')).toEqual([{ start: 0, end: 7, numberStart: 0, numberEnd: 5, values: ['1.234', '1234'], currencies: ['EUR'], negative: false }]);
    expect(money('\u20AC1.234 USD')).toEqual([{ start: 0, end: 10, numberStart: 1, numberEnd: 6, values: ['1.234', '1234'], currencies: ['USD', 'EUR'], negative: false }]);
  });

  it('skips a number with no reading', () => {
    expect(money('$1.2.3')).toEqual([]);
  });

  it('adds valid currency codes of the terms and ignores the rest', () => {
    expect(money('70 XYZ', ['XYZ'])).toEqual([{ start: 0, end: 6, numberStart: 0, numberEnd: 2, values: ['70'], currencies: ['XYZ'], negative: false }]);
    expect(money('70 XYZ')).toEqual([]);
    expect(money('70 xyz', ['xyz'])).toEqual([]);
  });

  it('takes a bare number with two decimals after a money word', () => {
    expect(money('Total: 7.00')).toEqual([{ start: 7, end: 11, numberStart: 7, numberEnd: 11, values: ['7'], currencies: [], negative: false }]);
    expect(money('Total: 7.005')).toEqual([]);
    expect(money('Total: 7')).toEqual([]);
    expect(money('Size 7.00')).toEqual([]);
  });
});

describe('amounts in words and with a scale word', () => {
  const words = (text: string) => wordNumberMentions(text).map((m) => [text.slice(m.start, m.end), m.values]);
  const amounts = (text: string) => money(text).map((m) => [text.slice(m.start, m.end), m.values, m.currencies]);

  it('reads English cardinals, hyphenated or not, with "and" and "a" before a scale', () => {
    expect(words('seven')).toEqual([['seven', ['7']]]);
    expect(words('Seventy-Five')).toEqual([['Seventy-Five', ['75']]]);
    expect(words('seven hundred and fifty')).toEqual([['seven hundred and fifty', ['750']]]);
    expect(words('fifteen hundred')).toEqual([['fifteen hundred', ['1500']]]);
    expect(words('a thousand')).toEqual([['a thousand', ['1000']]]);
    expect(words('two million three hundred thousand')).toEqual([['two million three hundred thousand', ['2300000']]]);
    expect(words('zero')).toEqual([['zero', ['0']]]);
  });

  it('stops where the words stop making one number', () => {
    expect(words('one two')).toEqual([['one', ['1']], ['two', ['2']]]);
    expect(words('seven and five')).toEqual([['seven', ['7']], ['five', ['5']]]);
    expect(words('twenty thirty')).toEqual([['twenty', ['20']], ['thirty', ['30']]]);
    expect(words('zero one')).toEqual([['zero', ['0']], ['one', ['1']]]);
    expect(words('a cat and a dog')).toEqual([]);
    expect(words('seven,\nhundred')).toEqual([['seven', ['7']]]);
    expect(words('hundred')).toEqual([]);
  });

  it('takes a number in words as an amount only with a currency word or code after it', () => {
    expect(amounts('seven dollars')).toEqual([['seven dollars', ['7'], DOLLAR_WORD]]);
    expect(amounts('seven hundred USD')).toEqual([['seven hundred USD', ['700'], ['USD']]]);
    expect(amounts('zero euros due')).toEqual([['zero euros', ['0'], ['EUR']]]);
    expect(amounts('seven nights')).toEqual([]);
    expect(amounts('$seven')).toEqual([]);
    expect(amounts('You pay seven')).toEqual([]);
    expect(amounts('a ten-dollar bill')).toEqual([]);
  });

  it('adds "and fifty cents" to dollars', () => {
    expect(amounts('twelve dollars and fifty cents')).toEqual([['twelve dollars and fifty cents', ['12.5'], DOLLAR_WORD]]);
    expect(amounts('12 dollars and 5 cents')).toEqual([['12 dollars and 5 cents', ['12.05'], DOLLAR_WORD]]);
    expect(amounts('12 dollars and 150 cents')).toEqual([['12 dollars', ['12'], DOLLAR_WORD], ['150 cents', ['1.5'], CENT_WORD]]);
    expect(amounts('twelve dollars, fifty cents')).toEqual([['twelve dollars', ['12'], DOLLAR_WORD], ['fifty cents', ['0.5'], CENT_WORD]]);
  });

  it('reads pence and "US dollars"', () => {
    expect(amounts('fifty pence')).toEqual([['fifty pence', ['0.5'], ['GBP']]]);
    expect(amounts('70 US dollars')).toEqual([['70 US dollars', ['70'], ['USD']]]);
  });

  it('multiplies a number by a scale word after it', () => {
    expect(amounts('$7 hundred')).toEqual([['$7 hundred', ['700'], ['USD']]]);
    expect(amounts('$1.2 million')).toEqual([['$1.2 million', ['1200000'], ['USD']]]);
    expect(amounts('7 thousand dollars')).toEqual([['7 thousand dollars', ['7000'], DOLLAR_WORD]]);
    expect(amounts('3 thousand EUR')).toEqual([['3 thousand EUR', ['3000'], ['EUR']]]);
    expect(amounts('$7\nhundred')).toEqual([['$7', ['7'], ['USD']]]);
  });
});

describe('a minus sign on an amount', () => {
  const negative = (text: string) => money(text).map((m) => m.negative);

  it('is a hyphen, a minus sign or an en dash just before the amount, or between its sign and number', () => {
    expect(negative('-$700.00')).toEqual([true]);
    expect(negative('Fee: \u2212700.00 USD')).toEqual([true]);
    expect(negative('(\u2013$700.00)')).toEqual([true]);
    expect(negative('$-700.00')).toEqual([true]);
    expect(negative('USD -700.00')).toEqual([true]);
  });

  it('is not a hyphen after a word or a number, nor one set apart by a space', () => {
    expect(negative('$500-$700')).toEqual([false, false]);
    expect(negative('Seat-$700')).toEqual([false]);
    expect(negative('- $700.00')).toEqual([false]);
    expect(negative('$700.00')).toEqual([false]);
  });
});

describe('currency codes in any case', () => {
  it('reads a terms code of three letters in any case as the code in capitals', () => {
    expect(currencyCode('usd')).toBe('USD');
    expect(currencyCode('Eur')).toBe('EUR');
    expect(currencyCode('USD')).toBe('USD');
    expect(currencyCode('US')).toBeNull();
    expect(currencyCode('us$')).toBeNull();
    expect(currencyCode('U5D')).toBeNull();
    expect(currencyCode(840)).toBeNull();
  });

  it('reads a code in lower case in the summary, except where it is an English word', () => {
    expect(money('70 usd').map((m) => m.currencies)).toEqual([['USD']]);
    expect(money('usd 70').map((m) => m.currencies)).toEqual([['USD']]);
    expect(money('5 try')).toEqual([]);
    expect(money('5 TRY').map((m) => m.currencies)).toEqual([['TRY']]);
    expect(statesAmount('70 usd', '70', 'USD')).toBe(true);
    expect(statesCurrency('paid in usd', 'USD')).toBe(true);
  });
});

describe('statesNumber', () => {
  it('finds the number in any grouping', () => {
    const mentions = numberMentions('1,234.50 items');
    expect(statesNumber(mentions, '1234.5')).toBe(true);
    expect(statesNumber(mentions, 1234.5)).toBe(true);
    expect(statesNumber(mentions, '1234')).toBe(false);
    expect(statesNumber(mentions, 'abc')).toBe(false);
  });
});

describe('statesLiteral', () => {
  it('treats an empty value as stated', () => {
    expect(statesLiteral('ab', '')).toBe(true);
  });

  it('finds the exact characters only when they do not continue an ID', () => {
    expect(statesLiteral('order ord_7Hk2.', 'ord_7Hk2')).toBe(true);
    expect(statesLiteral('ord_7Hk2', 'ord_7Hk2')).toBe(true);
    expect(statesLiteral('itm_4Qa', 'itm_4Q')).toBe(false);
    expect(statesLiteral('xitm_4Q', 'itm_4Q')).toBe(false);
    expect(statesLiteral('xitm_4Q and itm_4Q', 'itm_4Q')).toBe(true);
    expect(statesLiteral('no such id', 'itm_4Q')).toBe(false);
  });

  it('does not guard an end that is not an ID character', () => {
    expect(statesLiteral('code AB-12/x', 'AB-12/')).toBe(true);
    expect(statesLiteral('x/12-AB', '/12-AB')).toBe(true);
  });
});

describe('statesCurrency', () => {
  it('finds the code or a sign standing alone', () => {
    expect(statesCurrency('USD 70', 'USD')).toBe(true);
    expect(statesCurrency('70 USD', 'USD')).toBe(true);
    expect(statesCurrency('pay in USD.', 'USD')).toBe(true);
    expect(statesCurrency('$70', 'USD')).toBe(true);
    expect(statesCurrency('70 \u20AC', 'EUR')).toBe(true);
  });

  it('does not take a code that continues into more of one', () => {
    expect(statesCurrency('USDT', 'USD')).toBe(false);
    expect(statesCurrency('70 USDT', 'USD')).toBe(false);
    expect(statesCurrency('USD_x', 'USD')).toBe(false);
    expect(statesCurrency('USDT or USD', 'USD')).toBe(true);
  });

  it('does not take a sign with a letter before it', () => {
    expect(statesCurrency('CA$70', 'USD')).toBe(false);
    expect(statesCurrency('XUSD', 'USD')).toBe(false);
  });

  it('knows only the code for a currency without built-in signs', () => {
    expect(statesCurrency('pay in XYZ', 'XYZ')).toBe(true);
    expect(statesCurrency('$ 70', 'XYZ')).toBe(false);
  });
});

describe('statesSlug', () => {
  it('finds the words of a slug in order, as whole words, in any case', () => {
    expect(statesSlug('the Stormline Insulated Jacket (M)', 'stormline-insulated-m')).toBe(true);
    expect(statesSlug('stormline insulated m', 'stormline-insulated-m')).toBe(true);
    expect(statesSlug('insulated stormline m', 'stormline-insulated-m')).toBe(false);
    expect(statesSlug('stormline m', 'm-stormline')).toBe(false);
    expect(statesSlug('size m', 'm-m')).toBe(false);
    expect(statesSlug('stormlines insulated m', 'stormline-insulated-m')).toBe(false);
  });

  it('only applies to hyphenated lower-case ASCII slugs', () => {
    expect(statesSlug('the Stormline jacket', 'stormline')).toBe(false);
    expect(statesSlug('Stormline Insulated', 'Stormline-Insulated')).toBe(false);
    expect(statesSlug('gr\u00F6\u00DFe m', 'gr\u00F6\u00DFe-m')).toBe(false);
    expect(statesSlug('a b', 'a-b-')).toBe(false);
    expect(statesSlug('', 'a-b')).toBe(false);
  });
});

describe('statesZeroByName', () => {
  it.each([
    ['No fee', ['fee']],
    ['fee-free', ['fee']],
    ['the fee is waived', ['fee']],
    ['Fees: none', ['fee']],
    ['free shipping', ['shipping']],
    ['free express shipping', ['shipping']],
    ['shipping: free', ['shipping']],
    ['shipping will be also included', ['shipping']],
    ['no fee', ['amount', 'fee']],
    ['no fee2', ['fee2']],
  ])('%j names a zero for %j', (text, words) => {
    expect(statesZeroByName(text, words)).toBe(true);
  });

  it.each([
    ['free', ['shipping']],
    ['no fee', ['shipping']],
    ['free shipping', ['fee']],
    ['no amount', ['amount']],
    ['no total', ['total']],
    ['no tx', ['tx']],
    ['no x.fee', ['x.fee']],
    ['no fee.x', ['fee.']],
    ['no feeds', ['fee.']],
    ['anything', []],
  ])('%j names no zero for %j', (text, words) => {
    expect(statesZeroByName(text, words)).toBe(false);
  });
});

describe('statesDate', () => {
  it('finds the ISO date or an English month-name date', () => {
    expect(statesDate('by 2026-10-08', '2026-10-08T12:20:00-07:00')).toBe(true);
    expect(statesDate('by October 8, 2026', '2026-10-08')).toBe(true);
    expect(statesDate('by 8 Oct 2026', '2026-10-08')).toBe(true);
    expect(statesDate('by Oct. 8th', '2026-10-08')).toBe(true);
    expect(statesDate('by October 8, 2025', '2026-10-08')).toBe(false);
    expect(statesDate('by October 9', '2026-10-08')).toBe(false);
  });

  it('is false for a value that is not an ISO date, or names no month', () => {
    expect(statesDate('tomorrow', 'tomorrow')).toBe(false);
    expect(statesDate('2026-13-01 or 1 December', '2026-13-01T00:00:00Z')).toBe(true);
    expect(statesDate('13 January 2026', '2026-13-01')).toBe(false);
    expect(statesDate('1 December', '2026-00-01')).toBe(false);
    expect(isIsoDate('2026-13-01')).toBe(true);
  });
});
