import { describe, expect, it } from 'vitest';
import { canonicalJson, parseOperation } from '../../src/protocol';
import { sameJson } from '../../src/protocol/canonical-json';
import { seed } from './seed';

/** RFC 8785 JSON Canonicalization Scheme; the examples are the RFC's own. */

function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

describe('RFC 8785 canonical JSON', () => {
  it('section 3.2.2: the sample of numbers, a string with escapes, and literals', () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",' +
        ' "literals": [null, true, false]}',
    );
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('section 3.2.3: members sorted by UTF-16 code units', () => {
    const input = JSON.parse(
      '{"\\u20ac": "Euro Sign", "\\r": "Carriage Return", "\\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One",' +
        ' "\\ud83d\\ude00": "Emoji: Grinning Face", "\\u0080": "Control", "\\u00f6": "Latin Small Letter O With Diaeresis"}',
    );
    // Read the order from the text: parsing it back would move the integer-like key "1" first.
    const order = [...canonicalJson(input).matchAll(/":"([^"]+)"/g)].map((m) => m[1]);
    expect(order).toEqual([
      'Carriage Return',
      'One',
      'Control',
      'Latin Small Letter O With Diaeresis',
      'Euro Sign',
      'Emoji: Grinning Face',
      'Hebrew Letter Dalet With Dagesh',
    ]);
  });

  const appendixB: [string, string][] = [
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ];
  for (const [bits, text] of appendixB) {
    it(`appendix B: IEEE 754 ${bits} is written ${text}`, () => {
      expect(canonicalJson(fromBits(bits))).toBe(text);
    });
  }

  it('appendix B: NaN and Infinity (7fffffffffffffff, 7ff0000000000000) are errors', () => {
    expect(() => canonicalJson(fromBits('7fffffffffffffff'))).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID' }));
    expect(() => canonicalJson(fromBits('7ff0000000000000'))).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID' }));
  });

  it('writes no whitespace, and empty containers as {} and []', () => {
    expect(canonicalJson({ b: [], a: {}, c: [{}, []] })).toBe('{"a":{},"b":[],"c":[{},[]]}');
  });

  it('writes top-level primitives', () => {
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson('x')).toBe('"x"');
    expect(canonicalJson(true)).toBe('true');
  });

  it('writes non-ASCII text as is, and controls as lower-case \\u00xx', () => {
    expect(canonicalJson(['Füü €', '\u001f', '\u007f'])).toBe('["Füü €","\\u001f","\u007f"]');
  });

  it('keeps a member named __proto__', () => {
    expect(canonicalJson(JSON.parse('{"b":1,"__proto__":2}'))).toBe('{"__proto__":2,"b":1}');
  });

  it('refuses a cycle', () => {
    const a: Record<string, unknown> = {};
    a.self = a;
    expect(() => canonicalJson(a)).toThrow(/cycle/);
  });

  it('accepts the same object twice when it is not a cycle', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });

  it('the seed terms: member order of the Company does not matter', () => {
    const terms = parseOperation(seed().operation.value).terms;
    const expected =
      '{"item_id":"itm_4Qa","order_id":"ord_7Hk2","price_difference":{"amount":"70.00","currency":"USD"},"replacement_sku":"stormline-insulated-m"}';
    expect(canonicalJson(terms)).toBe(expected);
    const reordered = { price_difference: { currency: 'USD', amount: '70.00' }, replacement_sku: 'stormline-insulated-m', item_id: 'itm_4Qa', order_id: 'ord_7Hk2' };
    expect(canonicalJson(reordered)).toBe(expected);
  });
});

describe('sameJson: equal as JSON data', () => {
  it('ignores member order and a missing prototype, not a value', () => {
    const parsed: Record<string, unknown> = Object.assign(Object.create(null) as object, { b: [1, { c: 'x' }], a: 1.0 });
    expect(sameJson({ a: 1, b: [1, { c: 'x' }] }, parsed)).toBe(true);
    expect(sameJson({ a: 1, b: [1, { c: 'y' }] }, parsed)).toBe(false);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
  });

  it('refuses what is not JSON, as canonicalJson does', () => {
    expect(() => sameJson({ a: Number.NaN }, { a: Number.NaN })).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID' }));
  });
});
