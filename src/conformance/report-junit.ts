import { formatExchange } from './report-text';
import type { ConformanceReport } from './run-conformance';

/**
 * `--junit <file>`: the report as JUnit XML for CI. One test case per sentence and interface,
 * named `<check id> [interface]`, its class the spec section; a break is a `<failure>` with the
 * evidence, "not exercised" is `<skipped>`, a kit error is `<error>`.
 */

function escapeXml(text: string): string {
  // XML 1.0 allows neither most control characters nor lone surrogates: they become U+FFFD.
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

export function formatJunit(report: ConformanceReport): string {
  const cases: string[] = [];
  let tests = 0;
  let failures = 0;
  let skipped = 0;
  let errors = 0;
  for (const check of report.checks) {
    for (const finding of check.findings) {
      tests += 1;
      const name = `${check.id}${finding.interface === undefined ? '' : ` [${finding.interface}]`}: ${check.sentence}`;
      const open = `    <testcase classname="section ${escapeXml(check.section)}" name="${escapeXml(name)}" time="${(check.ms / 1000 / check.findings.length).toFixed(3)}"`;
      if (finding.status === 'holds') cases.push(`${open}/>`);
      else if (finding.status === 'breaks') {
        failures += 1;
        const text = finding.evidence.flatMap((e) => [`why: ${e.why}`, ...e.exchanges.flatMap((x) => formatExchange(x, '  '))]).join('\n');
        cases.push(`${open}>\n      <failure message="${escapeXml(finding.evidence[0]?.why ?? 'breaks')}">${escapeXml(text)}</failure>\n    </testcase>`);
      } else if (finding.status === 'not_exercised') {
        skipped += 1;
        cases.push(`${open}>\n      <skipped message="${escapeXml(`not exercised: ${finding.reason ?? ''}`)}"/>\n    </testcase>`);
      } else {
        errors += 1;
        cases.push(`${open}>\n      <error message="${escapeXml(finding.reason ?? 'kit error')}"/>\n    </testcase>`);
      }
    }
  }
  const suite = `  <testsuite name="countersign conformance ${escapeXml(report.company)}" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${(report.ms / 1000).toFixed(3)}" timestamp="${escapeXml(report.startedAt)}">`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="countersign conformance" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}">\n${suite}\n${cases.join('\n')}\n  </testsuite>\n</testsuites>\n`;
}
