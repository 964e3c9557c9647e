/**
 * The sentences of the summary checks, in English, each defined once (see `message-text.ts`):
 * hidden characters (`hidden_`), look-alike Company names (`name_`) and the Company's origin
 * (`origin_`). Placeholders hold data only: code points, tokens, Company text with its hidden
 * characters shown, domains, lists joined with `LIST_SEPARATOR`.
 */
import { chromeMessages, messageBuilder } from './message-text.ts';

export const SUMMARY_MESSAGES = {
  hidden_bidi: 'A direction control character ({label}), which can reorder the text around it, is in the text; it is shown as {token}.',
  hidden_lineBreak: 'A hidden line break ({label}) is in the text; it is shown as {token}.',
  hidden_control: 'A control character ({label}) is in the text; it is shown as {token}.',
  hidden_invisible: 'An invisible character ({label}) is in the text; it is shown as {token}.',
  hidden_format: 'An invisible formatting character ({label}) is in the text; it is shown as {token}.',
  hidden_space: 'A space that is not an ordinary space ({label}) is in the text; it is shown as {token}.',

  name_mixedScripts: 'The name mixes letters of different scripts ({scripts}): {char} is {script}.',
  name_mixedScriptsLookalike: 'The name mixes letters of different scripts ({scripts}): {char} is {script} and only looks like a Latin letter or digit.',
  name_mixedScriptsUncommon: 'The name mixes letters of different scripts ({scripts}): {char} is from an uncommon script.',
  name_mixedScriptsUncommonLookalike:
    'The name mixes letters of different scripts ({scripts}): {char} is from an uncommon script and only looks like a Latin letter or digit.',
  name_mixedScriptsMany: 'The name mixes letters of different scripts ({scripts}): {chars} are not {script}.',
  name_confusable: '{char} in the name only looks like an ordinary letter or digit; it is a different character.',
  name_confusableMany: '{chars} in the name only look like ordinary letters or digits; they are different characters.',
  name_dotlessI: '{char} is a dotless i, a letter of Turkish and Azerbaijani that can also pass for \u201Ci\u201D.',
  name_wholeScript: 'Every letter of {name} is {script} but looks like a Latin letter or digit.',
  name_wholeScriptUncommon: 'Every letter of {name} is from an uncommon script but looks like a Latin letter or digit.',
  name_wholeScriptMany: 'Every letter of {name} is from one of these scripts ({scripts}) but looks like a Latin letter or digit.',
  name_markDrawnOver: '{chars} has a mark drawn over or around it, which can disguise the letter.',
  name_markDrawnOverMany: '{chars} have marks drawn over or around them, which can disguise the letters.',
  name_marksStacked: '{chars} has marks stacked on one character, which can hide what the letter is.',
  name_marksStackedMany: '{chars} have marks stacked on one character, which can hide what the letter is.',
  name_decomposed:
    '{chars} is a letter plus a separate accent mark: it looks like the usual {usual} but is written differently, so it may not match the real name.',
  name_decomposedMany: '{chars} are letters plus separate accent marks: they look usual but are written differently, so they may not match the real name.',

  origin_owner: 'This site is {domain}.',
  origin_ownerIp: 'This site is the IP address {address}.',
  origin_insecureScheme: 'The Company was reached over plain http, so anyone on the network could have changed what it sent.',
  origin_credentialsInUrl: 'The address carried a user name or password before the host; only the host after it counts.',
  origin_ipAddress: 'The Company is known only by an IP address, not by a domain name.',
  origin_noRegistrableDomain: 'This host has no registrable domain (it is a public suffix or a local name).',
  origin_subdomainElided: 'The start of a long subdomain is hidden so the registrable domain stays in view.',
  origin_subdomainSpellsDomain: 'This site is {domain}. The address starts with \u201C{prefix}\u201D, which reads like {spelled} but is not the site.',
  origin_subdomainIsDomain: 'This site is {domain}. The address starts with \u201C{prefix}\u201D, which is not the site.',
  origin_idnMixedScript: 'The domain mixes writing systems in one name, a common way to imitate another domain.',
  origin_idnUncommonScript: 'The domain uses a writing system that is rarely used in domain names.',
  origin_idnWholeScriptConfusable: 'The domain is written entirely in letters that look like Latin ones.',
  origin_idnLookalike: 'The domain contains a character that looks like another letter, digit or sign.',
  origin_idnDeviation: 'The domain contains \u00DF, \u03C2 or a zero-width joiner, which some software reads as a different domain.',
  origin_idnMixedDigits: 'The domain mixes digits from different numbering systems.',
  origin_idnInvalid: 'The domain has a label that is not valid punycode.',
} as const;

export type SummaryMessageKey = keyof typeof SUMMARY_MESSAGES;

/** `summaryText('hidden_bidi', { label, token })`: the English `message` and its `text`. */
export const summaryText = messageBuilder(SUMMARY_MESSAGES);

/** The messages.json entries of `SUMMARY_MESSAGES`. */
export function summaryChromeMessages() {
  return chromeMessages(SUMMARY_MESSAGES);
}
