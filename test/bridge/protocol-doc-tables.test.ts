import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_PENDING_PER_AGENT } from '../../src/extension/approval-queue';
import { ERROR_CODES } from '../../src/protocol/errors';

// docs/bridge-protocol.md's tables are read by people implementing the protocol in another
// language: a row with a cell too many or too few (a splice) reads as a wrong rule, and an error
// code missing from section 12 is one they cannot handle by name.

const doc = readFileSync(new URL('../../docs/bridge-protocol.md', import.meta.url), 'utf8');

/** Every table of the page: its section heading, then its rows as cells (the separator row left out). */
function tables(markdown: string): Array<{ heading: string; line: number; rows: string[][] }> {
  const out: Array<{ heading: string; line: number; rows: string[][] }> = [];
  let heading = '';
  let current: { heading: string; line: number; rows: string[][] } | undefined;
  let fence = false;
  markdown.split('\n').forEach((text, i) => {
    if (text.startsWith('```')) fence = !fence;
    if (fence) return;
    if (/^#{2,4} /.test(text)) heading = text.replace(/^#+ /, '');
    if (!text.startsWith('|')) {
      current = undefined;
      return;
    }
    if (current === undefined) {
      current = { heading, line: i + 1, rows: [] };
      out.push(current);
    }
    // A `|` inside code spans or escaped as \| is not a column.
    const cells = text.replace(/\\\|/g, '').replace(/`[^`]*`/g, (code) => code.replace(/\|/g, '')).split('|').slice(1, -1);
    if (cells.every((c) => /^\s*:?-{3,}:?\s*$/.test(c))) return;
    current.rows.push(cells.map((c) => c.trim()));
  });
  return out;
}

/** The `ERR_` codes the extension and the bridge write into messages they send. */
function codesSentOnTheWire(): Set<string> {
  const files = [
    ...readdirSync(new URL('../../src/extension/', import.meta.url)).filter((f) => f.endsWith('.ts')).map((f) => join('src/extension', f)),
    // The answers to agents' messages, one module per message (src/extension/bridge-messages/).
    ...readdirSync(new URL('../../src/extension/bridge-messages/', import.meta.url)).filter((f) => f.endsWith('.ts')).map((f) => join('src/extension/bridge-messages', f)),
    ...readdirSync(new URL('../../src/bridge/', import.meta.url)).filter((f) => f.endsWith('.ts')).map((f) => join('src/bridge', f)),
  ];
  const codes = new Set<string>();
  for (const file of files) {
    const text = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
    for (const m of text.matchAll(/'(ERR_[A-Z_]+)'/g)) codes.add(m[1] as string);
  }
  return codes;
}

describe('docs/bridge-protocol.md tables', () => {
  const all = tables(doc);

  it('finds the tables (the state table of section 9.6 and the errors of section 12 among them)', () => {
    expect(all.length).toBeGreaterThan(5);
    expect(all.some((t) => t.heading.startsWith('9.6'))).toBe(true);
    expect(all.some((t) => t.heading.startsWith('12.'))).toBe(true);
  });

  it('every row has as many cells as its header', () => {
    const wrong = all.flatMap((t) => t.rows.filter((r) => r.length !== t.rows[0]?.length).map((r) => `${t.heading} (table at line ${t.line}): ${r.length} cells, header has ${t.rows[0]?.length}: ${r.join(' | ').slice(0, 100)}`));
    expect(wrong).toEqual([]);
  });

  it('the splice check fails on a spliced row', () => {
    const spliced = '## x\n\n| a | b | c |\n| --- | --- | --- |\n| 1 | `ERR_X` | 3 | 4 |\n';
    const [t] = tables(spliced);
    expect(t?.rows.map((r) => r.length)).toEqual([3, 4]);
  });

  it('section 12 names every code the extension and the bridge send, and only codes that exist', () => {
    const errors = all.find((t) => t.heading.startsWith('12.'));
    const documented = new Set((errors?.rows ?? []).slice(1).map((r) => /^`(ERR_[A-Z_]+)`$/.exec(r[0] ?? '')?.[1]).filter((c): c is string => c !== undefined));
    const known = new Set<string>(ERROR_CODES);
    expect([...documented].filter((c) => !known.has(c))).toEqual([]);
    // Codes these rooms use between their own modules and pages, never in a message to an agent:
    // a failure of the extension's store or key reaches an agent as ERR_REMOTE, an Approve click on
    // an expired revision is answered to the window, the installer's codes are the CLI's.
    const local = new Set(['ERR_STORAGE_FAILED', 'ERR_KEY_INVALID', 'ERR_DECISION_INVALID', 'ERR_DECISION_EXPIRED', 'ERR_PASSKEY_INVALID', 'ERR_INSTALL_FAILED', 'ERR_UNSUPPORTED_PLATFORM']);
    expect([...codesSentOnTheWire()].filter((c) => !local.has(c) && !documented.has(c)).sort()).toEqual([]);
  });

  it('section 9.1 states how many approvals of one agent may wait, as the extension counts them', () => {
    expect(doc).toContain(`\`ERR_THROTTLED\` (${MAX_PENDING_PER_AGENT} approvals of this agent already wait for the User;`);
  });
});
