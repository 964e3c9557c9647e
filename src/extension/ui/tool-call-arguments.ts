// Imported by file, not through the folders' index (the window's bundle carries only what it uses).
import { canonicalEntries } from '../../protocol/canonical-json.ts';
import type { ToolCall } from '../../protocol/tool-call.ts';
import { toolCallRevision } from '../../protocol/tool-call-revision.ts';
import { inspectText } from '../../summary/text-inspection.ts';
import type { ApprovalView } from '../snapshot';
import type { Translate } from './i18n';
import type { TextElements } from './text-elements';

/** What the card shows of a tool call: exactly what its decision signs (tool-call-decision.ts). */
export type ShownToolCall = Pick<ToolCall, 'server' | 'tool' | 'arguments'>;

export interface RenderedArguments {
  /** The whole list, first argument to last: the scroll gate waits for its end. */
  section: HTMLElement;
  /** Some name or text holds hidden characters, shown as tokens. */
  hidden: boolean;
}

/**
 * Every argument of a tool call, whole (docs/ui.md, "A tool call"): one row per argument with its
 * name and value, and one row per member or element inside a value, in canonical order (RFC 8785,
 * the order the decision's digest is computed in). Text keeps its real line breaks and wraps;
 * nothing is cut, escaped or rendered as Markdown or HTML: every name and value reaches the DOM as
 * a text node. A call too large to show like this never gets here: it is refused at intake
 * (src/protocol/tool-call.ts, ERR_TOOL_CALL_TOO_LARGE).
 */
export function toolCallArguments(el: TextElements, call: ShownToolCall, t: Translate): RenderedArguments {
  const section = el('section', undefined, 'summary tool-arguments');
  section.dataset.testid = 'summary';
  const count = Object.keys(call.arguments).length;
  const tool = inspectText(call.tool, { singleLine: true }).display;
  section.append(el('p', count === 0 ? t('toolCallNoArguments', tool) : t.plural('toolCallArgumentsLead', count, [tool]), 'lead'));
  const state = { hidden: false };
  if (count > 0) {
    const list = members(el, t, call.arguments, state, true);
    list.classList.add('arguments');
    list.dataset.testid = 'arguments';
    for (const row of list.children) (row as HTMLElement).dataset.testid = 'argument';
    section.append(list, el('p', t('toolCallArgumentsEnd'), 'end'));
  }
  return { section, hidden: state.hidden };
}

/**
 * True when the call the card shows is the call the item's revision names, so the decision the
 * background signs for this item (by its key, which holds the revision) covers exactly what is on
 * screen. The window keeps Approve disarmed otherwise.
 */
export async function showsSignedCall(view: Pick<ApprovalView, 'toolCall' | 'operation'>): Promise<boolean> {
  if (!view.toolCall) return true;
  return (await toolCallRevision(view.toolCall)) === view.operation.revision;
}

/** Rows of an object's members (or a list's elements, named by position). */
function members(el: TextElements, t: Translate, value: object, state: { hidden: boolean }, top = false): HTMLElement {
  const list = el('dl', undefined, 'members');
  const canonical: Array<[string, unknown]> = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : canonicalEntries(value as Record<string, unknown>);
  // What the hook binds the approval to (hashes of the input and of the files on disk) is read
  // last: the call itself comes first. Still every member, each whole.
  const entries = top ? [...canonical.filter(([n]) => !isBinding(n)), ...canonical.filter(([n]) => isBinding(n))] : canonical;
  for (const [name, member] of entries) {
    const row = el('div', undefined, top && isBinding(name) ? 'member binding' : 'member');
    const shown = inspectText(name, { singleLine: true });
    if (worthWarning(shown)) state.hidden = true;
    const dt = el('dt', undefined, Array.isArray(value) ? 'name index' : 'name', true);
    appendText(el, dt, shown);
    const dd = el('dd', undefined, 'value');
    dd.append(valueOf(el, t, member, state));
    row.append(dt, dd);
    list.append(row);
  }
  return list;
}

/** The hook's own members that bind the approval (docs/coding-agents.md, "What the card shows"). */
function isBinding(name: string): boolean {
  return name === 'countersign_input_sha256' || name === 'countersign_files';
}

/** One value: text as text, a number, true, false or null as written, an object or list as rows. */
function valueOf(el: TextElements, t: Translate, value: unknown, state: { hidden: boolean }): HTMLElement {
  if (typeof value === 'string') {
    // An empty text would be an empty row: say it in words, styled apart from any text.
    if (value === '') return el('span', t('toolCallEmptyText'), 'empty');
    const shown = inspectText(value);
    if (worthWarning(shown)) state.hidden = true;
    const span = el('span', undefined, 'text', true);
    appendText(el, span, shown);
    return span;
  }
  if (value === null || typeof value !== 'object') return el('code', JSON.stringify(value), 'literal', true);
  const size = Array.isArray(value) ? value.length : Object.keys(value).length;
  if (size === 0) return el('span', t(Array.isArray(value) ? 'toolCallEmptyList' : 'toolCallEmptyObject'), 'empty');
  const nested = el('div', undefined, Array.isArray(value) ? 'nested list' : 'nested object');
  if (Array.isArray(value)) nested.append(el('span', t.plural('toolCallListOf', size), 'kind'));
  nested.append(members(el, t, value, state));
  return nested;
}

/** A hidden character worth a warning: not a mere odd space (a no-break space in a file is common). */
function worthWarning(shown: ReturnType<typeof inspectText>): boolean {
  return shown.findings.some((f) => f.severity !== 'info');
}

/** The inspected text, with each hidden character's token marked so it stands out from the text. */
function appendText(el: TextElements, into: HTMLElement, shown: ReturnType<typeof inspectText>): void {
  for (const segment of shown.segments) into.append(segment.type === 'text' ? segment.text : el('mark', segment.token, 'hidden-char'));
}
