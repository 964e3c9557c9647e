import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createCompany, type SpecBreak } from '../../src/company/index';
import { runConformance } from '../../src/conformance/run-conformance';
import { parseScenario } from '../../src/conformance/scenario';
import { CHECKS } from '../../src/conformance/checks/index';
import { parseDictionary } from 'structured-headers';
import { DECLARED, UNDECLARED } from '../../src/conformance/checks/section-2';
import { forgedRevision, unknownMemberProbes, UNKNOWN_MEMBERS } from '../../src/conformance/checks/section-6';
import { Tally } from '../../src/conformance/conformance-run';
import { operationInError } from '../../src/conformance/mcp-thread';
import { parseExtensionsHeader } from '../../src/protocol/advertising-support';
import { sameResponse } from '../../src/conformance/checks/section-7';
import type { Answer } from '../../src/conformance/answer';
import { parseDictionaryField } from '../../src/protocol/structured-fields';
import { isId } from '../../src/protocol/id';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SPEC = readFileSync(path.join(ROOT, 'test/fixtures/operations-extension-v2.md'), 'utf8');
const DOC = readFileSync(path.join(ROOT, 'docs/conformance.md'), 'utf8');

/** The spec's prose as a reader sees it: links as their text, no code marks, one space. */
const PROSE = SPEC.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '').replace(/\*\*/g, '').replace(/\s+/g, ' ');

describe('the checks of countersign conformance', () => {
  it('quote the spec word for word, each under its own section', () => {
    for (const check of CHECKS) {
      expect(PROSE, check.id).toContain(check.sentence);
      const heading = new RegExp(`## ${check.section}\\. [\\s\\S]*?(?=\\n## \\d|$)`).exec(SPEC.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, ''))?.[0].replace(/\s+/g, ' ');
      expect(heading, check.id).toContain(check.sentence);
    }
  });

  it('have unique ids named after their section, and the RFC 2119 level of their sentence', () => {
    expect(new Set(CHECKS.map((c) => c.id)).size).toBe(CHECKS.length);
    for (const check of CHECKS) {
      expect(check.id.startsWith(`${check.section}-`), check.id).toBe(true);
      if (check.level === 'SHOULD') expect(check.sentence).toMatch(/\bSHOULD\b/);
      if (/\bMUST NOT\b/.test(check.sentence)) expect(check.level, check.id).toBe('MUST NOT');
    }
  });

  it('are each listed in docs/conformance.md, in the same order', () => {
    const listed = [...DOC.matchAll(/^\| `([0-9]-[a-z0-9-]+)` \|/gm)].map((m) => m[1]);
    expect(listed).toEqual(CHECKS.map((c) => c.id));
  });

  it('unknown members of every RFC 9651 type are valid Dictionary members (a break can only be the Company\'s)', () => {
    const field = `operation_id="exc_1", revision="1-a", ${UNKNOWN_MEMBERS.map(([, m]) => m).join(', ')}`;
    const parsed = parseDictionaryField(field);
    expect([...parsed.keys()]).toHaveLength(2 + UNKNOWN_MEMBERS.length);
    expect(parsed.get('future_date')?.[0]).toEqual(new Date(1659578233 * 1000));
  });

  it('a forged revision is another valid ID', () => {
    for (const revision of ['1791487200-k3Jd9Qx2mW8v', 'A', 'xA']) {
      expect(forgedRevision(revision)).not.toBe(revision);
      expect(isId(forgedRevision(revision))).toBe(true);
    }
  });

  it('section 7: "one that says the same" allows added members, not changed ones', () => {
    const api = (status: number, body: unknown): Answer => ({ interface: 'api', kind: status < 300 ? 'done' : 'refused', status, body, exchanges: [] });
    const first = api(200, { exchange: { id: 'x', status: 'completed' } });
    expect(sameResponse(first, api(200, { exchange: { id: 'x', status: 'completed' }, replayed: true }))).toBeUndefined();
    expect(sameResponse(first, api(200, { exchange: { id: 'y', status: 'completed' } }))).toMatch(/body/);
    expect(sameResponse(first, api(409, { error: 'already_performed' }))).toMatch(/ordinary answer/);
    const mcp = (structuredContent: unknown): Answer => ({ interface: 'mcp', kind: 'done', result: { structuredContent }, exchanges: [] });
    expect(sameResponse(mcp({ a: 1 }), mcp({ a: 1, b: 2 }))).toBeUndefined();
    expect(sameResponse(mcp({ a: 1 }), mcp({ a: 2 }))).toMatch(/structuredContent/);
    expect(sameResponse(first, mcp({ whatever: true }))).toBeUndefined();
    const said = (kind: Answer['kind']): Answer => ({ interface: 'conversation', kind, exchanges: [] });
    expect(sameResponse(said('message'), said('silent'))).toBeUndefined();
    expect(sameResponse(said('message'), said('operation'))).toMatch(/nothing added/);
  });

  it('section 7: "a new message with the same approval adds nothing": any Company message after it is something added', () => {
    const said = (kind: Answer['kind']): Answer => ({ interface: 'conversation', kind, exchanges: [] });
    expect(sameResponse(said('message'), said('message'))).toMatch(/nothing added, got a Company message without an operation/);
    expect(sameResponse(said('message'), said('refused'))).toMatch(/nothing added/);
  });

  it('section 2: every UNDECLARED value declares no operations v2 and every DECLARED one does (a break can only be the Company\'s)', () => {
    for (const value of UNDECLARED) if (value !== false) expect(parseExtensionsHeader(value), value).toBe(false);
    for (const value of DECLARED) expect(parseExtensionsHeader(value), value).toBe(true);
    // The ways of naming it without the String v the declaration has.
    expect(UNDECLARED).toEqual(expect.arrayContaining(['"operations"', '"operations";v=2', 'operations;v="2"']));
    expect(DECLARED).toEqual(expect.arrayContaining(['"operations";v="2.1"']));
  });

  it('section 6: each unknown-member probe is a valid approval, and one has the Date before the other members, which structured-headers 2.1.0 alone refuses', () => {
    const operation = { operation_id: 'exc_1', revision: '1-a', summary: 's', expires_at: '2026-10-08T19:20:00Z' };
    const probes = unknownMemberProbes(operation);
    expect(probes).toHaveLength(UNKNOWN_MEMBERS.length + 1);
    for (const [type, header] of probes) {
      const parsed = parseDictionaryField(header);
      expect(parsed.get('operation_id')?.[0], type).toBe('exc_1');
      expect(parsed.get('revision')?.[0], type).toBe('1-a');
    }
    const [, dateFirst] = probes.find(([type]) => type === 'Date before the other members') as [string, string];
    expect(dateFirst.startsWith('future_date=@1659578233, ')).toBe(true);
    expect(() => parseDictionary(dateFirst)).toThrow();
    expect(() => parseDictionary(`${dateFirst.slice('future_date=@1659578233, '.length)}, future_date=@1659578233`)).not.toThrow();
  });

  it('section 4: an operation in a JSON-RPC error or an HTTP approval_required body is still found (so section 4 breaks, not section 2)', () => {
    const operation = { operation_id: 'exc_1' };
    expect(operationInError({ code: -32001, message: 'approval_required', data: { operation } })).toBe(operation);
    expect(operationInError({ code: -32001, message: 'x', data: { structuredContent: { operation } } })).toBe(operation);
    expect(operationInError({ error: 'approval_required', operation })).toBe(operation);
    expect(operationInError({ code: -32600, message: 'extension_required', data: { extension: 'operations' } })).toBeUndefined();
    expect(operationInError({ error: 'invalid_request', operation })).toBeUndefined();
    expect(operationInError('approval_required')).toBeUndefined();
  });

  it('outcome counters: performs are the most any counter grew, and every change is named', () => {
    const before = new Tally(['exchanges', 'card payments'], [2, 0]);
    expect(new Tally(before.names, [3, 1]).performsSince(before)).toBe(1);
    expect(new Tally(before.names, [2, 1]).performsSince(before)).toBe(1);
    expect(new Tally(before.names, [4, 1]).performsSince(before)).toBe(2);
    expect(new Tally(before.names, [1, 0]).performsSince(before)).toBe(0);
    expect(new Tally(before.names, [2, 0]).changesSince(before)).toBe('');
    expect(new Tally(before.names, [2, 1]).changesSince(before)).toBe('card payments 0 → 1');
    expect(new Tally(before.names, [3, 1]).changesSince(before)).toBe('exchanges 2 → 3, card payments 0 → 1');
  });

  it('share src/protocol but never the reference Company or the agent SDK', () => {
    const dir = path.join(ROOT, 'src/conformance');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const text = readFileSync(path.join(dir, file), 'utf8');
      for (const [, spec = ''] of text.matchAll(/from '([^']+)'/g)) {
        const allowed = spec.startsWith('node:') || spec === 'zod' || spec.startsWith('@modelcontextprotocol/sdk/') || spec.startsWith('./') || /^(\.\.\/)+protocol\//.test(spec) || (file.startsWith('checks') && /^\.\.\/[a-z-]+$/.test(spec));
        expect(allowed, `${file}: ${spec}`).toBe(true);
      }
    }
  });
});

describe('3-at-most-once-any-revision, one check against the reference Company', () => {
  const SCENARIO = parseScenario(readFileSync(path.join(ROOT, 'docs/conformance/reference-company.json'), 'utf8'));

  async function statusWith(name: SpecBreak | undefined): Promise<{ status: string; why: string }> {
    const company = await createCompany({ testing: true });
    try {
      if (name !== undefined) company.faults.breaks.add(name);
      const report = await runConformance({ company: company.url, scenario: SCENARIO, only: ['3-at-most-once-any-revision'] });
      const [check] = report.checks;
      return { status: check?.status ?? '', why: check?.findings.map((f) => f.reason ?? f.evidence.map((e) => e.why).join('; ')).join(' | ') ?? '' };
    } finally {
      await company.close();
    }
  }

  it('holds on the reference Company, breaks when two revisions approved at once both perform, and leaves a Company with no lock at all to section 7', async () => {
    const [clean, perRevision, noLock] = await Promise.all([statusWith(undefined), statusWith('lock-per-revision'), statusWith('perform-twice-concurrently')]);
    expect(clean).toEqual({ status: 'holds', why: '' });
    expect(perRevision.status).toBe('breaks');
    expect(perRevision.why).toMatch(/api operation .* mcp operation .* approved at once: expected one perform at most, the outcome counts [2-9]/);
    expect(noLock).toEqual({ status: 'not_exercised', why: expect.stringMatching(/see 7-at-most-once-concurrent/) });
  }, 120_000);
});
