/**
 * src/summary/lookalikes.ts is data derived from the UTS #39 fixture: re-derive it here, so the
 * table in the source can't drift from its cited origin.
 */
import punycode from 'punycode.js';
import { describe, expect, it } from 'vitest';
import { ASCII_LOOKALIKES } from '../../src/summary/lookalikes.ts';
import { fixture } from './helpers.ts';

const confusables = fixture<{ lookalikes: Record<string, Array<{ cp: string; char: string }>> }>('unicode/ascii-confusables-uts39.json');

/** What a look-alike becomes inside a hostname (capitals are mapped to small letters); [] if refused. */
function inHostname(char: string): string[] {
  try {
    const label = punycode.toUnicode(new URL(`https://x${char}y.com`).hostname.split('.')[0]!);
    return Array.from(label.slice(1, -1));
  } catch {
    return [];
  }
}

describe('ASCII_LOOKALIKES', () => {
  it('is exactly the look-alikes of the fixture as they stand in a hostname, ASCII left out', () => {
    const derived = new Set<number>();
    for (const entries of Object.values(confusables.lookalikes)) {
      for (const { char } of entries) {
        for (const mapped of inHostname(char)) {
          const code = mapped.codePointAt(0)!;
          if (code >= 0x80) derived.add(code);
        }
      }
    }
    expect([...ASCII_LOOKALIKES].sort((a, b) => a - b)).toEqual([...derived].sort((a, b) => a - b));
    expect(derived.size).toBe(363);
  });
});
