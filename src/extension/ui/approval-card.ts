// Imported by file, not through the folders' index: the window's bundle must not pull in what it
// does not use (the origin module's Public Suffix List is the background's job).
import { renderSummaryView } from '../../summary/render.ts';
import { inspectText } from '../../summary/text-inspection.ts';
import { reviewOperation } from '../../review/terms.ts';
import { inspectCompanyName } from '../../summary/company-name.ts';
import { diffRevisions } from '../../review/diff.ts';
import { formatPath, type PathSegment } from '../../review/values.ts';
import type { ApprovalView } from '../snapshot';

/** `browser.i18n.getMessage`, injected so the card renders in tests without a browser. */
export type Translate = (key: string, substitutions?: string | string[]) => string;

/**
 * Builds the body of the approval window for one revision. Company text reaches the DOM only
 * as text nodes, except the summary, which goes through the summary pipeline (spec section 3
 * "Formatting" and section 8).
 */
/** Makes elements whose text is set as text, never as HTML: every Company string in the window goes through it. */
export function textElements(doc: Document) {
  return <K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, cls?: string): HTMLElementTagNameMap[K] => {
    const node = doc.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  };
}

export function renderApprovalCard(doc: Document, view: ApprovalView, t: Translate, options: { showAll?: boolean } = {}): HTMLElement {
  const el = textElements(doc);
  const card = el('article', undefined, 'card');
  card.setAttribute('aria-labelledby', 'company-heading');

  // Who: the Company's name (made visible character by character) and the origin the agent resolved.
  const name = inspectText(view.company.name, { singleLine: true });
  const origin = view.origin;
  const heading = el('h1', t('approveHeading', name.display));
  heading.id = 'company-heading';
  heading.tabIndex = -1;
  card.append(heading);
  const originLine = el('p', undefined, 'origin');
  originLine.append(el('span', `${t('companyOrigin')}: `, 'label'));
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
  // The owner in words, not only in bold: "this site is checkout-secure.co" is what a hurried
  // reader needs when the address starts with another Company's name.
  const owner = el('p', t('originOwner', origin ? origin.registrableDomain : view.company.origin), 'owner');
  owner.dataset.testid = 'owner';
  // Two agents may share a name (one of them could be any local process): the key tells them apart.
  const agentLine = el('p', t('agentLine', [inspectText(view.agentName, { singleLine: true }).display, view.agentFingerprint]), 'agent');
  agentLine.dataset.testid = 'agent';
  card.append(originLine, owner, agentLine);

  const warnings = el('ul', undefined, 'warnings');
  warnings.setAttribute('role', 'alert');
  warnings.dataset.testid = 'warnings';
  const identity = [...name.findings.map((f) => f.message), ...inspectCompanyName(view.company.name).map((f) => f.message), ...(origin?.warnings ?? []).map((o) => o.message)];
  for (const w of identity) warnings.append(el('li', w));

  // What: the summary, rendered through the allow-list pipeline.
  card.append(el('h2', t('summaryHeading')));
  const summarySection = el('section', undefined, 'summary');
  summarySection.dataset.testid = 'summary';
  const rendered = renderSummaryView(view.operation.summary, doc, options.showAll ? { showAll: true } : {});
  summarySection.append(rendered.fragment);
  card.append(summarySection);
  if (rendered.truncated) {
    const more = el('button', t('showAll'), 'show-all');
    more.type = 'button';
    more.dataset.action = 'show-all';
    card.append(more);
  }
  if (rendered.findings.length > 0) warnings.append(el('li', t('hygieneWarning')));
  if (rendered.formattingLimited) warnings.append(el('li', t('formattingLimited')));
  if (warnings.childElementCount > 0) card.insertBefore(warnings, card.querySelector('h2'));

  // Check: findings of the terms review, prominent, before the terms themselves. The review never
  // says the terms "agree": it lists what it flagged, then only what it checked and found true.
  const review = reviewOperation({ summary: view.operation.summary, terms: view.operation.terms, request: requestBody(view.request) });
  card.append(el('h2', t('findingsHeading')));
  const list = el('ul', undefined, 'findings');
  list.dataset.testid = 'findings';
  for (const f of review.findings) list.append(el('li', f.message, `finding ${f.severity}`));
  for (const c of review.checked) list.append(el('li', c.message, 'finding checked'));
  if (list.childElementCount === 0) list.append(el('li', t('nothingChecked'), 'finding info'));
  card.append(list);

  if (view.previous) {
    const diff = diffRevisions(view.previous, view.operation);
    card.append(el('h2', t('changedHeading')));
    const changed = el('div', undefined, 'diff');
    changed.dataset.testid = 'diff';
    const words = el('p');
    for (const part of diff.summary) {
      const tag = part.kind === 'added' ? 'ins' : part.kind === 'removed' ? 'del' : 'span';
      words.append(el(tag, part.text));
    }
    changed.append(words);
    const termChanges = el('ul');
    for (const c of diff.terms) termChanges.append(el('li', c.message));
    if (diff.expiry) termChanges.append(el('li', diff.expiry.message));
    changed.append(termChanges);
    card.append(changed);
  }

  // The terms as data: a table of paths and values, every value as text.
  card.append(el('h2', t('termsHeading')));
  if (view.operation.terms) {
    const table = el('table', undefined, 'terms');
    table.dataset.testid = 'terms';
    for (const [path, value] of flatten(view.operation.terms)) {
      const row = el('tr');
      row.append(el('th', path), el('td', inspectText(value, { singleLine: true }).display));
      table.append(row);
    }
    card.append(table);
  } else {
    card.append(el('p', t('termsAbsent'), 'muted'));
  }

  card.append(el('h2', t('requestHeading')));
  const req = el('pre', describeRequest(view.request), 'request');
  req.dataset.testid = 'request';
  card.append(req);

  card.append(el('h2', t('whoHeading')));
  card.append(el('p', isSignedIn(view.session) ? t('whoAccount') : t('whoThisSession')));
  return card;
}

/** Every scalar of the terms with its path, written as the review's findings write it. */
function flatten(value: unknown, path: PathSegment[] = []): Array<[string, string]> {
  if (value !== null && typeof value === 'object') {
    const entries: Array<[PathSegment, unknown]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
    return entries.flatMap(([k, v]) => flatten(v, [...path, k]));
  }
  return [[formatPath(path), typeof value === 'string' ? value : JSON.stringify(value)]];
}

function requestBody(request: unknown): Record<string, unknown> | undefined {
  if (!request || typeof request !== 'object') return undefined;
  const r = request as { interface?: string; body?: unknown; arguments?: unknown };
  const candidate = r.interface === 'mcp' ? r.arguments : r.body;
  return candidate && typeof candidate === 'object' && !Array.isArray(candidate) ? (candidate as Record<string, unknown>) : undefined;
}

function isSignedIn(session: unknown): boolean {
  return !!session && typeof session === 'object' && (session as { kind?: string }).kind === 'signed_in';
}

/** The agent's request, as plain text (it is shown, never interpreted). */
export function describeRequest(request: unknown): string {
  if (!request || typeof request !== 'object') return '';
  const r = request as Record<string, unknown>;
  const body = (v: unknown) => (v === undefined ? '' : `\n${JSON.stringify(v, null, 2)}`);
  switch (r.interface) {
    case 'api':
      return inspectText(`${String(r.method)} ${String(r.url)}${body(r.body)}`).display;
    case 'mcp':
      return inspectText(`MCP tool ${String(r.tool)}${r.server_url ? ` at ${String(r.server_url)}` : ''}${body(r.arguments)}`).display;
    case 'conversation':
      return inspectText(`Conversation ${String(r.conversation_id)}`).display;
    default:
      return inspectText(JSON.stringify(r)).display;
  }
}
