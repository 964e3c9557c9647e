/**
 * inspectCompanyName: what in a Company's claimed name could make it pass for another (spec
 * section 5: the window shows the name; section 8: it is untrusted). UTS #39 mixed scripts and
 * confusables, and combining marks that disguise a letter.
 */
import { describe, expect, it } from 'vitest';
import { inspectCompanyName, inspectText, type NameFinding } from '../../src/summary/index.ts';
import { NAME_LOOKALIKES } from '../../src/summary/name-lookalikes.ts';
import { fixture } from './helpers.ts';

interface Confusable {
  cp: string;
  char: string;
  name: string;
}

const confusables = fixture<{ lookalikes: Record<string, Confusable[]> }>('unicode/ascii-confusables-uts39.json');
const spoofing = fixture<{ characters: Array<{ cp: string; char: string }> }>('unicode/spoofing-characters.json');
const nonAsciiConfusables = Object.values(confusables.lookalikes)
  .flat()
  .filter(({ char }) => char.codePointAt(0)! >= 0x80);

const codes = (name: string) => inspectCompanyName(name).map((f) => `${f.code}:${f.severity}`);
const dangers = (findings: NameFinding[]) => findings.filter((f) => f.severity === 'danger');

describe('NAME_LOOKALIKES', () => {
  it('is exactly the non-ASCII look-alikes of the fixture, mathematical styles left to NFKC', () => {
    const isMath = (cp: number) => cp >= 0x1d400 && cp <= 0x1d7ff;
    const plain = new Set(nonAsciiConfusables.map(({ char }) => char.codePointAt(0)!).filter((cp) => !isMath(cp)));
    const derived = new Set(plain);
    for (const { char } of nonAsciiConfusables) {
      const cp = char.codePointAt(0)!;
      if (!isMath(cp)) continue;
      const folded = char.normalize('NFKC');
      if (!/^[0-9A-Za-z]$/.test(folded) && !plain.has(folded.codePointAt(0)!)) derived.add(cp);
    }
    expect([...NAME_LOOKALIKES].sort((a, b) => a - b)).toEqual([...derived].sort((a, b) => a - b));
    expect(derived.size).toBe(534);
  });
});

describe('inspectCompanyName: honest names', () => {
  it.each([
    'Stormline Outfitters',
    'Caf\u00e9 M\u00fcller',
    'Z\u00fcrich Tours AG',
    '\u6771\u4eac\u30db\u30c6\u30eb', // 東京ホテル
    '\u30bd\u30cb\u30fc Sony', // ソニー Sony
    '\u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac \u03a4\u03b1\u03be\u03af\u03b4\u03b9\u03b1', // Ελληνικά Ταξίδια
    '\u041c\u043e\u0441\u043a\u0432\u0430 \u0422\u0443\u0440', // Москва Тур
    "O'Neill & Sons",
    'AT&T',
    '3M',
    'Samsung \uc0bc\uc131', // Latin with Hangul
    '\u53f0\u5317 \u3105\u3106 Taipei', // Latin, Han and Bopomofo
    '\uff2e\uff34\uff34\u30c9\u30b3\u30e2', // ＮＴＴドコモ: fullwidth Latin beside kana
    '2\u00d74 Lumber', // a sign that looks like "x", but not inside a word
    'Top 1\ufe0f\u20e3 Deals', // keycap emoji
    'Bj\u00f8rn & S\u00f6nner',
    '\u1eb9\u0301 Lagos', // Yoruba ẹ́: a mark with no precomposed form
    '\u05e9\u05bc\u05c1\u05b8\u05dc\u05d5\u05b9\u05dd', // Hebrew with three points on one letter
    '',
  ])('%j raises nothing', (name) => {
    expect(inspectCompanyName(name)).toEqual([]);
  });
});

describe('inspectCompanyName: mixed-script', () => {
  it('names the odd letter, its code point, its script and that it looks Latin', () => {
    expect(inspectCompanyName('Stormline \u041eutfitters')).toEqual([
      {
        code: 'mixed-script',
        severity: 'danger',
        message: 'The name mixes letters of different scripts (Latin, Cyrillic): \u201C\u041e\u201D (U+041E) is Cyrillic and only looks like a Latin letter or digit.',
        text: { key: 'name_mixedScriptsLookalike', substitutions: ['Latin, Cyrillic', '\u201C\u041e\u201D (U+041E)', 'Cyrillic'] },
      },
    ]);
  });

  it('reports a Greek letter among Latin ones, and one that looks like no Latin letter', () => {
    expect(codes('Stormline Outf\u03b9tters')).toEqual(['mixed-script:danger']);
    expect(inspectCompanyName('Stormline \u0416utfitters')[0]!.message).toBe(
      'The name mixes letters of different scripts (Latin, Cyrillic): \u201C\u0416\u201D (U+0416) is Cyrillic.',
    );
  });

  it('lists several odd letters, at most three, then an ellipsis', () => {
    const [finding] = inspectCompanyName('\u0421\u0442\u043e\u0440\u043c line Outfitters');
    expect(finding!.message).toBe(
      'The name mixes letters of different scripts (Latin, Cyrillic): \u201C\u0421\u201D (U+0421), \u201C\u0442\u201D (U+0442), \u201C\u043e\u201D (U+043E), \u2026 are not Latin.',
    );
  });

  it('takes the script with most letters as the main one', () => {
    expect(inspectCompanyName('\u041c\u043e\u0441\u043a\u0432\u0430 T\u0443\u0440')[0]!.message).toBe(
      'The name mixes letters of different scripts (Cyrillic, Latin): \u201CT\u201D (U+0054) is Latin.',
    );
  });

  it('reports kana with Hangul (each allowed beside Latin, not together) and uncommon scripts', () => {
    expect(codes('\u30bd\u30cb\u30fc \uc0bc\uc131')).toEqual(['mixed-script:danger']);
    expect(inspectCompanyName('\ua4d0ank')[0]!.message).toBe(
      'The name mixes letters of different scripts (Latin, uncommon-script): \u201C\ua4d0\u201D (U+A4D0) is from an uncommon script and only looks like a Latin letter or digit.',
    );
  });
});

describe('inspectCompanyName: confusable', () => {
  it.each([
    ['Latin alpha', 'P\u0251yments Ltd'],
    ['long s', 'Stormline Outfitter\u017f'],
    ['mathematical bold S', '\u{1D412}tormline'],
    ['fullwidth S in a Latin name', '\uff33tormline'],
    ['Kelvin sign', '\u212Aayak Tours'],
    ['a sign inside a word', 'Storm\u2223ine'],
    ['Han zero among Latin letters', 'T\u3007KY\u3007 Hotel'],
  ])('reports a look-alike: %s', (_what, name) => {
    expect(codes(name)).toEqual(['confusable:danger']);
  });

  it('says in words what the character is', () => {
    expect(inspectCompanyName('P\u0251yments Ltd')[0]!.message).toBe(
      '\u201C\u0251\u201D (U+0251) in the name only looks like an ordinary letter or digit; it is a different character.',
    );
  });

  it('warns, without alarm, about the Turkish dotless i', () => {
    expect(inspectCompanyName('Yap\u0131 Kredi')).toEqual([
      {
        code: 'confusable',
        severity: 'warning',
        message: '\u201C\u0131\u201D (U+0131) is a dotless i, a letter of Turkish and Azerbaijani that can also pass for \u201Ci\u201D.',
        text: { key: 'name_dotlessI', substitutions: ['\u201C\u0131\u201D (U+0131)'] },
      },
    ]);
  });

  it('reports a whole-script confusable: every letter Cyrillic and Latin-looking', () => {
    expect(inspectCompanyName('\u0420\u0430\u0443\u0440\u0430\u04cf')).toEqual([
      {
        code: 'confusable',
        severity: 'danger',
        message: 'Every letter of \u201C\u0420\u0430\u0443\u0440\u0430\u04cf\u201D is Cyrillic but looks like a Latin letter or digit.',
        text: { key: 'name_wholeScript', substitutions: ['\u201C\u0420\u0430\u0443\u0440\u0430\u04cf\u201D', 'Cyrillic'] },
      },
    ]);
    expect(codes('3\u041c')).toEqual(['confusable:danger']);
    expect(codes('\u0391\u0392\u0395')).toEqual(['confusable:danger']); // Greek capitals ΑΒΕ
  });

  it('does not report the Cyrillic letters of a mixed name twice', () => {
    expect(codes('\u0420\u0430\u0443pal')).toEqual(['mixed-script:danger']);
  });

  it('raises a danger for every UTS #39 look-alike placed inside a Latin word (dotless i: a warning)', () => {
    let checked = 0;
    for (const { cp, char } of nonAsciiConfusables) {
      const findings = inspectCompanyName(`Storm${char}line Outfitters`);
      if (char === '\u0131') expect(findings.map((f) => f.severity), cp).toEqual(['warning']);
      else expect(dangers(findings).length, cp).toBeGreaterThan(0);
      checked += 1;
    }
    expect(checked).toBe(1340);
  });
});

describe('inspectCompanyName: combining-mark', () => {
  /** Canonical_Combining_Class 1 in DerivedCombiningClass.txt (Unicode 17.0.0). */
  const OVERLAYS = [
    0x334, 0x335, 0x336, 0x337, 0x338, 0x1cd4, 0x1ce2, 0x1ce3, 0x1ce4, 0x1ce5, 0x1ce6, 0x1ce7, 0x1ce8, 0x20d2, 0x20d3, 0x20d8,
    0x20d9, 0x20da, 0x20e5, 0x20e6, 0x20ea, 0x20eb, 0x10a39, 0x16af0, 0x16af1, 0x16af2, 0x16af3, 0x16af4, 0x1bc9e, 0x1d167,
    0x1d168, 0x1d169,
  ];

  it('treats exactly the overlay marks (class 1) and enclosing marks as disguising, on their own', () => {
    const disguising: number[] = [];
    const enclosing = /^\p{Me}$/u;
    for (let cp = 0x300; cp < 0x110000; cp += 1) {
      const mark = String.fromCodePoint(cp);
      if (!/^\p{Mn}$/u.test(mark) && !enclosing.test(mark)) continue;
      const danger = inspectCompanyName(`Stor${mark}mline`).some((f) => f.code === 'combining-mark' && f.severity === 'danger');
      if (danger && !enclosing.test(mark)) disguising.push(cp);
      if (enclosing.test(mark)) expect(danger, mark.codePointAt(0)!.toString(16)).toBe(true);
    }
    expect(disguising).toEqual(OVERLAYS);
  });

  it('reports U+0336 on a letter with the letter and the mark named', () => {
    expect(inspectCompanyName('S\u0336tormline Outfitters')).toEqual([
      {
        code: 'combining-mark',
        severity: 'danger',
        message: '\u201CS\u0336\u201D (S + U+0336) has a mark drawn over or around it, which can disguise the letter.',
        text: { key: 'name_markDrawnOver', substitutions: ['\u201CS\u0336\u201D (S + U+0336)'] },
      },
    ]);
  });

  it('reports more than two marks on a Latin letter, more than four elsewhere', () => {
    expect(codes('Z\u0301\u0302\u0303algo')).toEqual(['combining-mark:danger']);
    expect(codes('Vi\u00ea\u0323t')).toEqual(['combining-mark:warning']); // two marks: decomposed only
    expect(codes('\u05e9\u05bc\u05c1\u05b8\u0591\u0592')).toEqual(['combining-mark:danger']);
  });

  it('warns about an accent NFC would compose, and shows the usual form', () => {
    expect(inspectCompanyName('Cafe\u0301')).toEqual([
      {
        code: 'combining-mark',
        severity: 'warning',
        message:
          '\u201Ce\u0301\u201D (e + U+0301) is a letter plus a separate accent mark: it looks like the usual \u201C\u00e9\u201D but is written differently, so it may not match the real name.',
        text: { key: 'name_decomposed', substitutions: ['\u201Ce\u0301\u201D (e + U+0301)', '\u201C\u00e9\u201D'] },
      },
    ]);
  });
});

describe('inspectCompanyName: the name as given, hidden characters', () => {
  it('leaves every hidden character to inspectText, and is not blinded by it', () => {
    for (const { cp, char } of spoofing.characters) {
      expect(inspectCompanyName(`Storm${char}line Outfitters`), cp).toEqual([]);
      expect(inspectText(`Storm${char}line Outfitters`, { singleLine: true }).findings.length, cp).toBeGreaterThan(0);
      expect(codes(`Storm${char}line \u041eutfitters`), cp).toEqual(['mixed-script:danger']);
      expect(codes(`S${char}\u0336tormline`), cp).toEqual(['combining-mark:danger']);
    }
  });

  it('shows hidden characters inside a message as tokens', () => {
    const [overlay] = inspectCompanyName('S\u200b\u0336tormline');
    expect(overlay!.message).toContain('\u201CS\u27e8U+200B\u27e9\u0336\u201D');
    const [whole] = inspectCompanyName('\u0420\u0430\u0443\u200b\u0440\u0430\u04cf');
    expect(whole!.message).toContain('\u0443\u27e8U+200B\u27e9\u0440');
    for (const finding of [overlay!, whole!]) expect(finding.message).not.toContain('\u200b');
  });
});
