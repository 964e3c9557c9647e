/**
 * Adversarial review, identity: a Company that imitates another in its name or its address
 * must get a warning in the approval window (spec section 5: the window shows who asks;
 * section 8: the name and the origin are untrusted).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { displayOrigin, inspectCompanyName } from '../../src/summary/index.ts';
import { scriptOf } from '../../src/summary/scripts.ts';
import { fixture } from '../summary/helpers.ts';

const confusables = fixture<{ lookalikes: Record<string, Array<{ char: string }>> }>('unicode/ascii-confusables-uts39.json');

/** The Cyrillic and Greek look-alikes of an ASCII letter or digit in the UTS #39 data. */
const CYRILLIC_GREEK = Object.values(confusables.lookalikes)
  .flat()
  .map(({ char }) => char)
  .filter((char) => scriptOf(char) === 'Cyrillic' || scriptOf(char) === 'Greek');

describe('identity spoofing', () => {
  it('finding 6: a Cyrillic "О" in "Stormline Оutfitters" is a danger', () => {
    const findings = inspectCompanyName('Stormline \u041eutfitters');
    expect(findings).toContainEqual(expect.objectContaining({ code: 'mixed-script', severity: 'danger' }));
    expect(findings[0]!.message).toContain('\u201C\u041e\u201D (U+041E)');
  });

  it('finding 6: an overlay U+0336 on a letter of "Stormline" is a danger', () => {
    const findings = inspectCompanyName('Storml\u0336ine Outfitters');
    expect(findings).toContainEqual(expect.objectContaining({ code: 'combining-mark', severity: 'danger' }));
    expect(findings[0]!.message).toContain('U+0336');
  });

  it('finding 6: https://stormline.example.checkout-secure.co says it is checkout-secure.co, not stormline.example', () => {
    const origin = displayOrigin('https://stormline.example.checkout-secure.co');
    const warning = origin.warnings.find((w) => w.code === 'subdomain-spells-domain');
    expect(warning?.message).toBe('This site is checkout-secure.co. The address starts with \u201Cstormline.example\u201D, which is not the site.');
    expect(origin).toMatchObject({ registrableDomain: 'checkout-secure.co', spelledDomain: 'stormline.example', ownerSentence: 'This site is checkout-secure.co.' });
  });

  it('finding 6: an honest ASCII name with one letter or digit replaced by a Cyrillic or Greek look-alike is always a danger', () => {
    expect(CYRILLIC_GREEK.length).toBeGreaterThan(50);
    const word = fc.stringMatching(/^[A-Za-z0-9]{1,10}$/);
    const separator = fc.constantFrom(' ', ' & ', "'", '-', '. ', ', ');
    const name = fc
      .tuple(word, fc.array(fc.tuple(separator, word), { maxLength: 4 }))
      .map(([first, rest]) => first + rest.map(([sep, w]) => sep + w).join(''));
    fc.assert(
      fc.property(name, fc.nat(), fc.constantFrom(...CYRILLIC_GREEK), (honest, pick, lookalike) => {
        expect(inspectCompanyName(honest)).toEqual([]);
        const alphanumerics = [...honest.matchAll(/[A-Za-z0-9]/g)].map((m) => m.index);
        const at = alphanumerics[pick % alphanumerics.length]!;
        const spoofed = honest.slice(0, at) + lookalike + honest.slice(at + 1);
        expect(inspectCompanyName(spoofed).some((f) => f.severity === 'danger')).toBe(true);
      }),
      { numRuns: 1_000 },
    );
  });
});
