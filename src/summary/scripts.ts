/**
 * Which writing system a character belongs to, and which mixes of them are ordinary: the part
 * of UTS #39 (Unicode Security Mechanisms) section 5.2, "Restriction-Level Detection", that
 * both the domain check (`displayOrigin`) and the Company name check (`inspectCompanyName`)
 * apply. Kept apart from both so the approval window can use it without the Public Suffix List.
 *
 * The Script property comes from the regex engine (`\p{Script=…}`), so it follows the engine's
 * Unicode version rather than a table of ours.
 */

/** UTS #31 Table 5, Recommended Scripts (besides Common and Inherited). */
export const RECOMMENDED_SCRIPTS = [
  'Latin', 'Greek', 'Cyrillic', 'Armenian', 'Hebrew', 'Arabic', 'Thaana', 'Devanagari', 'Bengali',
  'Gurmukhi', 'Gujarati', 'Oriya', 'Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Sinhala', 'Thai',
  'Lao', 'Tibetan', 'Myanmar', 'Georgian', 'Hangul', 'Ethiopic', 'Khmer', 'Hiragana', 'Katakana',
  'Bopomofo', 'Han',
] as const;

/**
 * A recommended script, Common (punctuation, symbols, ASCII digits), Inherited (most
 * combining marks, which take the script of their base), or Other: every script UTS #31
 * leaves out (historic and limited-use scripts), told apart no further.
 */
export type Script = (typeof RECOMMENDED_SCRIPTS)[number] | 'Common' | 'Inherited' | 'Other';

const SCRIPT_TESTS = RECOMMENDED_SCRIPTS.map((name) => ({ name, test: new RegExp(`^\\p{Script=${name}}$`, 'u') }));
const COMMON = /^\p{Script=Common}$/u;
const INHERITED = /^\p{Script=Inherited}$/u;

/** Script of one character (one code point). */
export function scriptOf(ch: string): Script {
  if (COMMON.test(ch)) return 'Common';
  if (INHERITED.test(ch)) return 'Inherited';
  for (const { name, test } of SCRIPT_TESTS) if (test.test(ch)) return name;
  return 'Other';
}

/** Script sets that UTS #39's "highly restrictive" level allows together. */
const ALLOWED_MIXES: ReadonlyArray<ReadonlySet<Script>> = [
  new Set<Script>(['Latin', 'Han', 'Hiragana', 'Katakana']),
  new Set<Script>(['Latin', 'Han', 'Bopomofo']),
  new Set<Script>(['Latin', 'Han', 'Hangul']),
];

/**
 * True when the scripts (Common and Inherited left out by the caller) may stand together at
 * UTS #39's "highly restrictive" level: one script, or one of the three East Asian mixes.
 */
export function isHighlyRestrictive(scripts: ReadonlySet<Script>): boolean {
  if (scripts.size <= 1) return true;
  return ALLOWED_MIXES.some((mix) => [...scripts].every((s) => mix.has(s)));
}
