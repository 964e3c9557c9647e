import { CountersignError } from '../protocol/errors';
import { PACKAGE_VERSION } from '../protocol/package-version';
import { CheckContext, type Check, type CheckResult, type Finding, type Status } from './check';
import { CHECKS } from './checks/index';
import { isLocalOrigin } from './company-http';
import { NotExercised, ConformanceRun } from './conformance-run';
import type { InterfaceName, Scenario } from './scenario';
import { createSessionSigner } from './session-token';

/**
 * `runConformance`: every check of the kit against one Company, one after the other (a check's
 * performs and clock moves must not overlap another's observations). Checks that move the
 * Company's clock or slow its performs run last.
 */

export interface ConformanceProgress {
  index: number;
  total: number;
  check: Check;
  /** Undefined when the check starts, the result when it has finished. */
  result?: CheckResult;
}

export interface ConformanceOptions {
  /** The Company's origin, e.g. `http://127.0.0.1:8787`. */
  company: string;
  scenario: Scenario;
  /** Needed for any origin that is not this machine: the kit performs real actions. */
  ownsCompany?: boolean;
  /** Run only these check IDs. */
  only?: readonly string[];
  onProgress?: (progress: ConformanceProgress) => void;
}

export interface ConformanceReport {
  kit: { name: 'countersign conformance'; version: string };
  company: string;
  scenario?: string;
  startedAt: string;
  ms: number;
  summary: Record<Status, number>;
  checks: CheckResult[];
}

function companyOrigin(company: string, ownsCompany: boolean): URL {
  let url: URL;
  try {
    url = new URL(company);
  } catch (cause) {
    throw new CountersignError('ERR_ARGUMENT_INVALID', `company: expected an origin such as https://shop.example, got ${JSON.stringify(company)}`, { cause });
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '') {
    throw new CountersignError('ERR_ARGUMENT_INVALID', `company: expected an origin (scheme, host and port only), got ${JSON.stringify(company)}`);
  }
  if (!ownsCompany && !isLocalOrigin(url)) {
    throw new CountersignError('ERR_NOT_ALLOWED', `company: ${url.origin} is not on this machine, and the kit performs real actions there: pass --i-own-this-company if it is yours (a test Company)`);
  }
  return new URL(url.origin);
}

function aggregate(findings: Finding[]): Status {
  for (const status of ['breaks', 'error', 'holds'] as const) if (findings.some((f) => f.status === status)) return status;
  return 'not_exercised';
}

async function runOne(conformance: ConformanceRun, check: Check, iface: InterfaceName | undefined): Promise<Finding> {
  const context = new CheckContext(conformance, iface ?? conformance.interfaces()[0] ?? 'api');
  const where = iface === undefined ? {} : { interface: iface };
  try {
    await check.run(context);
    return { ...where, status: context.evidence.length > 0 ? 'breaks' : 'holds', evidence: context.evidence };
  } catch (cause) {
    // A break recorded before the check had to stop is still a break.
    if (context.evidence.length > 0) return { ...where, status: 'breaks', evidence: context.evidence };
    if (cause instanceof NotExercised) return { ...where, status: 'not_exercised', reason: cause.message, evidence: [] };
    return { ...where, status: 'error', reason: cause instanceof Error ? cause.message : String(cause), evidence: [] };
  }
}

function interfacesOf(check: Check, conformance: ConformanceRun): Array<InterfaceName | undefined> {
  if (check.scope === 'once') return [undefined];
  return conformance.interfaces().filter((name) => check.only === undefined || check.only.includes(name));
}

export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const origin = companyOrigin(options.company, options.ownsCompany === true);
  const only = options.only;
  const unknown = only?.find((id) => !CHECKS.some((c) => c.id === id));
  if (unknown !== undefined) throw new CountersignError('ERR_ARGUMENT_INVALID', `only: expected check IDs (docs/conformance.md), got ${unknown}`);
  const signer = await createSessionSigner({ audience: origin.origin, clientId: options.scenario.session?.clientId, privateKeyJwk: options.scenario.session?.privateKeyJwk, claims: options.scenario.session?.claims });
  const conformance = new ConformanceRun({ scenario: options.scenario, origin, signer });
  const selected = CHECKS.filter((c) => only === undefined || only.includes(c.id));
  const ordered = [...selected.filter((c) => c.late !== true), ...selected.filter((c) => c.late === true)];
  const started = Date.now();
  const checks: CheckResult[] = [];
  for (const [index, check] of ordered.entries()) {
    options.onProgress?.({ index, total: ordered.length, check });
    const t0 = Date.now();
    const findings: Finding[] = [];
    const targets = interfacesOf(check, conformance);
    for (const iface of targets) findings.push(await runOne(conformance, check, iface));
    if (targets.length === 0) findings.push({ status: 'not_exercised', reason: `the scenario has none of ${check.only?.join(', ') ?? 'its interfaces'}`, evidence: [] });
    const result: CheckResult = { id: check.id, section: check.section, level: check.level, sentence: check.sentence, status: aggregate(findings), findings, ms: Date.now() - t0 };
    checks.push(result);
    options.onProgress?.({ index, total: ordered.length, check, result });
  }
  const order = new Map(CHECKS.map((c, i) => [c.id, i]));
  checks.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  const summary: Record<Status, number> = { holds: 0, breaks: 0, not_exercised: 0, error: 0 };
  for (const c of checks) summary[c.status] += 1;
  return {
    kit: { name: 'countersign conformance', version: PACKAGE_VERSION },
    company: origin.origin,
    ...(options.scenario.name === undefined ? {} : { scenario: options.scenario.name }),
    startedAt: new Date(started).toISOString(),
    ms: Date.now() - started,
    summary,
    checks,
  };
}
