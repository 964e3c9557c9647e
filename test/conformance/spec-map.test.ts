import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NORMATIVE, normalize, normativeSentences, sentencesOf } from './support/spec-sentences';
import { titlesOf } from './support/test-titles';

/**
 * docs/spec-map.md lists every MUST, MUST NOT and SHOULD sentence of the operations extension v2
 * with the module and the tests that carry it. This test fails when a sentence of the
 * spec has no row, when a row quotes something the spec doesn't say, when a file named in a row
 * doesn't exist, or when a row names a test title that isn't in its file.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SPEC = path.join(ROOT, 'test', 'fixtures', 'operations-extension-v2.md');
const MAP = path.join(ROOT, 'docs', 'spec-map.md');

interface Table {
  header: string[];
  rows: Array<{ line: number; cells: Record<string, string> }>;
}

function cellsOf(line: string): string[] {
  return line
    .split(/(?<!\\)\|/)
    .slice(1, -1)
    .map((c) => c.trim().replace(/\\\|/g, '|'));
}

/** The tables of a Markdown page, each with its header's column names. */
function tables(markdown: string): Table[] {
  const out: Table[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith('|') || !/^\|\s*:?-{3,}/.test(lines[i + 1] ?? '')) continue;
    const header = cellsOf(lines[i]!);
    const table: Table = { header, rows: [] };
    let j = i + 2;
    for (; j < lines.length && lines[j]!.startsWith('|'); j++) {
      const values = cellsOf(lines[j]!);
      table.rows.push({ line: j + 1, cells: Object.fromEntries(header.map((name, k) => [name, values[k] ?? ''])) });
    }
    out.push(table);
    i = j;
  }
  return out;
}

/** `` `file` › title `` entries of a Tests cell. */
function testRefs(cell: string): Array<{ file: string; title: string } | { bad: string }> {
  return cell
    .split(/<br\s*\/?>/)
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const m = /^`([^`]+)`\s*›\s*(.+)$/.exec(part);
      return m === null ? { bad: part } : { file: m[1] as string, title: (m[2] as string).trim() };
    });
}

const spec = readFileSync(SPEC, 'utf8');
const map = readFileSync(MAP, 'utf8');
const sentences = normativeSentences(spec);
const [normativeTable, ...otherTables] = tables(map);

describe('docs/spec-map.md covers every MUST, MUST NOT and SHOULD of the spec', () => {
  it('the spec text stands alone in test/fixtures, with its Apache-2.0 licence line', () => {
    expect(spec).toContain('Licensed under the [Apache License 2.0](https://personalagentprotocol.org/license).');
    expect(spec).toContain('# Operations extension');
  });

  it('the extraction finds the sentences where the spec puts them: paragraphs, list items, table cells, a sentence that ends in a colon', () => {
    const texts = sentences.map((s) => s.text);
    expect(texts).toContain('A Company MUST NOT return operations in response to a request that doesn\'t declare it.');
    expect(texts).toContain('It stays the same when the terms change (see "New terms"), and the Company MUST NOT use it for another action.');
    expect(texts).toContain('The Personal Agent MUST ask the User about each operation.');
    expect(texts.some((t) => t.endsWith('whatever order it makes them in internally:'))).toBe(true);
    // No fenced example and no MAY is taken for a requirement; every sentence has its keyword.
    for (const s of sentences) expect(s.text).toMatch(NORMATIVE);
    expect(texts.some((t) => t.includes('MAY') && !/MUST|SHOULD/.test(t))).toBe(false);
    expect(sentencesOf('One. Two (7). "Three" here.')).toEqual(['One.', 'Two (7).', '"Three" here.']);
    expect(sentences.map((s) => s.section)).toEqual(expect.arrayContaining(['2', '3', '5', '6', '7']));
  });

  it('every MUST, MUST NOT and SHOULD sentence has a row', () => {
    expect(normativeTable?.header).toEqual(['#', '§', 'Sentence', 'Who', 'Carried by', 'Tests']);
    const listed = new Set(normativeTable!.rows.map((r) => normalize(r.cells['Sentence'] as string)));
    const missing = sentences.filter((s) => !listed.has(s.text)).map((s) => `§${s.section}: ${s.text}`);
    expect(missing).toEqual([]);
  });

  it('every row quotes a sentence of the spec, under its section, once', () => {
    const bySentence = new Map(sentences.map((s) => [s.text, s.section]));
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const row of normativeTable!.rows) {
      const text = normalize(row.cells['Sentence'] as string);
      if (!bySentence.has(text)) problems.push(`line ${row.line}: not a MUST/MUST NOT/SHOULD sentence of the spec: ${text}`);
      else if (bySentence.get(text) !== row.cells['§']) problems.push(`line ${row.line}: section ${row.cells['§']}, the spec has it in ${bySentence.get(text)}`);
      if (seen.has(text)) problems.push(`line ${row.line}: listed twice`);
      seen.add(text);
      if ((row.cells['Who'] ?? '') === '' || (row.cells['Carried by'] ?? '') === '' || (row.cells['Tests'] ?? '') === '') problems.push(`line ${row.line}: an empty column`);
    }
    expect(problems).toEqual([]);
    expect(normativeTable!.rows).toHaveLength(sentences.length);
  });

  it('every test a row names exists in its file, and every module it names exists', () => {
    const problems: string[] = [];
    const titles = new Map<string, Set<string>>();
    for (const table of [normativeTable!, ...otherTables]) {
      for (const row of table.rows) {
        const refs = testRefs(row.cells['Tests'] ?? '');
        if (refs.length === 0) problems.push(`line ${row.line}: no test`);
        for (const ref of refs) {
          if ('bad' in ref) {
            problems.push(`line ${row.line}: not "\`file\` › title": ${ref.bad}`);
            continue;
          }
          const file = path.join(ROOT, ref.file);
          if (!existsSync(file)) {
            problems.push(`line ${row.line}: no file ${ref.file}`);
            continue;
          }
          if (!titles.has(file)) titles.set(file, titlesOf(file));
          if (!titles.get(file)!.has(ref.title)) problems.push(`line ${row.line}: ${ref.file} has no test titled: ${ref.title}`);
        }
        for (const m of (row.cells['Carried by'] ?? '').matchAll(/`([^`]+\/[^`]*)`/g)) {
          if (!existsSync(path.join(ROOT, m[1] as string))) problems.push(`line ${row.line}: no module ${m[1]}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(otherTables.reduce((n, t) => n + t.rows.length, 0)).toBeGreaterThan(0);
  });
});
