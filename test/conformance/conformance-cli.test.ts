import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { JSDOM } from 'jsdom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany, type Company } from '../../src/company/index';
import { runConformanceCli, USAGE } from '../../src/conformance/conformance-cli';

const SCENARIO = new URL('../../docs/conformance/reference-company.json', import.meta.url).pathname;

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runConformanceCli({ argv, stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) } });
  return { code, stdout, stderr };
}

describe('countersign conformance (the command line)', () => {
  let company: Company;
  let dir: string;

  beforeAll(async () => {
    company = await createCompany({ testing: true });
    dir = mkdtempSync(path.join(tmpdir(), 'countersign-conformance-'));
  });

  afterAll(async () => {
    await company.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('--help and --version answer without touching anything', async () => {
    const help = await cli(['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toBe(`${USAGE}\n`);
    expect((await cli(['--version'])).stdout).toMatch(/^countersign \S+\n$/);
  });

  it('exit 0 with every selected sentence holding; progress on stderr; text, JSON and JUnit reports', async () => {
    const junit = path.join(dir, 'ok.xml');
    const text = await cli(['conformance', '--company', company.url, '--scenario', SCENARIO, '--only', '2-poppy-json', '--only', '6-performs', '--junit', junit]);
    expect(text.code).toBe(0);
    expect(text.stderr).toMatch(/\[1\/2\] 2-poppy-json …\n\[1\/2\] 2-poppy-json: holds/);
    expect(text.stdout).toMatch(/^holds +6 +6-performs \[api: holds, mcp: holds, conversation: holds\]$/m);
    expect(text.stdout).toMatch(/2 sentences: 2 hold, 0 break, 0 not exercised/);
    const xml = new JSDOM(readFileSync(junit, 'utf8'), { contentType: 'text/xml' }).window.document;
    expect(xml.querySelector('parsererror')).toBeNull();
    expect(xml.querySelector('testsuites')?.getAttribute('tests')).toBe('4');
    expect(xml.querySelectorAll('testcase')).toHaveLength(4);
    const json = await cli(['conformance', '--company', company.url, '--scenario', SCENARIO, '--only', '2-poppy-json', '--json', '--quiet']);
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout)).toMatchObject({ company: company.url, summary: { holds: 1, breaks: 0 }, checks: [{ id: '2-poppy-json', status: 'holds' }] });
  });

  it('exit 1 on a break, with the evidence in the text report and a <failure> in JUnit', async () => {
    company.faults.breaks.add('replay-error');
    try {
      const junit = path.join(dir, 'break.xml');
      const run = await cli(['conformance', '--company', company.url, '--scenario', SCENARIO, '--only', '7-first-response', '--junit', junit, '--quiet']);
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/^BREAKS +7 +7-first-response \[api: BREAKS/m);
      expect(run.stdout).toMatch(/api: why: the same approval again: expected the action's ordinary answer again, got an error \(HTTP 409\)/);
      expect(run.stdout).toMatch(/api: +> POST http:\/\/127\.0\.0\.1:\d+\/orders\/ord_[\w-]+\/exchanges/);
      expect(run.stdout).toMatch(/Poppy-Session: [\w-]{16}…\(\d+ characters\)/);
      const xml = new JSDOM(readFileSync(junit, 'utf8'), { contentType: 'text/xml' }).window.document;
      expect(xml.querySelector('testcase failure')?.getAttribute('message')).toMatch(/the same approval again/);
    } finally {
      company.faults.breaks.clear();
    }
  });

  it('exit 2, nothing sent: a bad scenario, an unknown check, a Company elsewhere without --i-own-this-company', async () => {
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ version: 1, api: { operation: { method: 'POST', path: '/orders/{{order}}' } } }));
    const scenario = await cli(['conformance', '--company', company.url, '--scenario', bad]);
    expect(scenario).toMatchObject({ code: 2, stdout: '' });
    expect(scenario.stderr).toMatch(/ERR_SCENARIO_INVALID: scenario: \{\{order\}\}/);
    expect((await cli(['conformance', '--company', company.url, '--scenario', path.join(dir, 'missing.json')])).stderr).toMatch(/--scenario: cannot read .*ENOENT/);
    expect((await cli(['conformance', '--company', company.url, '--scenario', SCENARIO, '--only', 'nope'])).stderr).toMatch(/ERR_ARGUMENT_INVALID: only: expected check IDs/);
    const far = await cli(['conformance', '--company', 'https://shop.example', '--scenario', SCENARIO]);
    expect(far.code).toBe(2);
    expect(far.stderr).toMatch(/ERR_NOT_ALLOWED: company: https:\/\/shop\.example is not on this machine.*--i-own-this-company/);
    expect((await cli(['conformance', '--company', `${company.url}/api`, '--scenario', SCENARIO])).stderr).toMatch(/expected an origin/);
    expect((await cli(['conformance', '--scenario', SCENARIO])).stderr).toMatch(/--company: expected an origin/);
    expect((await cli(['conformance', '--company', company.url, '--scenario', SCENARIO, '--bogus'])).code).toBe(2);
    expect((await cli(['probe'])).stderr).toMatch(/unknown command probe/);
  });
});
