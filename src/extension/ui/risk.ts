import { inspectText } from '../../summary/text-inspection.ts';
import { inspectCompanyName } from '../../summary/company-name.ts';
import type { ReviewFinding, CheckedStatement } from '../../review/types.ts';
import type { OriginWarningCode } from '../../summary/origin.ts';
import type { MessageText } from '../../summary/message-text.ts';
import type { ApprovalView, ReviewedView } from '../snapshot';
import type { ToolAction } from './tool-call-action';

/** A sentence a module wrote for the person, with the message it comes from when it has one. */
export interface Said {
  message: string;
  text?: MessageText | undefined;
}

export interface RiskItem extends Said {
  severity: 'danger' | 'warning' | 'info';
  /** Where it came from: the review of the terms, the Company's name, its web address, or a tool call's own flags. */
  source: 'review' | 'name' | 'origin' | 'summary' | 'call';
  /** For a finding of the review: where in the terms (`price_difference`), to name it as the facts do. */
  path?: string;
}

/**
 * Everything the window knows against an item, sorted by how much it matters. Danger (a finding
 * of the review, a look-alike name, a deceptive address) changes the decision itself: Decline
 * becomes the main button and Approve needs "I understand the risk" (docs/ui.md, "Danger").
 */
export interface Risk {
  /** True when anything is a danger: the window leads with Decline. */
  danger: boolean;
  /** The address itself is suspect: the heading leads with the domain, not the claimed name. */
  originWarning: boolean;
  items: RiskItem[];
  /** What the review checked and found true; shown under "Technical details". */
  checked: CheckedStatement[];
}

const ORDER = { danger: 0, warning: 1, info: 2 } as const;

/** `localhost`, 127.0.0.0/8 and ::1: this computer (where plain http stays on the machine). */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '[::1]';
}

/**
 * How much an address warning weighs. Most say the address may not be who it claims to be:
 * danger. An elided subdomain is a display note; a bare IP address or a local name is worth
 * a look; plain http is a danger except on this computer, where it never crosses a network.
 */
function originSeverity(code: OriginWarningCode, asciiHost: string): RiskItem['severity'] {
  if (code === 'subdomain-elided') return 'info';
  if (code === 'ip-address' || code === 'no-registrable-domain') return isLoopback(asciiHost) ? 'info' : 'warning';
  if (code === 'insecure-scheme' && isLoopback(asciiHost)) return 'info';
  return 'danger';
}

function fromFinding(f: ReviewFinding): RiskItem {
  return { severity: f.severity, source: 'review', message: f.message, text: f.text, path: f.path };
}

/** At most this many of a call's flags become danger lines; the card lists them all in its arguments. */
const MAX_CALL_FLAGS = 12;

/**
 * A coding agent's hook lists what a person must not miss about a call (`countersign_findings`:
 * sudo, rm -rf, curl | sh, a push, a path outside the project or a home dotfile; see
 * docs/coding-agents.md, "Findings"). The asking side can only add caution this way, never take
 * it away, so each flag is a danger: Decline leads and Approve needs "I understand the risk". Its
 * text is data, shown with hidden characters revealed.
 */
function callFlags(view: ApprovalView): RiskItem[] {
  const flags = view.toolCall?.arguments['countersign_findings'];
  if (!Array.isArray(flags)) return [];
  return flags
    .filter((flag): flag is string => typeof flag === 'string' && flag !== '')
    .slice(0, MAX_CALL_FLAGS)
    .map((flag) => {
      const shown = inspectText(flag, { singleLine: true }).display;
      return { severity: 'danger', source: 'call', message: `Flagged by the agent's hook: this call ${shown}.`, text: { key: 'toolCallFlagged', substitutions: [shown] } };
    });
}

/**
 * A tool call that deletes, or whose server marks the tool destructive (MCP `destructiveHint`):
 * a danger, so Decline leads. The server's hints only ever add caution (docs/ui.md, "A tool call").
 */
function destructive(view: ApprovalView, action: ToolAction | undefined): RiskItem[] {
  if (!action?.destructive) return [];
  if (view.toolCall?.annotations?.destructiveHint === true) {
    return [{ severity: 'danger', source: 'call', message: 'The server marks this tool as destructive: it may delete or overwrite data.', text: { key: 'toolCallDestructiveHint', substitutions: [] } }];
  }
  return [{ severity: 'danger', source: 'call', message: `This deletes ${action.target}.`, text: { key: 'toolCallDeletes', substitutions: [action.target] } }];
}

export function assessRisk(view: ReviewedView, summaryHasHidden: boolean, action?: ToolAction): Risk {
  const name = inspectText(view.company.name, { singleLine: true });
  const items: RiskItem[] = [];
  for (const f of name.findings) items.push({ severity: 'danger', source: 'name', message: f.message, text: f.text });
  for (const f of inspectCompanyName(view.company.name)) items.push({ severity: f.severity, source: 'name', message: f.message, text: f.text });
  for (const w of view.origin?.warnings ?? []) items.push({ severity: originSeverity(w.code, view.origin!.asciiHost), source: 'origin', message: w.message, text: w.text });
  if (summaryHasHidden) items.push({ severity: 'warning', source: 'summary', message: 'The summary contains hidden characters, shown as tokens.', text: { key: 'hygieneWarning', substitutions: [] } });
  // The review of the Company's words against its terms, and the facts' own dangers, ran in the
  // background on this very revision (snapshot-review.ts); a tool call has none.
  items.push(...view.review.findings.map(fromFinding));
  items.push(...destructive(view, action), ...callFlags(view));
  items.sort((a, b) => ORDER[a.severity] - ORDER[b.severity]);
  return {
    danger: items.some((i) => i.severity === 'danger'),
    originWarning: items.some((i) => i.source === 'origin' && i.severity === 'danger'),
    items,
    checked: view.review.checked,
  };
}
