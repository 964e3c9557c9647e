/**
 * inspectText: hidden characters in any Company text (spec section 8) are reported and shown
 * as tokens, never dropped. Runs in Node: the function needs no DOM.
 */
import { describe, expect, it } from 'vitest';
import { classifyCodePoint, hiddenToken, inspectText, revealHidden } from '../../src/summary/index.ts';
import { fixture } from './helpers.ts';

interface Character {
  cp: string;
  char: string;
  name: string | null;
}

const spoofing = fixture<{ characters: Character[] }>('unicode/spoofing-characters.json').characters;
const bidi = fixture<{ characters: Character[] }>('unicode/bidi-controls.json').characters;
const formats = fixture<{ characters: Character[] }>('unicode/format-not-default-ignorable.json').characters;
const ignorable = fixture<{ ranges: Array<[string, string]> }>('unicode/default-ignorable.json').ranges;

const cp = (label: string) => Number.parseInt(label.slice(2), 16);

describe('inspectText', () => {
  it('leaves ordinary text alone', () => {
    const text = 'Exchange the Stormline Jacket (M) for $70.00.\nCafé, Straße, 東京, مرحبا';
    const result = inspectText(text);
    expect(result.findings).toEqual([]);
    expect(result.display).toBe(text);
    expect(result.segments).toEqual([{ type: 'text', text }]);
  });

  it('reports a right-to-left override with its position, shows the token and keeps the rest', () => {
    const result = inspectText('Pay $\u202E00.07');
    expect(result.display).toBe('Pay $\u27E8U+202E\u27E900.07');
    expect(result.findings).toEqual([
      expect.objectContaining({ kind: 'bidi-control', severity: 'danger', codePoint: 0x202e, label: 'U+202E', token: '\u27E8U+202E\u27E9', index: 5 }),
    ]);
    expect(result.findings[0]!.message).toBe('A direction control character (U+202E), which can reorder the text around it, is in the text; it is shown as \u27E8U+202E\u27E9.');
    expect(result.findings[0]!.text).toEqual({ key: 'hidden_bidi', substitutions: ['U+202E', '\u27E8U+202E\u27E9'] });
    expect(result.segments.map((s) => (s.type === 'text' ? s.text : s.token)).join('')).toBe(result.display);
  });

  it('classifies each kind', () => {
    expect(classifyCodePoint(0x2067)).toBe('bidi-control');
    expect(classifyCodePoint(0x2028)).toBe('line-break');
    expect(classifyCodePoint(0x0b)).toBe('line-break');
    expect(classifyCodePoint(0x0c)).toBe('line-break');
    expect(classifyCodePoint(0x85)).toBe('line-break');
    expect(classifyCodePoint(0x07)).toBe('control');
    expect(classifyCodePoint(0x200b)).toBe('invisible');
    expect(classifyCodePoint(0xe0041)).toBe('invisible');
    expect(classifyCodePoint(0x2800)).toBe('invisible');
    expect(classifyCodePoint(0xfff9)).toBe('format');
    expect(classifyCodePoint(0xa0)).toBe('space');
    expect(classifyCodePoint(0x20)).toBeNull();
    expect(classifyCodePoint(0x09)).toBeNull();
    expect(classifyCodePoint(0x41)).toBeNull();
  });

  it('treats LF and CRLF as line endings in multi-line text, but not a lone CR', () => {
    expect(inspectText('a\nb\r\nc').findings).toEqual([]);
    expect(inspectText('a\rb').findings.map((f) => f.label)).toEqual(['U+000D']);
  });

  it('reports LF and CR in one-line text (a Company name)', () => {
    const result = inspectText('Acme\nEvil\r\nCorp', { singleLine: true });
    expect(result.findings.map((f) => f.label)).toEqual(['U+000A', 'U+000D', 'U+000A']);
    expect(result.display).toBe('Acme\u27E8U+000A\u27E9Evil\u27E8U+000D\u27E9\u27E8U+000A\u27E9Corp');
  });

  it('marks TAG characters, which can carry a hidden message, as a danger', () => {
    const hidden = Array.from('ignore the user', (c) => String.fromCodePoint(0xe0000 + c.codePointAt(0)!)).join('');
    const result = inspectText(`Acme${hidden}`);
    expect(result.findings).toHaveLength(15);
    expect(result.findings.every((f) => f.severity === 'danger')).toBe(true);
  });

  it('lets emoji presentation through: VS16 after a pictograph, ZWJ between pictographs', () => {
    expect(inspectText('\u2764\uFE0F \u{1F468}\u200D\u{1F469}\u200D\u{1F467} \u{1F44D}\u{1F3FD}\u200D\u{1F525}').findings).toEqual([]);
    expect(inspectText('A\uFE0F').findings.map((f) => f.label)).toEqual(['U+FE0F']);
    expect(inspectText('A\u200DB').findings.map((f) => f.label)).toEqual(['U+200D']);
    expect(inspectText('\u{1F468}\u200DB').findings.map((f) => f.label)).toEqual(['U+200D']);
  });

  it('handles astral characters: one finding, one token, correct index', () => {
    const result = inspectText('\u{1F600}\u{E0001}x');
    expect(result.findings).toEqual([expect.objectContaining({ codePoint: 0xe0001, index: 2 })]);
    expect(result.display).toBe('\u{1F600}\u27E8U+E0001\u27E9x');
  });

  it('revealHidden gives the same display as inspectText', () => {
    const text = 'a\u200Bb\u202E\r\u00A0\u{E0041}\u2764\uFE0F';
    expect(revealHidden(text)).toBe(inspectText(text).display);
    expect(revealHidden(text, { singleLine: true })).toBe(inspectText(text, { singleLine: true }).display);
  });
});

describe('every character of spoofing-characters.json', () => {
  it('has the 57 characters the corpus README counts', () => {
    expect(spoofing).toHaveLength(57);
  });

  for (const c of spoofing) {
    it(`${c.cp} ${c.name ?? ''} in a Company name is shown and reported`, () => {
      const result = inspectText(`Acme${c.char}Corp`, { singleLine: true });
      expect(result.display).toBe(`Acme${hiddenToken(cp(c.cp))}Corp`);
      expect(result.display).not.toContain(c.char);
      expect(result.findings.map((f) => f.codePoint)).toEqual([cp(c.cp)]);
    });
  }
});

describe('the exhaustive Unicode sets', () => {
  it('every Bidi_Control is a bidi-control finding', () => {
    for (const c of bidi) expect(classifyCodePoint(cp(c.cp)), c.cp).toBe('bidi-control');
  });

  it('every gc=Cf character that is not default-ignorable is reported', () => {
    for (const c of formats) expect(inspectText(`a${c.char}b`).findings.map((f) => f.label), c.cp).toEqual([c.cp]);
  });

  it('every Default_Ignorable_Code_Point (4,174, assigned or not) is reported', () => {
    let count = 0;
    for (const [from, to] of ignorable) {
      for (let code = cp(from); code <= cp(to); code += 1) {
        const char = String.fromCodePoint(code);
        // After a letter, so no emoji context applies.
        expect(inspectText(`a${char}b`).findings.map((f) => f.codePoint), from).toEqual([code]);
        count += 1;
      }
    }
    expect(count).toBe(4174);
  });
});

describe('inspectText edge cases (mutation testing)', () => {
  const labels = (text: string, singleLine = false) => inspectText(text, { singleLine }).findings.map((f) => f.label);

  it('a line feed is hidden only in one-line fields, by default it is not', () => {
    expect(classifyCodePoint(0x0a)).toBeNull();
    expect(classifyCodePoint(0x0a, true)).toBe('line-break');
    expect(revealHidden('a\nb')).toBe('a\nb');
    expect(revealHidden('a\nb', { singleLine: true })).toBe('a⟨U+000A⟩b');
  });

  it('only a CR before an LF is an ordinary line ending, not anything else before an LF', () => {
    expect(labels('a\u200B\nb')).toEqual(['U+200B']);
    expect(labels('a\r\nb')).toEqual([]);
    expect(labels('a\r\nb', true)).toEqual(['U+000D', 'U+000A']);
  });

  it('TAG characters, U+E0000 to U+E007F, are a danger; the next default-ignorable is not', () => {
    const severity = (cp: number) => inspectText(`a${String.fromCodePoint(cp)}b`).findings[0]?.severity;
    expect(severity(0xe0000)).toBe('danger');
    expect(severity(0xe007f)).toBe('danger');
    expect(severity(0xe0080)).toBe('warning');
    expect(severity(0x202e)).toBe('danger');
    expect(severity(0x00a0)).toBe('info');
    expect(severity(0x200b)).toBe('warning');
  });

  it('a variation selector after a pictograph is emoji presentation, anywhere else a finding', () => {
    expect(labels('\u2764\uFE0F love')).toEqual([]);
    expect(labels('\u2764\uFE0E')).toEqual([]);
    expect(labels('\u{1F44D}\uFE0F')).toEqual([]); // astral pictograph: the look-back reads the surrogate pair
    expect(labels('\u{1F400}\uFE0F')).toEqual([]); // its low surrogate is U+DC00
    expect(labels('\u{1F7FF}\uFE0F')).toEqual([]); // its low surrogate is U+DFFF
    expect(labels('\uFE0F')).toEqual(['U+FE0F']); // at the start: nothing before it
    expect(labels('x\uFE0F')).toEqual(['U+FE0F']);
    // A lone low surrogate after a pictograph is not a pictograph, and is not read as one.
    expect(labels('\u2764\uDC00\uFE0F')).toEqual(['U+FE0F']);
    // A lone high surrogate before a pictograph does not pair with it.
    expect(labels('\uD83D\u2764\uFE0F')).toEqual([]);
  });

  it('a ZWJ joins two pictographs, also over a VS16 or a skin tone; any other invisible character between them is a finding', () => {
    expect(labels('\u2764\u200D\u{1F525}')).toEqual([]);
    expect(labels('\u2764\uFE0F\u200D\u{1F525}')).toEqual([]);
    expect(labels('\u{1F468}\u{1F3FD}\u200D\u{1F4BB}')).toEqual([]);
    expect(labels('\u2764\u200Dx')).toEqual(['U+200D']);
    expect(labels('x\u200D\u2764')).toEqual(['U+200D']);
    expect(labels('\u200D\u2764')).toEqual(['U+200D']); // at the start: nothing before it
    expect(labels('\u2764\u200D')).toEqual(['U+200D']); // at the end: nothing after it
    expect(labels('\u2764\u200B\u2764')).toEqual(['U+200B']);
    expect(labels('\u2764\u2060\u2764')).toEqual(['U+2060']);
  });

  it('segments hold no empty text, and name hidden ones as such', () => {
    expect(inspectText('\u200B').segments.map((s) => s.type)).toEqual(['hidden']);
    expect(inspectText('\u200B\u200B').segments.map((s) => s.type)).toEqual(['hidden', 'hidden']);
    expect(inspectText('a\u200B').segments.map((s) => s.type)).toEqual(['text', 'hidden']);
    expect(inspectText('a\u{E0041}b').segments).toMatchObject([
      { type: 'text', text: 'a' },
      { type: 'hidden', token: '⟨U+E0041⟩' },
      { type: 'text', text: 'b' },
    ]);
    expect(inspectText('a\u{E0041}b').display).toBe('a⟨U+E0041⟩b');
    expect(revealHidden('a\u{E0041}b')).toBe('a⟨U+E0041⟩b');
    expect(classifyCodePoint(0xffff)).toBeNull();
  });
});
