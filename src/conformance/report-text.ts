import type { CheckResult, Evidence, Status } from './check';
import type { Exchange } from './company-http';
import type { ConformanceReport } from './run-conformance';

/**
 * The human report of `countersign conformance`: one line per spec sentence (holds, breaks, not
 * exercised), and under each break the evidence: what the kit sent, what came back, and why that
 * breaks the sentence (docs/conformance.md, "The report").
 */

export const STATUS_LABEL: Record<Status, string> = { holds: 'holds', breaks: 'BREAKS', not_exercised: 'not exercised', error: 'kit error' };
const MAX_BODY = 600;

function oneLine(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_BODY ? `${text.slice(0, MAX_BODY)}…` : text;
}

export function formatExchange(exchange: Exchange, indent: string): string[] {
  const { request, response } = exchange;
  const lines = [`${indent}> ${request.method} ${request.url}`];
  for (const [name, value] of Object.entries(request.headers)) if (/^(poppy-|authorization|mcp-session-id)/i.test(name)) lines.push(`${indent}>   ${name}: ${oneLine(value)}`);
  if (request.body !== undefined) lines.push(`${indent}>   ${oneLine(request.body)}`);
  if (response === undefined) lines.push(`${indent}< no response: ${exchange.error ?? 'unknown'}`);
  else {
    const headers = Object.entries(response.headers).filter(([name]) => name !== 'content-type').map(([name, value]) => `${name}: ${value}`);
    lines.push(`${indent}< ${response.status}${headers.length > 0 ? `  ${headers.join('; ')}` : ''}`);
    lines.push(`${indent}<   ${oneLine(response.body)}`);
  }
  return lines;
}

function formatEvidence(evidence: Evidence, indent: string): string[] {
  return [`${indent}why: ${evidence.why}`, ...evidence.exchanges.flatMap((e) => formatExchange(e, `${indent}  `))];
}

function where(result: CheckResult): string {
  const parts = result.findings.map((f) => `${f.interface ?? 'company'}: ${STATUS_LABEL[f.status]}`);
  return result.findings.length === 1 && result.findings[0]?.interface === undefined ? '' : ` [${parts.join(', ')}]`;
}

export function formatCheck(result: CheckResult, verbose: boolean): string[] {
  const lines = [`${STATUS_LABEL[result.status].padEnd(13)} ${result.section}  ${result.id}${where(result)}`, `              "${result.sentence}" (${result.level})`];
  for (const finding of result.findings) {
    const name = finding.interface ?? 'company';
    if (finding.status === 'breaks') for (const e of finding.evidence) lines.push(...formatEvidence(e, `              ${name}: `));
    if ((finding.status === 'not_exercised' && verbose) || finding.status === 'error') lines.push(`              ${name}: ${finding.reason ?? ''}`);
  }
  return lines;
}

export function formatReport(report: ConformanceReport, options: { verbose?: boolean } = {}): string {
  const lines = [`countersign conformance ${report.kit.version}: ${report.company}${report.scenario === undefined ? '' : ` (${report.scenario})`}`, ''];
  for (const result of report.checks) lines.push(...formatCheck(result, options.verbose ?? true));
  const { holds, breaks, not_exercised, error } = report.summary;
  lines.push('', `${report.checks.length} sentences: ${holds} hold, ${breaks} break, ${not_exercised} not exercised${error > 0 ? `, ${error} kit errors` : ''} (${(report.ms / 1000).toFixed(1)} s)`);
  return `${lines.join('\n')}\n`;
}
