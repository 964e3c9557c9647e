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

describe('inspectCompanyName: which letters a mixed-script finding names', () => {
  const mixed = (key: string, substitutions: string[], message: string): NameFinding => ({
    code: 'mixed-script',
    severity: 'danger',
    message,
    text: { key, substitutions },
  });

  it('names a repeated odd letter once', () => {
    expect(inspectCompanyName('G\u043e\u043egle')).toEqual([
      mixed(
        'name_mixedScriptsLookalike',
        ['Latin, Cyrillic', '\u201C\u043e\u201D (U+043E)', 'Cyrillic'],
        'The name mixes letters of different scripts (Latin, Cyrillic): \u201C\u043e\u201D (U+043E) is Cyrillic and only looks like a Latin letter or digit.',
      ),
    ]);
  });

  it('takes Latin as the main script on a tie, wherever the Latin letters stand', () => {
    expect(inspectCompanyName('ab\u0416\u0416')).toEqual([
      mixed(
        'name_mixedScripts',
        ['Latin, Cyrillic', '\u201C\u0416\u201D (U+0416)', 'Cyrillic'],
        'The name mixes letters of different scripts (Latin, Cyrillic): \u201C\u0416\u201D (U+0416) is Cyrillic.',
      ),
    ]);
    expect(inspectCompanyName('\u0416\u0416ab')[0]!.text.substitutions[0]).toBe('Latin, Cyrillic');
  });

  it('takes the first of two equally used non-Latin scripts as the main one', () => {
    expect(inspectCompanyName('\u0416\u0416\u03bb\u03bb')[0]!.text).toEqual({
      key: 'name_mixedScripts',
      substitutions: ['Cyrillic, Greek', '\u201C\u03bb\u201D (U+03BB)', 'Greek'],
    });
  });

  it('leaves out a script allowed beside the main one (Han beside Latin) and names only the other', () => {
    expect(inspectCompanyName('Stormline\u6771\u0416')).toEqual([
      mixed(
        'name_mixedScripts',
        ['Latin, Cyrillic', '\u201C\u0416\u201D (U+0416)', 'Cyrillic'],
        'The name mixes letters of different scripts (Latin, Cyrillic): \u201C\u0416\u201D (U+0416) is Cyrillic.',
      ),
    ]);
  });

  it('names every other script when each is allowed beside Latin but not together (kana and Hangul)', () => {
    expect(inspectCompanyName('Stormline \u30bd \uc0bc')).toEqual([
      mixed(
        'name_mixedScriptsMany',
        ['Latin, Katakana, Hangul', '\u201C\u30bd\u201D (U+30BD), \u201C\uc0bc\u201D (U+C0BC)', 'Latin'],
        'The name mixes letters of different scripts (Latin, Katakana, Hangul): \u201C\u30bd\u201D (U+30BD), \u201C\uc0bc\u201D (U+C0BC) are not Latin.',
      ),
    ]);
  });
});

describe('inspectCompanyName: which characters count as look-alikes', () => {
  it('reports a mathematical letter beside Han, where only fullwidth forms are excused', () => {
    expect(inspectCompanyName('\u6771\u4eac\u{1D412}hop')).toEqual([
      {
        code: 'confusable',
        severity: 'danger',
        message: '\u201C\u{1D412}\u201D (U+1D412) in the name only looks like an ordinary letter or digit; it is a different character.',
        text: { key: 'name_confusable', substitutions: ['\u201C\u{1D412}\u201D (U+1D412)'] },
      },
    ]);
  });

  it.each([
    ['a squared capital A (outside the mathematical block, not a look-alike)', 'Sto\u{1F130}mline'],
    ['a mathematical bold pi (its plain form looks like no Latin letter)', 'Sto\u{1D6D1}mline'],
    ['a look-alike sign after the last letter', 'Lumber\u22232'],
    ['a look-alike sign before the first letter', '2\u2223Lumber'],
    ['a look-alike sign at the start of the name', '\u2223Storm'],
    ['a look-alike sign at the end of the name', 'Storm\u2223'],
  ])('raises nothing for %s', (_what, name) => {
    expect(inspectCompanyName(name)).toEqual([]);
  });

  it('reports a Latin-looking symbol in a name of another script', () => {
    expect(codes('\u041c\u043e\u0441\u043a\u0432\u0430 \u{1D412}')).toEqual(['confusable:danger']);
  });

  it('reports a sign between two letters with a line feed between them', () => {
    expect(codes('Storm\u2223\nine')).toEqual(['confusable:danger']);
  });

  it('lists several look-alikes in one finding', () => {
    expect(inspectCompanyName('P\u0251yments Lt\u017f')).toEqual([
      {
        code: 'confusable',
        severity: 'danger',
        message: '\u201C\u0251\u201D (U+0251), \u201C\u017f\u201D (U+017F) in the name only look like ordinary letters or digits; they are different characters.',
        text: { key: 'name_confusableMany', substitutions: ['\u201C\u0251\u201D (U+0251), \u201C\u017f\u201D (U+017F)'] },
      },
    ]);
  });

  it('does not add a whole-script finding to a Latin name made only of look-alikes', () => {
    expect(codes('\u0251\u017f')).toEqual(['confusable:danger']);
  });

  it('does not add a whole-script finding when a look-alike symbol is already reported', () => {
    expect(codes('\u0420\u0430\u0443\u0440\u0430\u04cf \u{1D412}')).toEqual(['confusable:danger']);
    expect(inspectCompanyName('\u0420\u0430\u0443\u0440\u0430\u04cf \u{1D412}')[0]!.text.key).toBe('name_confusable');
  });

  it('does not add a whole-script finding when the scripts are already reported as mixed', () => {
    expect(inspectCompanyName('\u0420\u0430\u0443\u0440\u0430\u0391\u0392')).toEqual([
      {
        code: 'mixed-script',
        severity: 'danger',
        message: 'The name mixes letters of different scripts (Cyrillic, Greek): \u201C\u0391\u201D (U+0391), \u201C\u0392\u201D (U+0392) are not Cyrillic.',
        text: { key: 'name_mixedScriptsMany', substitutions: ['Cyrillic, Greek', '\u201C\u0391\u201D (U+0391), \u201C\u0392\u201D (U+0392)', 'Cyrillic'] },
      },
    ]);
  });

  it('reports a whole-script confusable in an uncommon script without naming it', () => {
    expect(inspectCompanyName('\ua4d0\ua4ee')).toEqual([
      {
        code: 'confusable',
        severity: 'danger',
        message: 'Every letter of \u201C\ua4d0\ua4ee\u201D is from an uncommon script but looks like a Latin letter or digit.',
        text: { key: 'name_wholeScriptUncommon', substitutions: ['\u201C\ua4d0\ua4ee\u201D'] },
      },
    ]);
  });

  it('shows a line feed in the quoted name as a token', () => {
    expect(inspectCompanyName('\u0420\u0430\u0443\u0440\u0430\u04cf\n')).toEqual([
      {
        code: 'confusable',
        severity: 'danger',
        message: 'Every letter of \u201C\u0420\u0430\u0443\u0440\u0430\u04cf\u27e8U+000A\u27e9\u201D is Cyrillic but looks like a Latin letter or digit.',
        text: { key: 'name_wholeScript', substitutions: ['\u201C\u0420\u0430\u0443\u0440\u0430\u04cf\u27e8U+000A\u27e9\u201D', 'Cyrillic'] },
      },
    ]);
  });
});

describe('inspectCompanyName: combining marks, exactly', () => {
  const mark = (severity: 'danger' | 'warning', key: string, substitutions: string[], message: string): NameFinding => ({
    code: 'combining-mark',
    severity,
    message,
    text: { key, substitutions },
  });

  it('keeps a line feed between letter and mark inside the cluster, shown as a token', () => {
    expect(inspectCompanyName('S\n\u0336tormline')).toEqual([
      mark(
        'danger',
        'name_markDrawnOver',
        ['\u201CS\u27e8U+000A\u27e9\u0336\u201D (S + U+0336)'],
        '\u201CS\u27e8U+000A\u27e9\u0336\u201D (S + U+0336) has a mark drawn over or around it, which can disguise the letter.',
      ),
    ]);
  });

  it('describes a mark at the very start of the name by the mark alone', () => {
    expect(inspectCompanyName('\u0336abc')).toEqual([
      mark('danger', 'name_markDrawnOver', ['\u201C\u0336\u201D (U+0336)'], '\u201C\u0336\u201D (U+0336) has a mark drawn over or around it, which can disguise the letter.'),
    ]);
  });

  it('allows two marks at most at the very start of the name', () => {
    expect(inspectCompanyName('\u0301\u0302\u0303abc')).toEqual([
      mark(
        'danger',
        'name_marksStacked',
        ['\u201C\u0301\u0302\u0303\u201D (U+0301 + U+0302 + U+0303)'],
        '\u201C\u0301\u0302\u0303\u201D (U+0301 + U+0302 + U+0303) has marks stacked on one character, which can hide what the letter is.',
      ),
    ]);
  });

  it('excuses only the keycap on a digit, not another enclosing mark', () => {
    expect(inspectCompanyName('Top 1\u20dd Deals')).toEqual([
      mark('danger', 'name_markDrawnOver', ['\u201C1\u20dd\u201D (1 + U+20DD)'], '\u201C1\u20dd\u201D (1 + U+20DD) has a mark drawn over or around it, which can disguise the letter.'),
    ]);
  });

  it('reports an overlay mark even beside an ordinary accent on the same letter', () => {
    expect(inspectCompanyName('S\u0301\u0336tormline')).toEqual([
      mark(
        'danger',
        'name_markDrawnOver',
        ['\u201CS\u0301\u0336\u201D (S + U+0301 + U+0336)'],
        '\u201CS\u0301\u0336\u201D (S + U+0301 + U+0336) has a mark drawn over or around it, which can disguise the letter.',
      ),
    ]);
  });

  it('accepts two marks on a Latin letter, only warning that NFC would compose them', () => {
    expect(inspectCompanyName('Vie\u0323\u0302t')).toEqual([
      mark(
        'warning',
        'name_decomposed',
        ['\u201Ce\u0323\u0302\u201D (e + U+0323 + U+0302)', '\u201C\u1ec7\u201D'],
        '\u201Ce\u0323\u0302\u201D (e + U+0323 + U+0302) is a letter plus a separate accent mark: it looks like the usual \u201C\u1ec7\u201D but is written differently, so it may not match the real name.',
      ),
    ]);
  });

  it('reports several letters with marks drawn over them in one finding', () => {
    expect(inspectCompanyName('S\u0336tormlin\u0336e')).toEqual([
      mark(
        'danger',
        'name_markDrawnOverMany',
        ['\u201CS\u0336\u201D (S + U+0336), \u201Cn\u0336\u201D (n + U+0336)'],
        '\u201CS\u0336\u201D (S + U+0336), \u201Cn\u0336\u201D (n + U+0336) have marks drawn over or around them, which can disguise the letters.',
      ),
    ]);
  });

  it('reports one letter with stacked marks', () => {
    expect(inspectCompanyName('Z\u0301\u0302\u0303algo')).toEqual([
      mark(
        'danger',
        'name_marksStacked',
        ['\u201CZ\u0301\u0302\u0303\u201D (Z + U+0301 + U+0302 + U+0303)'],
        '\u201CZ\u0301\u0302\u0303\u201D (Z + U+0301 + U+0302 + U+0303) has marks stacked on one character, which can hide what the letter is.',
      ),
    ]);
  });

  it('reports several letters with stacked marks in one finding', () => {
    expect(inspectCompanyName('Z\u0301\u0302\u0303alg\u0301\u0302\u0303o')).toEqual([
      mark(
        'danger',
        'name_marksStackedMany',
        ['\u201CZ\u0301\u0302\u0303\u201D (Z + U+0301 + U+0302 + U+0303), \u201Cg\u0301\u0302\u0303\u201D (g + U+0301 + U+0302 + U+0303)'],
        '\u201CZ\u0301\u0302\u0303\u201D (Z + U+0301 + U+0302 + U+0303), \u201Cg\u0301\u0302\u0303\u201D (g + U+0301 + U+0302 + U+0303) have marks stacked on one character, which can hide what the letter is.',
      ),
    ]);
  });

  it('warns once about several letters written with separate accents', () => {
    expect(inspectCompanyName('Cafe\u0301 Mu\u0308ller')).toEqual([
      mark(
        'warning',
        'name_decomposedMany',
        ['\u201Ce\u0301\u201D (e + U+0301), \u201Cu\u0308\u201D (u + U+0308)'],
        '\u201Ce\u0301\u201D (e + U+0301), \u201Cu\u0308\u201D (u + U+0308) are letters plus separate accent marks: they look usual but are written differently, so they may not match the real name.',
      ),
    ]);
  });
});
