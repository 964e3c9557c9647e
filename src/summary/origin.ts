/**
 * How the approval window shows where a Company is: scheme, host and port, with the
 * registrable domain (the part a registrar sold to one owner) given separately so the window
 * can mark it. Spec section 5: the Personal Agent MUST show the Company's name; we show it with
 * the origin the agent resolved (docs/core-assumptions.md, "The Company's name"), so the user can
 * tell shop.example from shop.example.evil.test.
 *
 * Internationalised names follow the model of Chromium's IDN display policy: a name is shown
 * in Unicode only when every label is safe, otherwise the whole host is shown as the URL
 * parser's ASCII (punycode) form, with the reasons as warnings. Per label:
 * - scripts (UTS #39 "highly restrictive"): one script, or Latin with Han and Japanese kana,
 *   Latin with Han and Bopomofo, or Latin with Han and Hangul;
 * - only scripts UTS #31 recommends for identifiers (historic and rare scripts are punycode);
 * - no whole-script confusable: a non-Latin label made only of ASCII look-alikes (Cyrillic
 *   "аррӏе"), unless the top-level domain is in that script too;
 * - no Latin look-alike (Latin "ɑ" for "a", dotless "ı"), from UTS #39 confusables;
 * - no IDNA deviation characters (ß, ς, ZWJ, ZWNJ): older resolvers map them to other names;
 * - no digits from two numbering systems, no symbols, no combining mark on a Latin, Greek or
 *   Cyrillic letter, a digit or a hyphen.
 * Chromium also compares each name's "skeleton" with a list of popular domains; we have no such
 * list, so a single-script Latin name with accents (e.g. "googlé") stays Unicode.
 *
 * The registrable domain comes from the Public Suffix List in `tldts` (never hand-rolled),
 * private section included: user.github.io and evil.github.io have different owners. It is
 * also said in words (`ownerSentence`), and when the subdomain reads as a domain of its own
 * (stormline.example.checkout-secure.co) a warning says which site it is and which it is not.
 */
import punycode from 'punycode.js';
import { parse as parseHost } from 'tldts';
import { CountersignError } from '../protocol/errors.ts';
import { describeNumber, describeValue } from '../protocol/issues.ts';
import { ASCII_LOOKALIKES } from './lookalikes.ts';
import type { Localized, MessageText } from './message-text.ts';
import { summaryText, type SummaryMessageKey } from './messages.ts';
import { isHighlyRestrictive, scriptOf, type Script } from './scripts.ts';

export type OriginWarningCode =
  | 'insecure-scheme'
  | 'credentials-in-url'
  | 'ip-address'
  | 'no-registrable-domain'
  | 'subdomain-elided'
  | 'subdomain-spells-domain'
  | 'idn-mixed-script'
  | 'idn-uncommon-script'
  | 'idn-whole-script-confusable'
  | 'idn-lookalike'
  | 'idn-deviation'
  | 'idn-mixed-digits'
  | 'idn-invalid';

export interface OriginWarning {
  code: OriginWarningCode;
  message: string;
  /** The same sentence as a messages.json name and its data, for the browser's language. */
  text: MessageText;
}

export interface DisplayOrigin {
  scheme: 'http' | 'https';
  /** The host as shown: Unicode when every label is safe, otherwise ASCII (punycode). */
  host: string;
  /** The host as the URL parser gives it (ASCII, punycode for internationalised labels). */
  asciiHost: string;
  /** True when the host is shown in punycode because a label failed the IDN policy. */
  punycode: boolean;
  /** Everything left of the registrable domain, as shown: its start elided if it is long. */
  subdomain: string;
  /** The same, never elided (for a tooltip). */
  fullSubdomain: string;
  /** Always whole. The host itself for an IP address or a name with no public suffix. */
  registrableDomain: string;
  /** '' for the scheme's default port. */
  port: string;
  /** `https://…long.sub.shop.example.co.uk:8443`, one line of text. */
  display: string;
  /**
   * The domain that the subdomain reads as, when it reads as one: `stormline.example` in
   * stormline.example.checkout-secure.co (warning 'subdomain-spells-domain'). Otherwise null.
   */
  spelledDomain: string | null;
  /** The owner in words, for the window to show beside the bold domain: "This site is checkout-secure.co." */
  ownerSentence: string;
  /** `ownerSentence` as a messages.json name and its data. */
  ownerText: MessageText;
  warnings: OriginWarning[];
}

export interface DisplayOriginOptions {
  /**
   * Most characters of the subdomain shown, the ellipsis included. The start is cut, so the
   * part next to the registrable domain stays, and the registrable domain is never cut.
   * Default 24.
   */
  maxSubdomainLength?: number;
}

const DEFAULT_MAX_SUBDOMAIN = 24;
const ELLIPSIS = '\u2026';

const DECIMAL_DIGIT = /^\p{Nd}$/u;
const KANA = /[\p{Script=Katakana}\p{Script=Hiragana}]/u;

/** IDNA2008 deviations: UTS #46 transitional processing maps them away, to another name. */
const DEVIATIONS = new Set([0xdf, 0x3c2, 0x200c, 0x200d]);

const MIDDLE_DOT = 0xb7;
const KATAKANA_PROLONGED_SOUND = 0x30fc;

/** The fixed sentence of each warning, in `SUMMARY_MESSAGES`. */
const MESSAGE_KEYS = {
  'insecure-scheme': 'origin_insecureScheme',
  'credentials-in-url': 'origin_credentialsInUrl',
  'ip-address': 'origin_ipAddress',
  'no-registrable-domain': 'origin_noRegistrableDomain',
  'subdomain-elided': 'origin_subdomainElided',
  'idn-mixed-script': 'origin_idnMixedScript',
  'idn-uncommon-script': 'origin_idnUncommonScript',
  'idn-whole-script-confusable': 'origin_idnWholeScriptConfusable',
  'idn-lookalike': 'origin_idnLookalike',
  'idn-deviation': 'origin_idnDeviation',
  'idn-mixed-digits': 'origin_idnMixedDigits',
  'idn-invalid': 'origin_idnInvalid',
} as const satisfies Record<FixedWarningCode, SummaryMessageKey>;

/** Every warning but the one whose sentence names the domains. */
type FixedWarningCode = Exclude<OriginWarningCode, 'subdomain-spells-domain'>;

function warning(code: FixedWarningCode): OriginWarning {
  return { code, ...summaryText(MESSAGE_KEYS[code]) };
}

/** Why one Unicode label must not be shown as Unicode (empty when it may be). */
function labelProblems(label: string, tldScripts: ReadonlySet<Script>): FixedWarningCode[] {
  const problems = new Set<FixedWarningCode>();
  const scripts = new Set<Script>();
  const digitSystems = new Set<number>();
  const chars = Array.from(label);
  let allLookalike = true;
  let anyLookalike = false;
  let previousScript: Script | undefined;

  chars.forEach((ch, i) => {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80) {
      if (cp >= 0x30 && cp <= 0x39) digitSystems.add(0);
      else if (cp !== 0x2d) {
        scripts.add('Latin');
        allLookalike = false;
      }
      // A mark over an ASCII letter, digit or hyphen is flagged alike (below), so all of ASCII
      // counts as Latin here.
      previousScript = 'Latin';
      return;
    }
    if (DEVIATIONS.has(cp)) problems.add('idn-deviation');
    // Digit systems told apart by their 16-code-point block: the 0-9 run of every recommended
    // script sits inside one such block (fullwidth and mathematical digits become ASCII).
    if (DECIMAL_DIGIT.test(ch)) digitSystems.add(cp >> 4);
    const script = scriptOf(ch);
    if (script === 'Common') {
      // The two Common characters real names need: the Japanese long-vowel mark among kana,
      // and the Catalan middle dot in "l·l". Every other symbol in a name imitates something.
      const kanaContext = cp === KATAKANA_PROLONGED_SOUND && KANA.test(label);
      const catalanDot = cp === MIDDLE_DOT && chars[i - 1] === 'l' && chars[i + 1] === 'l';
      if (!kanaContext && !catalanDot) problems.add('idn-lookalike');
    } else if (script === 'Inherited') {
      // A mark over a Common character (a hyphen, a digit) draws on it as on a letter: "x-\u0338y".
      if (previousScript === 'Latin' || previousScript === 'Greek' || previousScript === 'Cyrillic' || previousScript === 'Common') problems.add('idn-lookalike');
    } else if (script === 'Other') {
      problems.add('idn-uncommon-script');
    } else {
      scripts.add(script);
      if (ASCII_LOOKALIKES.has(cp)) anyLookalike = true;
      else if (!DECIMAL_DIGIT.test(ch)) allLookalike = false;
    }
    if (script !== 'Inherited') previousScript = script;
  });

  if (!isHighlyRestrictive(scripts)) problems.add('idn-mixed-script');
  // A look-alike among Latin letters ("ɑpple", or Han "〇" in "ex〇mple", a mix UTS #39 allows).
  if (anyLookalike && scripts.has('Latin')) problems.add('idn-lookalike');
  if (digitSystems.size > 1) problems.add('idn-mixed-digits');
  const [only] = scripts;
  if (scripts.size === 1 && only !== undefined && only !== 'Latin' && allLookalike && !tldScripts.has(only)) {
    problems.add('idn-whole-script-confusable');
  }
  return [...problems];
}

function scriptsOf(label: string): Set<Script> {
  return new Set(Array.from(label, scriptOf));
}

/**
 * Keeps the end of the subdomain, the part next to the registrable domain, whole labels when
 * they fit: "…login.account" rather than "…ogin.account" when there is room.
 */
function elide(subdomain: string, max: number): string {
  const chars = Array.from(subdomain);
  if (chars.length <= max) return subdomain;
  const room = max - 1;
  const tail = chars.slice(chars.length - room).join('');
  const dot = tail.indexOf('.');
  return ELLIPSIS + (dot >= 0 ? tail.slice(dot + 1) : tail);
}

/**
 * Top-level domains that readers take for the end of an address: the generic ones of RFC 1591
 * section 2, and info and biz from ICANN's 2000 round. Country codes (two letters) and
 * internationalised top-level domains (xn--) are found by shape. The newer generic domains are
 * left out on purpose: they are words (shop, app, cloud, online, dev) that honest subdomains
 * use as labels, as in fr.shop.stormline.example.
 */
const KNOWN_ENDINGS = new Set(['com', 'net', 'org', 'edu', 'gov', 'mil', 'int', 'info', 'biz']);

/**
 * Names reserved so they are never delegated (RFC 2606 section 2, RFC 6761 section 6): not in
 * the Public Suffix List, yet a reader takes them for the end of an address all the same.
 */
const RESERVED_ENDINGS = new Set(['example', 'test', 'invalid', 'localhost']);

function readsAsEnding(label: string): boolean {
  return KNOWN_ENDINGS.has(label) || /^[a-z]{2}$/.test(label) || label.startsWith('xn--');
}

/**
 * The longest run of subdomain labels, from the first, that reads as an address of its own:
 * it ends in a reserved name, or in a known ending that the Public Suffix List confirms, with a
 * label before it. `prefix` counts the labels of the run, `domain` those of the domain it names
 * (login.paypal.com: prefix 3, domain 2). Null when no run does.
 *
 * Not counted: a label that spells a domain with a dash ("paypal-com"): honest labels end in
 * "-us", "-info", "-me" or "-de" too often for a warning to mean anything. Dot look-alikes need
 * no rule here: the URL parser turns U+FF0E and U+3002 into real dots, refuses U+2024, and any
 * other look-alike sign makes the IDN policy show the label in punycode.
 */
function spelledDomainOf(asciiLabels: readonly string[]): { prefix: number; domain: number } | null {
  for (let end = asciiLabels.length; end >= 2; end -= 1) {
    const last = asciiLabels[end - 1]!;
    if (RESERVED_ENDINGS.has(last)) return { prefix: end, domain: 2 };
    if (!readsAsEnding(last)) continue;
    const info = parseHost(asciiLabels.slice(0, end).join('.'), { allowPrivateDomains: true });
    if (info.domain && (info.isIcann === true || info.isPrivate === true)) {
      return { prefix: end, domain: info.domain.split('.').length };
    }
  }
  return null;
}

function ownerOf(registrable: string, isIp: boolean): Localized {
  const name = registrable.endsWith('.') ? registrable.slice(0, -1) : registrable;
  return isIp ? summaryText('origin_ownerIp', { address: name }) : summaryText('origin_owner', { domain: name });
}

function checkMax(max: number): number {
  if (Number.isSafeInteger(max) && max >= 2) return max;
  throw new CountersignError('ERR_ARGUMENT_INVALID', `maxSubdomainLength: expected an integer of at least 2, got ${describeNumber(max)}`);
}

/** The origin as a URL, or ERR_ARGUMENT_INVALID when it is not an http or https URL. */
function parseOrigin(url: string): URL {
  if (typeof url !== 'string') throw new CountersignError('ERR_ARGUMENT_INVALID', `origin: expected an http or https URL, got ${describeValue(url)}`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (cause) {
    throw new CountersignError('ERR_ARGUMENT_INVALID', 'origin: expected an http or https URL, got a string that is not a URL', { cause });
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new CountersignError('ERR_ARGUMENT_INVALID', `origin: expected an http or https URL, got the scheme ${parsed.protocol}`);
  }
  return parsed;
}

export function displayOrigin(url: string, options: DisplayOriginOptions = {}): DisplayOrigin {
  const max = checkMax(options.maxSubdomainLength ?? DEFAULT_MAX_SUBDOMAIN);
  const parsed = parseOrigin(url);
  const scheme = parsed.protocol === 'https:' ? 'https' : 'http';
  const warnings: OriginWarning[] = [];
  if (scheme === 'http') warnings.push(warning('insecure-scheme'));
  if (parsed.username !== '' || parsed.password !== '') warnings.push(warning('credentials-in-url'));

  const asciiHost = parsed.hostname;
  const port = parsed.port;
  const info = parseHost(asciiHost, { allowPrivateDomains: true });

  let host = asciiHost;
  let subdomainLabels: string[] = [];
  let registrable = asciiHost;
  let shownInPunycode = false;
  let spelledDomain: string | null = null;
  let spelledPrefix = '';

  if (info.isIp) {
    warnings.push(warning('ip-address'));
  } else {
    // A trailing dot names the same host; it stays in the display, out of the analysis.
    const trailingDot = asciiHost.endsWith('.') ? '.' : '';
    const asciiLabels = (trailingDot ? asciiHost.slice(0, -1) : asciiHost).split('.');
    const unicodeLabels: string[] = [];
    const problems = new Set<FixedWarningCode>();
    for (const label of asciiLabels) {
      try {
        unicodeLabels.push(label.startsWith('xn--') ? punycode.toUnicode(label) : label);
      } catch {
        unicodeLabels.push(label);
        problems.add('idn-invalid');
      }
    }
    const tldScripts = scriptsOf(unicodeLabels[unicodeLabels.length - 1] ?? '');
    unicodeLabels.forEach((label, i) => {
      // ASCII labels need no check: the policy is about what Unicode can imitate.
      if (label !== asciiLabels[i]) {
        for (const problem of labelProblems(label, tldScripts)) problems.add(problem);
      }
    });
    shownInPunycode = problems.size > 0;
    for (const problem of problems) warnings.push(warning(problem));
    const labels = shownInPunycode ? asciiLabels : unicodeLabels;
    host = labels.join('.') + trailingDot;
    const registrableCount = info.domain ? info.domain.split('.').length : labels.length;
    if (!info.domain) warnings.push(warning('no-registrable-domain'));
    subdomainLabels = labels.slice(0, labels.length - registrableCount);
    registrable = labels.slice(labels.length - registrableCount).join('.') + trailingDot;
    // Found on the ASCII labels (the form the Public Suffix List is in), quoted as shown.
    const spelled = spelledDomainOf(asciiLabels.slice(0, subdomainLabels.length));
    if (spelled) {
      spelledPrefix = subdomainLabels.slice(0, spelled.prefix).join('.');
      spelledDomain = subdomainLabels.slice(spelled.prefix - spelled.domain, spelled.prefix).join('.');
    }
  }

  const owner = ownerOf(registrable, info.isIp === true);
  if (spelledDomain !== null) {
    // Said in words: the bold registrable domain alone is easy to miss when the start of the
    // address is a familiar name. An IP address has no subdomain, so the owner is a domain here.
    const domain = registrable.endsWith('.') ? registrable.slice(0, -1) : registrable;
    const said =
      spelledPrefix === spelledDomain
        ? summaryText('origin_subdomainIsDomain', { domain, prefix: spelledPrefix })
        : summaryText('origin_subdomainSpellsDomain', { domain, prefix: spelledPrefix, spelled: spelledDomain });
    warnings.push({ code: 'subdomain-spells-domain', ...said });
  }
  const fullSubdomain = subdomainLabels.join('.');
  const subdomain = elide(fullSubdomain, max);
  if (subdomain !== fullSubdomain) warnings.push(warning('subdomain-elided'));
  const display = `${scheme}://${subdomain ? `${subdomain}.` : ''}${registrable}${port ? `:${port}` : ''}`;
  return {
    scheme,
    host,
    asciiHost,
    punycode: shownInPunycode,
    subdomain,
    fullSubdomain,
    registrableDomain: registrable,
    port,
    display,
    spelledDomain,
    ownerSentence: owner.message,
    ownerText: owner.text,
    warnings,
  };
}
