import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { translator, type Translate } from '../../../src/extension/ui/i18n';

export interface ChromeMessage {
  message: string;
  placeholders?: Record<string, { content: string }>;
}

/** The extension's English messages, as the browser ships them. */
export function englishMessages(): Record<string, ChromeMessage> {
  return JSON.parse(readFileSync(resolve('public/_locales/en/messages.json'), 'utf8')) as Record<string, ChromeMessage>;
}

/**
 * `chrome.i18n.getMessage` for one entry: placeholders `$NAME$` (any case) become their content,
 * then `$1`…`$9` the substitutions and `$$` a dollar sign, in one pass, so a substitution is never
 * read again.
 */
export function fillMessage(entry: ChromeMessage, substitutions?: string | readonly string[]): string {
  const subs = substitutions === undefined ? [] : typeof substitutions === 'string' ? [substitutions] : substitutions;
  const placeholders = new Map(Object.entries(entry.placeholders ?? {}).map(([name, p]) => [name.toLowerCase(), p.content]));
  const expanded = entry.message.replace(/\$([A-Za-z0-9_@]+)\$/g, (whole, name: string) => placeholders.get(name.toLowerCase()) ?? whole);
  return expanded.replace(/\$(\$|[1-9])/g, (_, which: string) => (which === '$' ? '$' : (subs[Number(which) - 1] ?? '')));
}

/** `i18n.getMessage` over a table: unknown keys give '', as in the browser. */
export function chromeGetMessage(table: Record<string, ChromeMessage>) {
  return (key: string, substitutions?: string | readonly string[]): string => {
    const entry = table[key];
    return entry ? fillMessage(entry, substitutions) : '';
  };
}

/** A `Translate` over the shipped English messages. */
export function englishTranslate(): Translate {
  return translator(chromeGetMessage(englishMessages()), 'en');
}
