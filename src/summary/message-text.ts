/**
 * Every sentence the review and summary checks write for the person exists in two forms made
 * from one definition: the English `message` (what the SDK and its tests read) and a `text`
 * the extension shows in the browser's language through `_locales/<lang>/messages.json`.
 *
 * A message is defined once, as an English template with named `{placeholders}`; the same
 * template fills the English `message` and becomes the Chrome messages.json entry, so the two
 * can't drift apart. Substitutions are data only (Company text with its hidden characters shown,
 * amounts, paths, code points): a sentence is never glued together from pieces in code. A list of
 * items is one substitution, joined with `LIST_SEPARATOR`; a count that a sentence states gets
 * one template per plural category (`<key>_one`, `<key>_other`), and is always substitution $1.
 */

import { CountersignError } from '../protocol/errors.ts';

export interface MessageText {
  /**
   * The Chrome i18n message name (letters, digits, underscore). For a counted message, the name
   * before the plural category: the entries are `<key>_one`, `<key>_other`.
   */
  key: string;
  /** Data values, in placeholder order ($1, $2 …). For a counted message $1 is the count, in English digits. */
  substitutions: string[];
  /** Only for a counted message: the count, to pick the plural category and to format it for the locale. */
  count?: number;
}

/** What a check produces for one sentence: spread into a finding beside its code and severity. */
export interface Localized<K extends string = string> {
  message: string;
  /** `key` typed as the message's own name, so a rule can be held to its sentences (src/review/rules.ts). */
  text: MessageText & { key: K };
}

/** One English template, or one per English plural category for a message that states a count. */
export type Template = string | { readonly one: string; readonly other: string };

export type MessageTable = Readonly<Record<string, Template>>;

/** A messages.json entry (Chrome and Firefox `i18n` format). */
export interface ChromeMessage {
  message: string;
  placeholders?: Record<string, { content: string }>;
}

/** How a list of data items (labels, amounts, characters) is joined into one substitution. */
export const LIST_SEPARATOR = ', ';
/** Appended to a list cut short: the items beyond are not named. */
export const LIST_MORE = `${LIST_SEPARATOR}\u2026`;

/** At most `max` items joined with `LIST_SEPARATOR`, then `LIST_MORE` when some were left out. */
export function joinList(items: readonly string[], max = Infinity): string {
  const shown = items.slice(0, max);
  return shown.join(LIST_SEPARATOR) + (items.length > shown.length ? LIST_MORE : '');
}

/** Placeholder names in a template, `{name}`, in the order they first appear. */
type Names<S> = S extends `${string}{${infer Name}}${infer Rest}` ? Name | Names<Rest> : never;

type ValuesOf<T> = T extends string
  ? Record<Names<T>, string>
  : T extends { one: infer One; other: infer Other }
    ? Record<Exclude<Names<One> | Names<Other>, 'count'>, string> & { count: number }
    : never;

type ArgsOf<T> = [keyof ValuesOf<T>] extends [never] ? [] : [values: ValuesOf<T>];

const PLACEHOLDER = /\{([a-z][a-z0-9_]*)\}/g;
const KEY = /^[A-Za-z0-9_]+$/;
/** `getMessage` fills $1 to $9 only. */
const MAX_SUBSTITUTIONS = 9;
const ENGLISH_PLURALS = new Intl.PluralRules('en');
const ENGLISH_NUMBERS = new Intl.NumberFormat('en-US');

function namesIn(template: string): string[] {
  return [...new Set(Array.from(template.matchAll(PLACEHOLDER), (m) => m[1]!))];
}

/** The substitution order: first appearance, and the count first in a counted message. */
export function placeholderOrder(template: Template): string[] {
  if (typeof template === 'string') return namesIn(template);
  return ['count', ...namesIn(template.other + template.one).filter((n) => n !== 'count')];
}

function fill(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(PLACEHOLDER, (_, name: string) => values[name]!);
}

/**
 * The builder of one table's messages: `say('review_x', { path, amount })` gives the English
 * `message` and its `text`. The placeholder names are checked by the compiler.
 */
export function messageBuilder<T extends MessageTable>(table: T) {
  return function say<K extends keyof T & string>(key: K, ...args: ArgsOf<T[K]>): Localized<K> {
    const template = table[key]!;
    const given = (args[0] ?? {}) as Record<string, string | number>;
    const values: Record<string, string> = {};
    for (const [name, value] of Object.entries(given)) values[name] = typeof value === 'number' ? ENGLISH_NUMBERS.format(value) : value;
    const substitutions = placeholderOrder(template).map((name) => values[name] ?? '');
    if (typeof template === 'string') return { message: fill(template, values), text: { key, substitutions } };
    const count = given.count as number;
    const form = ENGLISH_PLURALS.select(count) === 'one' ? template.one : template.other;
    return { message: fill(form, values), text: { key, substitutions, count } };
  };
}

function chromeEntry(template: string, order: readonly string[]): ChromeMessage {
  // A literal `$` in the English is `$$` in messages.json; placeholders are `$NAME$`.
  const message = template.replace(/\$/g, '$$$$').replace(PLACEHOLDER, (_, name: string) => `$${name.toUpperCase()}$`);
  const names = namesIn(template);
  if (names.length === 0) return { message };
  return { message, placeholders: Object.fromEntries(names.map((name) => [name, { content: `$${order.indexOf(name) + 1}` }])) };
}

/** The messages.json entries of a table: one per message, `<key>_one` and `<key>_other` for a counted one. */
export function chromeMessages(table: MessageTable): Record<string, ChromeMessage> {
  const out: Record<string, ChromeMessage> = {};
  for (const [key, template] of Object.entries(table)) {
    const order = placeholderOrder(template);
    if (!KEY.test(key)) throw new CountersignError('ERR_ARGUMENT_INVALID', `table: expected message names of letters, digits and underscores, got ${JSON.stringify(key)}`);
    if (order.length > MAX_SUBSTITUTIONS) {
      throw new CountersignError('ERR_ARGUMENT_INVALID', `table.${key}: expected at most ${MAX_SUBSTITUTIONS} placeholders, got ${order.length}`);
    }
    if (typeof template === 'string') out[key] = chromeEntry(template, order);
    else {
      out[`${key}_one`] = chromeEntry(template.one, order);
      out[`${key}_other`] = chromeEntry(template.other, order);
    }
  }
  return out;
}

/**
 * The sentence in the page's language: `getMessage` is the browser's `i18n.getMessage` (or a
 * table in tests). A counted message uses the locale's plural category, falling back to
 * `_other`, with the count formatted for the locale; a missing message shows its key.
 */
export function localize(text: MessageText, getMessage: (key: string, substitutions: string[]) => string, locale: string): string {
  if (text.count === undefined) return getMessage(text.key, text.substitutions) || text.key;
  const substitutions = [new Intl.NumberFormat(locale).format(text.count), ...text.substitutions.slice(1)];
  const category = new Intl.PluralRules(locale).select(text.count);
  return getMessage(`${text.key}_${category}`, substitutions) || getMessage(`${text.key}_other`, substitutions) || text.key;
}
