import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/conformance/checks/index';
import { forgedRevision, UNKNOWN_MEMBERS } from '../../src/conformance/checks/section-6';
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
