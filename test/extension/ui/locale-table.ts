import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { translator, type Translate } from '../../../src/extension/ui/i18n';

interface ChromeMessage {
  message: string;
  placeholders?: Record<string, { content: string }>;
}

/** The extension's English messages, as the browser ships them. */
export function englishMessages(): Record<string, ChromeMessage> {
  return JSON.parse(readFileSync(resolve('public/_locales/en/messages.json'), 'utf8')) as Record<string, ChromeMessage>;
}

/**
 * `i18n.getMessage` as Chrome implements it: named placeholders `$NAME$` take their content,
 * `$1`…`$9` in the content take the substitutions, `$$` is a dollar sign; unknown keys give ''.
 */
export function chromeGetMessage(table: Record<string, ChromeMessage>) {
  return (key: string, substitutions?: string | string[]): string => {
    const entry = table[key];
    if (!entry) return '';
    const subs = substitutions === undefined ? [] : Array.isArray(substitutions) ? substitutions : [substitutions];
    const fill = (text: string) => text.replace(/\$(\d)/g, (_, n: string) => subs[Number(n) - 1] ?? '');
    return entry.message
      .replace(/\$([A-Za-z0-9_@]+)\$/g, (whole, name: string) => {
        const placeholder = Object.entries(entry.placeholders ?? {}).find(([k]) => k.toLowerCase() === name.toLowerCase());
        return placeholder ? fill(placeholder[1].content) : whole;
      })
      .replace(/\$\$/g, '$');
  };
}

/** A `Translate` over the shipped English messages. */
export function englishTranslate(): Translate {
  return translator(chromeGetMessage(englishMessages()), 'en');
}
