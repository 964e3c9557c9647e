/**
 * The English messages.json holds every sentence of the review and summary checks, exactly as
 * the tables define it (`reviewChromeMessages`), so the window shows in English what the
 * `message` members say and translators start from the same text.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { reviewChromeMessages } from '../../src/review/messages.ts';

const LOCALES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'public', '_locales');

describe('public/_locales/en/messages.json', () => {
  it('has every review, checked, diff, hidden, name and origin message, with the text of the tables', () => {
    const english = JSON.parse(readFileSync(join(LOCALES, 'en', 'messages.json'), 'utf8')) as Record<string, unknown>;
    const expected = reviewChromeMessages();
    expect(Object.keys(expected).filter((key) => !(key in english))).toEqual([]);
    for (const [key, entry] of Object.entries(expected)) expect(english[key], key).toEqual(entry);
  });
});
