// Imported by file, not through the folders' index: the window's bundle must not pull in what it
// does not use (the origin module's Public Suffix List is the background's job).
import { renderSummaryView } from '../../summary/render.ts';
import { localize } from '../../summary/message-text.ts';
import { inspectText } from '../../summary/text-inspection.ts';
import { formatPath, type PathSegment } from '../../review/values.ts';
import type { ApprovalView, ReviewedView } from '../snapshot';
import type { Translate } from './i18n';
import { textElements, type TextElements } from './text-elements';
import { assessRisk, type Risk, type RiskItem, type Said } from './risk';
import { describeRequest, sessionWords } from './request-words';
import type { KeyFact } from '../../review/key-facts.ts';
import { changedBanner } from './changed-banner';
import { toolCallArguments } from './tool-call-arguments';
import { toolCallAction, type ToolAction } from './tool-call-action';

export type { Translate } from './i18n';
export { textElements } from './text-elements';

/**
 * A finding of the review in the facts' own words: the key as the facts label it ("Price
 * difference", not `price_difference`) and an amount as the facts format it ("$700.00", not
 * "700.00 USD"), so the danger line and the facts above it read as one (docs/ui.md, "Danger").
 */
function sayFinding(t: Translate, item: RiskItem, facts: ReadonlyMap<string, KeyFact>): string {
  const fact = item.path === undefined || item.path === '' ? undefined : facts.get(item.path);
  if (fact === undefined || item.text === undefined) return say(t, item);
  const substitutions = item.text.substitutions.map((s) => (s === item.path ? fact.label : fact.kind === 'money' && AMOUNT_AS_WRITTEN.test(s) ? fact.value : s));
  return say(t, { ...item, text: { ...item.text, substitutions } });
}

/** How the review writes an amount in its sentences: "700.00 USD". */
const AMOUNT_AS_WRITTEN = /^[-\u2212]?\d+(?:\.\d+)? [A-Z]{3}$/;

/** A module's sentence in the page's language when it carries its message, else as written. */
export function say(t: Translate, said: Said): string {
  if (!said.text) return said.message;
  // `t` answers a missing message with its key; `localize` tries the next plural form on ''.
  return localize(said.text, (key, subs) => {
    const message = t(key, subs);
    return message === key ? '' : message;
  }, t.locale);
}

export interface CardOptions {
  showAll?: boolean;
}

export interface RenderedCard {
  card: HTMLElement;
  risk: Risk;
  /**
   * The summary section, or a tool call's whole argument list, for "scrolled to its end" before
   * Approve arms: the end of what the decision covers, never of a cut text.
   */
  summary: HTMLElement;
  /** For a tool call: what it will do, in plain words (tool-call-action.ts). */
  action?: ToolAction;
  /** The terms' facts, by meaning (none for a tool call): what Approve names comes from these too. */
  facts: KeyFact[];
}

/**
 * The body of the approval window for one revision, in the order a hurried person reads it:
 * what is wrong (if anything, in one line), who asks, how much and for whom, then the Company's
 * own words, then every finding, then the technical details folded away (docs/ui.md, "The approval card"). Company text reaches
 * the DOM only as text nodes, except the summary, which goes through the summary pipeline (spec
 * section 3 "Formatting" and section 8).
 */
export function renderApprovalCard(doc: Document, view: ReviewedView, t: Translate, options: CardOptions = {}): RenderedCard {
  const el = textElements(doc);
  const card = el('article', undefined, 'card');
  card.setAttribute('aria-labelledby', 'company-heading');
  // A tool call has no Company's words: the card shows the call itself, every argument whole.
  const args = view.toolCall ? toolCallArguments(el, view.toolCall, t) : undefined;
  const rendered = args ? undefined : renderSummaryView(view.operation.summary, doc, options.showAll ? { showAll: true } : {});
  const action = view.toolCall ? toolCallAction(view.toolCall) : undefined;
  const risk = assessRisk(view, args ? args.hidden : rendered!.findings.length > 0, action);
  const formattingLimited = rendered?.formattingLimited ?? false;

  // Read once in the background for the block, the findings' words and Approve (none for a tool call).
  const facts = view.review.facts;
  const byPath = new Map(facts.map((f) => [f.path, f]));
  if (risk.danger) card.append(riskBanner(el, risk, byPath, t));
  if (view.previous) card.append(changedBanner(el, view, t));
  card.append(...(view.toolCall ? toolCallIdentity(el, view, view.toolCall, action!, t) : identity(el, view, risk, t)));
  card.append(factsBlock(el, view, facts, t));
  // A tool call's list is Countersign's own writing, and the heading says so.
  card.append(el('h2', t(view.toolCall ? 'toolCallSummaryHeading' : 'summaryHeading')));
  const summary = args ? args.section : companySummary(el, rendered!.fragment);
  card.append(summary);
  if (rendered?.truncated) {
    const more = el('button', t('showAll'), 'show-all');
    more.type = 'button';
    more.dataset.action = 'show-all';
    card.append(more);
  }
  // The findings after the Company's words: the banner above says the top one, "Why?" comes here.
  const concerns = risk.items.filter((i) => i.severity !== 'info');
  if (concerns.length > 0 || formattingLimited) card.append(concernList(el, concerns, formattingLimited, byPath, t));
  // Made by the background for a new revision only (snapshot-review.ts).
  if (view.review.diff) card.append(summaryDiff(el, view.review.diff, t));
  card.append(technicalDetails(el, view, risk, t));
  return { card, risk, summary, facts, ...(action ? { action } : {}) };
}

/** The Company's summary, as the summary pipeline rendered it. */
function companySummary(el: TextElements, fragment: DocumentFragment): HTMLElement {
  const summary = el('section', undefined, 'summary', true);
  summary.dataset.testid = 'summary';
  summary.append(fragment);
  return summary;
}

/**
 * Danger first, in the words of the top finding ("The terms charge $700.00, but the summary says
 * $7.00"), not a general alarm: a person reads the one line and knows what is wrong. How many
 * more there are, and "Why?" that goes to all of them.
 */
function riskBanner(el: TextElements, risk: Risk, facts: ReadonlyMap<string, KeyFact>, t: Translate): HTMLElement {
  const banner = el('div', undefined, 'risk');
  banner.setAttribute('role', 'alert');
  banner.dataset.testid = 'risk';
  const icon = el('span', '\u26A0', 'icon');
  icon.setAttribute('aria-hidden', 'true');
  // Shown only with a danger, so there is a top one.
  const [top, ...more] = risk.items.filter((i) => i.severity === 'danger');
  const line = el('span', sayFinding(t, top!, facts), 'line');
  if (more.length > 0) line.append(' ', el('span', t.plural('riskMore', more.length), 'more'));
  const why = el('button', t('riskWhy'), 'link');
  why.type = 'button';
  why.dataset.action = 'why';
  banner.append(icon, line, why);
  return banner;
}

/** Who asks: the heading, the address with its registrable domain, and the agent. */
function identity(el: TextElements, view: ApprovalView, risk: Risk, t: Translate): HTMLElement[] {
  const inspected = inspectText(view.company.name, { singleLine: true });
  const name = inspected.display;
  const origin = view.origin;
  const domain = origin ? origin.registrableDomain : view.company.origin;
  // With a suspect address, or a name that hides characters (its tokens would fill the heading),
  // the heading names the domain, which is what the person is dealing with; the name as sent, its
  // hidden characters shown, follows as what the Company calls itself.
  const byDomain = risk.originWarning || inspected.findings.length > 0;
  const heading = el('h1', byDomain ? t('approveHeadingDomain', domain) : t('approveHeading', name), 'heading');
  heading.id = 'company-heading';
  heading.tabIndex = -1;
  heading.title = byDomain ? domain : name;
  const out: HTMLElement[] = [heading];
  if (byDomain) out.push(el('p', t('claimsToBe', name), 'claims'));
  const originLine = el('p', undefined, 'origin', true);
  if (origin) {
    // The registrable domain is the part that says who this is: bold, and never elided.
    originLine.append(el('span', `${origin.scheme}://`, 'scheme'));
    if (origin.subdomain) originLine.append(el('span', `${origin.subdomain}.`, 'subdomain'));
    originLine.append(el('strong', origin.registrableDomain, 'registrable'));
    if (origin.port) originLine.append(el('span', `:${origin.port}`, 'port'));
  } else {
    originLine.append(el('strong', view.company.origin, 'registrable'));
  }
  originLine.dataset.testid = 'origin';
  out.push(originLine);
  // The owner in words when the address has more than its domain: "This site is checkout-secure.co"
  // is what a hurried reader needs when the address starts with another Company's name.
  if (!origin || origin.subdomain !== '') {
    const owner = el('p', t('originOwner', domain), 'owner');
    owner.dataset.testid = 'owner';
    out.push(owner);
  }
  return out;
}

/**
 * A tool call leads with what will happen, in plain words ("Replace the file report.txt", "Run a
 * command"), with the whole path or command under it (docs/ui.md, "A tool call"). The server's
 * own description follows as its claim; the tool, how the server is reached and who asks are in
 * the facts, once.
 */
function toolCallIdentity(el: TextElements, view: ApprovalView, call: NonNullable<ApprovalView['toolCall']>, action: ToolAction, t: Translate): HTMLElement[] {
  const heading = el('h1', t(`toolAction_${action.verb}`, [action.short ?? action.target, action.to ?? '']), 'heading');
  heading.id = 'company-heading';
  heading.tabIndex = -1;
  heading.title = action.target;
  const out: HTMLElement[] = [heading];
  // The whole path or command, once, under the heading that may name only its last part.
  if (action.verb === 'run' || (action.short !== undefined && action.short !== action.target) || action.to !== undefined) {
    const target = el('p', undefined, 'action-target', true);
    target.dataset.testid = 'action-target';
    target.append(el('code', action.target, undefined, true));
    if (action.to !== undefined) target.append(' \u2192 ', el('code', action.to, undefined, true));
    out.push(target);
  }
  if (call.description !== undefined && call.description !== '') {
    const described = el('p', undefined, 'described');
    described.dataset.testid = 'tool-description';
    described.append(el('span', t('toolCallDescribed'), 'muted'), ' ', el('span', inspectText(call.description, { singleLine: true }).display, undefined, true));
    out.push(described);
  }
  return out;
}

/** The server, once: its name as it calls itself and how it is reached (a command line or an address). */
function serverLine(call: NonNullable<ApprovalView['toolCall']>, t: Translate): string {
  const server = inspectText(call.server.name, { singleLine: true }).display;
  const reached = call.server.reached_by;
  const how = reached.transport === 'stdio' ? [reached.command, ...reached.args].map(shellWord).join(' ') : reached.url;
  const tool = inspectText(call.tool, { singleLine: true }).display;
  return t(reached.transport === 'stdio' ? 'toolCallServerStdio' : 'toolCallServerHttp', [server, inspectText(how, { singleLine: true }).display, tool]);
}

/** One word of a command line as a person would type it: quoted when it has spaces or quotes. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Terms facts in the block: what matters most, three at most; every value is in Technical details. */
const FACTS_SHOWN = 3;

/**
 * How much, what changes and for whom, from the terms as data, never from the summary: facts by
 * meaning (money, then old → new, then dates, numbers and words; docs/ui.md, "Key facts").
 * References that only identify the thing (order and item IDs) are in Technical details: they
 * answer no question the person asks before deciding.
 */
function factsBlock(el: TextElements, view: ApprovalView, terms: readonly KeyFact[], t: Translate): HTMLElement {
  const block = el('dl', undefined, 'facts');
  block.dataset.testid = 'facts';
  // A fact's label is the Company's own key made readable: data, like its value.
  const row = (label: string, value: string, cls: string, testid?: string) => {
    const dd = el('dd', undefined, cls);
    const shown = el('span', value, 'value', true);
    if (testid) shown.dataset.testid = testid;
    dd.append(shown);
    block.append(el('dt', label, undefined, true), dd);
    return dd;
  };
  if (view.toolCall) row(t('factsLabelTool'), serverLine(view.toolCall, t), 'fact', 'server');
  const facts = terms.filter((f) => f.kind !== 'identifier');
  for (const fact of facts.slice(0, FACTS_SHOWN)) {
    const dd = row(fact.label, fact.value, fact.kind === 'money' ? 'money' : 'fact', fact.kind === 'money' ? 'money' : undefined);
    // An old → new pair: the old value first, struck, then the new one the person gets.
    if (fact.before !== undefined) dd.prepend(el('span', fact.before, 'before', true), el('span', ' \u2192 ', 'arrow'));
    // Which way the money goes, in words, when the terms say it: the eye lands on the amount.
    const way = fact.direction === 'charge' ? 'factYouPay' : fact.direction === 'refund' ? 'factBackToYou' : undefined;
    if (way) dd.append(' ', el('span', t(way), 'direction'));
  }
  if (!view.toolCall && facts.length === 0) {
    block.append(el('dt', t('factsLabelTerms')), el('dd', t('factsNoTerms'), 'fact'));
  }
  const forWhom = el('dd', undefined, 'for-whom');
  forWhom.dataset.testid = 'for-whom';
  // Which kind of item this is, where a Company's request says whose session it acts in.
  if (view.toolCall) {
    const kind = el('span', t('factsThisComputer'));
    kind.dataset.testid = 'item-kind';
    forWhom.append(kind);
  } else forWhom.textContent = sessionWords(view.session, t);
  block.append(el('dt', t('factsLabelFor')), forWhom);
  // Two agents may share a name (one of them could be any local process): the key tells them apart.
  const agent = el('dd', undefined, 'agent');
  agent.dataset.testid = 'agent';
  agent.append(el('span', inspectText(view.agentName, { singleLine: true }).display, 'agent-name', true), ' ', el('span', view.agentFingerprint, 'fingerprint', true));
  block.append(el('dt', t('factsLabelAgent')), agent);
  return block;
}

/** Danger and warnings, each once, in the page's language; info notes in their own neutral style. */
function concernList(el: TextElements, items: Risk['items'], formattingLimited: boolean, facts: ReadonlyMap<string, KeyFact>, t: Translate): HTMLElement {
  const section = el('section', undefined, 'concerns');
  section.id = 'risk-details';
  section.tabIndex = -1;
  section.append(el('h2', t('findingsHeading')));
  const list = el('ul', undefined, 'findings');
  list.dataset.testid = 'findings';
  for (const item of items) list.append(el('li', sayFinding(t, item, facts), `finding ${item.severity}`));
  if (formattingLimited) list.append(el('li', t('formattingLimited'), 'finding info'));
  section.append(list);
  return section;
}

/** The summary's words, old against new: a word the Company added is marked by more than colour. */
function summaryDiff(el: TextElements, diff: NonNullable<ReviewedView['review']['diff']>, t: Translate): HTMLElement {
  const section = el('section', undefined, 'diff');
  section.dataset.testid = 'diff';
  section.append(el('h2', t('changedHeading')));
  const words = el('p', undefined, undefined, true);
  for (const part of diff.summary) {
    if (part.kind === 'same') words.append(part.text);
    else {
      const mark = el(part.kind === 'added' ? 'ins' : 'del', part.text);
      mark.title = part.kind === 'added' ? t('diffAdded') : t('diffRemoved');
      words.append(mark);
    }
  }
  section.append(words);
  const changes = el('ul');
  for (const c of diff.terms) changes.append(el('li', say(t, c)));
  if (diff.expiry) changes.append(el('li', say(t, diff.expiry)));
  if (changes.childElementCount > 0) section.append(changes);
  return section;
}

/** What an engineer checks: the review's true statements, the terms, the request, the rule of who may approve. */
function technicalDetails(el: TextElements, view: ApprovalView, risk: Risk, t: Translate): HTMLElement {
  const details = el('details', undefined, 'technical');
  details.dataset.testid = 'technical';
  details.append(el('summary', t('technicalDetails')));
  const checked = el('ul', undefined, 'checked');
  checked.dataset.testid = 'checked';
  for (const c of risk.checked) checked.append(el('li', say(t, c), 'finding checked'));
  for (const i of risk.items.filter((x) => x.severity === 'info')) checked.append(el('li', say(t, i), 'finding info'));
  if (checked.childElementCount === 0) checked.append(el('li', t('nothingChecked'), 'finding info'));
  details.append(el('h3', t('checkedHeading')), checked);

  details.append(el('h3', t('termsHeading')));
  if (view.operation.terms) {
    const table = el('table', undefined, 'terms');
    table.dataset.testid = 'terms';
    for (const [path, value] of flatten(view.operation.terms)) {
      const row = el('tr');
      row.append(el('th', path, undefined, true), el('td', inspectText(value, { singleLine: true }).display, undefined, true));
      table.append(row);
    }
    details.append(table);
  } else details.append(el('p', t('termsAbsent'), 'muted'));

  const request = describeRequest(view.request, t);
  details.append(el('h3', t('requestHeading')), el('p', request.sentence));
  if (request.data) {
    const pre = el('pre', request.data, 'request', true);
    pre.dataset.testid = 'request';
    details.append(pre);
  }
  details.append(el('h3', t('operationHeading')), el('p', `${view.operation.operation_id} \u00B7 ${view.operation.revision}`, 'ids', true));
  return details;
}

/** Every scalar of the terms with its path, written as the review's findings write it. */
function flatten(value: unknown, path: PathSegment[] = []): Array<[string, string]> {
  if (value !== null && typeof value === 'object') {
    const entries: Array<[PathSegment, unknown]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
    return entries.flatMap(([k, v]) => flatten(v, [...path, k]));
  }
  return [[formatPath(path), typeof value === 'string' ? value : JSON.stringify(value)]];
}
