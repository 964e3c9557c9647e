/**
 * Spoofing checks for the Company's claimed name, which the approval window shows as the answer
 * to "who is asking?" (spec section 5; section 8: the name is untrusted). A Company that calls
 * itself "Stormline Оutfitters" with a Cyrillic "О" hopes to pass for one the user knows, so
 * the window warns about the characters a reader cannot tell apart. Rules, after UTS #39
 * (Unicode Security Mechanisms) and the model of Chromium's IDN policy, adapted to names:
 *
 * - mixed-script (danger): letters from scripts that UTS #39 section 5.2 "highly restrictive"
 *   does not allow together (it allows one script, or Latin with Han and kana, with Han and
 *   Bopomofo, or with Han and Hangul): Latin with a Cyrillic or Greek letter. The message names
 *   the letters outside the name's main script (the one with most letters, Latin on a tie).
 * - confusable (danger): a character that looks like an ASCII letter or digit (UTS #39
 *   confusables, `NAME_LOOKALIKES`, capitals as written) in a name with Latin letters, or of
 *   Latin or Common script itself ("ɑ", "ſ", "𝐒"); a sign ("∣", "×") only between two letters,
 *   so "2×4 Lumber" passes. Also a whole-script confusable: a name without Latin letters whose
 *   every letter is such a look-alike (all-Cyrillic "Раураӏ"). A name in one other script is
 *   fine otherwise: "Москва Тур" has look-alikes, but "к" and "в" look like no Latin letter.
 *   Two exceptions: fullwidth Latin (U+FF01-FF5E) beside Han, kana or Hangul is how those
 *   scripts set Latin text ("ＮＴＴドコモ"), and dotless "ı", a letter of Turkish and
 *   Azerbaijani, is a warning, not a danger.
 * - combining-mark: on one base character,
 *   - an overlay mark (Canonical_Combining_Class 1, e.g. U+0334-U+0338, U+20D2, U+20E5) or an
 *     enclosing mark (gc=Me, e.g. U+20DD; a keycap U+20E3 on 0-9, # or * excepted) is a danger:
 *     it is drawn across or around the letter and disguises it;
 *   - more than two marks on a Latin, Greek, Cyrillic or Common base, more than four on any
 *     other, is a danger (stacked marks): no European alphabet puts more than two on a letter
 *     (Vietnamese "ệ" has two), while Hebrew points or Thai tone marks may legitimately add up;
 *   - marks that NFC (UAX #15) would compose into the base are a warning: "Cafe" + U+0301 looks
 *     like "Café" but is another string, so an exact comparison with the real name fails (NFC
 *     merely reordering marks, as it does with Hebrew points, is not reported);
 *   - any other single accent is normal ("Café", "Müller" precomposed, or a mark with no
 *     precomposed form as in Yoruba).
 *
 * Hidden characters (bidi controls, zero-width and other invisible characters) are
 * `inspectText`'s findings, shown in the same window; this check does not report them again,
 * and looks through them, at the name exactly as sent (never normalized first), so a
 * zero-width space cannot split "Оutfitters" away from the check.
 */
import { NAME_LOOKALIKES } from './name-lookalikes.ts';
import { isHighlyRestrictive, scriptOf, type Script } from './scripts.ts';
import { joinList, type MessageText } from './message-text.ts';
import { summaryText } from './messages.ts';
import { classifyCodePoint, codePointLabel, revealHidden } from './text-inspection.ts';

export type NameFindingCode = 'mixed-script' | 'confusable' | 'combining-mark';

export interface NameFinding {
  code: NameFindingCode;
  severity: 'danger' | 'warning';
  /** One plain sentence; Company text in it has its hidden characters shown as tokens. */
  message: string;
  /** The same sentence as a messages.json name and its data, for the browser's language. */
  text: MessageText;
}

interface NameChar {
  ch: string;
  cp: number;
  script: Script;
}

interface MarkCluster {
  /** UTF-16 offset of the base in the name. */
  start: number;
  /** The base character, '' when the name starts with a mark. */
  base: string;
  baseScript: Script;
  /** Base and marks as sent (hidden characters between them included). */
  text: string;
  marks: string[];
}

const MARK = /^[\p{Mn}\p{Me}]$/u;
const ENCLOSING_MARK = /^\p{Me}$/u;
const LETTER = /^\p{L}$/u;
const LETTER_OR_NUMBER = /^[\p{L}\p{N}]$/u;
const ASCII_LETTER_OR_DIGIT = /^[0-9A-Za-z]$/;
const KEYCAP_BASE = /^[0-9#*]$/;
const KEYCAP = '\u20E3';
const ACUTE = '\u0301'; // Canonical_Combining_Class 230
const OVERLAY = '\u0334'; // Canonical_Combining_Class 1

/** Scripts that set Latin text in fullwidth forms as a matter of course. */
const EAST_ASIAN = new Set<Script>(['Han', 'Hiragana', 'Katakana', 'Hangul', 'Bopomofo']);
/** Scripts whose letters take at most two marks in ordinary spelling. */
const TWO_MARKS = new Set<Script>(['Latin', 'Greek', 'Cyrillic', 'Common', 'Inherited']);
/** Look-alikes that are letters of a living alphabet: reported as a warning. */
const ALPHABET_LETTERS = new Set([0x131]);

const MAX_LISTED = 3;

function quote(text: string): string {
  return `\u201C${revealHidden(text, { singleLine: true })}\u201D`;
}

/** Characters or clusters as one substitution: at most `MAX_LISTED`, then an ellipsis. */
function listed(items: readonly string[]): string {
  return joinList(items, MAX_LISTED);
}

/** A script as data: its Unicode name, or "uncommon-script" for the ones UTS #31 leaves out. */
function scriptName(script: Script): string {
  return script === 'Other' ? 'uncommon-script' : script;
}

function distinct(chars: readonly NameChar[]): NameChar[] {
  const seen = new Set<number>();
  return chars.filter((c) => {
    if (seen.has(c.cp)) return false;
    seen.add(c.cp);
    return true;
  });
}

function describeChar(c: NameChar): string {
  return `${quote(c.ch)} (${codePointLabel(c.cp)})`;
}

function hasScript(c: NameChar): boolean {
  return c.script !== 'Common' && c.script !== 'Inherited';
}

/**
 * Mathematical Alphanumeric Symbols are styled copies of Latin, Greek and digit characters:
 * NFKC gives the plain character, which is looked up instead (so the table stays small).
 */
function isLookalike(c: NameChar, eastAsian: boolean): boolean {
  if (c.cp < 0x80) return false;
  if (eastAsian && c.cp >= 0xff01 && c.cp <= 0xff5e) return false;
  if (c.cp >= 0x1d400 && c.cp <= 0x1d7ff) {
    const plain = c.ch.normalize('NFKC');
    return ASCII_LETTER_OR_DIGIT.test(plain) || NAME_LOOKALIKES.has(plain.codePointAt(0)!);
  }
  return NAME_LOOKALIKES.has(c.cp);
}

/** The characters a reader sees: hidden ones are `inspectText`'s to report. */
function visibleChars(name: string): NameChar[] {
  const chars: NameChar[] = [];
  for (const ch of name) {
    const cp = ch.codePointAt(0)!;
    if (classifyCodePoint(cp, true) === null) chars.push({ ch, cp, script: scriptOf(ch) });
  }
  return chars;
}

/** Letters outside the name's main script that UTS #39 does not allow beside it; null if none. */
function mixedScriptFinding(chars: readonly NameChar[], counts: ReadonlyMap<Script, number>): { finding: NameFinding; odd: NameChar[] } | null {
  const scripts = new Set(counts.keys());
  if (isHighlyRestrictive(scripts)) return null;
  let main: Script = 'Latin';
  let most = 0;
  for (const [script, n] of counts) {
    if (n > most || (n === most && script === 'Latin')) [main, most] = [script, n];
  }
  let oddScripts = new Set([...scripts].filter((s) => s !== main && !isHighlyRestrictive(new Set([main, s]))));
  // Each one allowed beside the main script, not all together (Hangul with kana): list them all.
  if (oddScripts.size === 0) oddScripts = new Set([...scripts].filter((s) => s !== main));
  const odd = chars.filter((c) => oddScripts.has(c.script));
  const shown = distinct(odd);
  const names = [main, ...oddScripts].map(scriptName);
  const scriptList = joinList(names);
  let said: Omit<NameFinding, 'code' | 'severity'>;
  if (shown.length === 1) {
    const [c] = shown as [NameChar];
    const looks = NAME_LOOKALIKES.has(c.cp);
    if (c.script === 'Other') {
      said = summaryText(looks ? 'name_mixedScriptsUncommonLookalike' : 'name_mixedScriptsUncommon', { scripts: scriptList, char: describeChar(c) });
    } else {
      said = summaryText(looks ? 'name_mixedScriptsLookalike' : 'name_mixedScripts', { scripts: scriptList, char: describeChar(c), script: c.script });
    }
  } else {
    said = summaryText('name_mixedScriptsMany', { scripts: scriptList, chars: listed(shown.map(describeChar)), script: scriptName(main) });
  }
  return { odd, finding: { code: 'mixed-script', severity: 'danger', ...said } };
}

function confusableFindings(name: string, chars: readonly NameChar[], counts: ReadonlyMap<Script, number>, reported: ReadonlySet<NameChar>): NameFinding[] {
  const hasLatin = counts.has('Latin');
  const eastAsian = [...counts.keys()].some((s) => EAST_ASIAN.has(s));
  const standIns = chars.filter((c, i) => {
    if (reported.has(c) || !isLookalike(c, eastAsian)) return false;
    if (!hasLatin && c.script !== 'Latin' && c.script !== 'Common') return false;
    // A sign imitates a letter only inside a word: "Storm∣ine", not "2×4".
    return LETTER_OR_NUMBER.test(c.ch) || (LETTER.test(chars[i - 1]?.ch ?? '') && LETTER.test(chars[i + 1]?.ch ?? ''));
  });
  const findings: NameFinding[] = [];
  const dangers = distinct(standIns.filter((c) => !ALPHABET_LETTERS.has(c.cp)));
  if (dangers.length === 1) {
    findings.push({ code: 'confusable', severity: 'danger', ...summaryText('name_confusable', { char: describeChar(dangers[0]!) }) });
  } else if (dangers.length > 1) {
    findings.push({ code: 'confusable', severity: 'danger', ...summaryText('name_confusableMany', { chars: listed(dangers.map(describeChar)) }) });
  }
  for (const c of distinct(standIns.filter((s) => ALPHABET_LETTERS.has(s.cp)))) {
    findings.push({ code: 'confusable', severity: 'warning', ...summaryText('name_dotlessI', { char: describeChar(c) }) });
  }
  if (findings.length > 0 || hasLatin || reported.size > 0) return findings;

  // Whole-script confusable (UTS #39 section 4): no Latin at all, every letter a look-alike.
  const letters = chars.filter(hasScript);
  if (letters.length === 0 || !letters.every((c) => isLookalike(c, eastAsian))) return findings;
  const scripts = [...counts.keys()];
  const [only] = scripts;
  let said: Omit<NameFinding, 'code' | 'severity'>;
  if (scripts.length > 1) said = summaryText('name_wholeScriptMany', { name: quote(name), scripts: joinList(scripts.map(scriptName)) });
  else if (only === 'Other') said = summaryText('name_wholeScriptUncommon', { name: quote(name) });
  else said = summaryText('name_wholeScript', { name: quote(name), script: scriptName(only!) });
  findings.push({ code: 'confusable', severity: 'danger', ...said });
  return findings;
}

/**
 * Canonical_Combining_Class 1, "Overlay" (UAX #44). The regex engine has no property for it,
 * but canonical reordering (UAX #15 section 3.11) shows it: a mark of class 1 to 229 moves
 * before U+0301 (class 230), and one of class 1 or less stays before U+0334 (class 1).
 */
function isOverlay(mark: string): boolean {
  const beforeAcute = `a${ACUTE}${mark}`.normalize('NFD') === `a${mark}${ACUTE}`;
  const notAfterOverlay = `a${mark}${OVERLAY}`.normalize('NFD') === `a${mark}${OVERLAY}`;
  return beforeAcute && notAfterOverlay;
}

/** Every base with at least one combining mark, hidden characters looked through. */
function markClusters(name: string): MarkCluster[] {
  const clusters: MarkCluster[] = [];
  let current: MarkCluster = { base: '', baseScript: 'Common', text: '', marks: [], start: 0 };
  let index = 0;
  const close = () => {
    if (current.marks.length > 0) clusters.push(current);
  };
  for (const ch of name) {
    const start = index;
    index += ch.length;
    if (classifyCodePoint(ch.codePointAt(0)!, true) !== null) continue;
    if (MARK.test(ch)) {
      current.marks.push(ch);
      current.text = name.slice(current.start, index);
      continue;
    }
    close();
    current = { base: ch, baseScript: scriptOf(ch), text: ch, marks: [], start };
  }
  close();
  return clusters;
}

/**
 * Whether NFC (UAX #15) would join a mark to its base ("e" + U+0301 into "é"). A mere
 * reordering of marks by canonical class, usual in Hebrew pointing, changes nothing visible.
 */
function composes(text: string): boolean {
  return Array.from(text.normalize('NFC')).length < Array.from(text).length;
}

function describeCluster(cluster: MarkCluster): string {
  const parts = cluster.base ? [revealHidden(cluster.base, { singleLine: true })] : [];
  for (const mark of cluster.marks) parts.push(codePointLabel(mark.codePointAt(0)!));
  return `${quote(cluster.text)} (${parts.join(' + ')})`;
}

function combiningMarkFindings(name: string): NameFinding[] {
  const drawnOver: MarkCluster[] = [];
  const stacked: MarkCluster[] = [];
  const decomposed: MarkCluster[] = [];
  for (const cluster of markClusters(name)) {
    const disguising = cluster.marks.some(
      (mark) => isOverlay(mark) || (ENCLOSING_MARK.test(mark) && !(mark === KEYCAP && KEYCAP_BASE.test(cluster.base))),
    );
    if (disguising) drawnOver.push(cluster);
    else if (cluster.marks.length > (TWO_MARKS.has(cluster.baseScript) ? 2 : 4)) stacked.push(cluster);
    else if (composes(cluster.text)) decomposed.push(cluster);
  }
  const findings: NameFinding[] = [];
  if (drawnOver.length > 0) {
    const chars = listed(drawnOver.map(describeCluster));
    findings.push({ code: 'combining-mark', severity: 'danger', ...summaryText(drawnOver.length === 1 ? 'name_markDrawnOver' : 'name_markDrawnOverMany', { chars }) });
  }
  if (stacked.length > 0) {
    const chars = listed(stacked.map(describeCluster));
    findings.push({ code: 'combining-mark', severity: 'danger', ...summaryText(stacked.length === 1 ? 'name_marksStacked' : 'name_marksStackedMany', { chars }) });
  }
  if (decomposed.length === 1) {
    const [c] = decomposed as [MarkCluster];
    findings.push({ code: 'combining-mark', severity: 'warning', ...summaryText('name_decomposed', { chars: describeCluster(c), usual: quote(c.text.normalize('NFC')) }) });
  } else if (decomposed.length > 1) {
    findings.push({ code: 'combining-mark', severity: 'warning', ...summaryText('name_decomposedMany', { chars: listed(decomposed.map(describeCluster)) }) });
  }
  return findings;
}

/**
 * What in a Company name could make it pass for another: mixed scripts, look-alike characters
 * and disguising combining marks. [] for an ordinary name in any script.
 */
export function inspectCompanyName(name: string): NameFinding[] {
  const chars = visibleChars(name);
  const counts = new Map<Script, number>();
  for (const c of chars) if (hasScript(c)) counts.set(c.script, (counts.get(c.script) ?? 0) + 1);
  const mixed = mixedScriptFinding(chars, counts);
  const reported = new Set(mixed?.odd ?? []);
  return [
    ...(mixed ? [mixed.finding] : []),
    ...confusableFindings(name, chars, counts, reported),
    ...combiningMarkFindings(name),
  ];
}
