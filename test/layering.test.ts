import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The import layering of docs/architecture.md ("Layering"), read from the page itself, so the
 * page and the code cannot drift: every room of src/ (and entrypoints/) is in the table, every
 * import between rooms is one the table allows, no module imports itself round a cycle (type-only
 * imports count: a cycle of types is a cycle of meaning), and the rooms that run in the browser
 * import nothing of Node.
 */

const root = resolve(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The room of a file: `entrypoints`, or the first folder under src/. */
function roomOf(file: string): string {
  const parts = relative(root, file).split(sep);
  return parts[0] === 'src' ? (parts[1] as string) : (parts[0] as string);
}

interface Import {
  from: string;
  specifier: string;
  /** The file a relative import resolves to, or undefined for a package. */
  target: string | undefined;
}

function importsOf(file: string): Import[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map(({ fileName }) => {
    if (!fileName.startsWith('.')) return { from: file, specifier: fileName, target: undefined };
    const base = resolve(dirname(file), fileName);
    const target = [base, `${base}.ts`, join(base, 'index.ts')].find((c) => existsSync(c) && statSync(c).isFile());
    if (target === undefined) throw new Error(`${relative(root, file)}: cannot resolve ${fileName}`);
    return { from: file, specifier: fileName, target };
  });
}

/** The rows of the table under "## Layering": room → the rooms it may import. */
function layeringTable(): Map<string, Set<string>> {
  const page = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const section = page.split(/^## /m).find((s) => s.startsWith('Layering'));
  if (section === undefined) throw new Error('docs/architecture.md has no "Layering" section');
  const rows = new Map<string, Set<string>>();
  for (const line of section.split('\n')) {
    const cells = /^\|\s*`([a-z-]+)\/?`\s*\|([^|]*)\|/.exec(line);
    if (cells === null) continue;
    const allowed = [...(cells[2] as string).matchAll(/`([a-z-]+)\/?`/g)].map((m) => m[1] as string);
    rows.set(cells[1] as string, new Set(allowed));
  }
  return rows;
}

/** Nodes in a cycle (strongly connected components of more than one module, or a self-import). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const files = [...sourceFiles(join(root, 'src')), ...sourceFiles(join(root, 'entrypoints'))];
const imports = files.flatMap(importsOf);
const table = layeringTable();

describe('docs/architecture.md, "Layering"', () => {
  it('names every room of the code, and only rooms that exist', () => {
    const rooms = new Set(files.map(roomOf));
    expect([...table.keys()].sort()).toEqual([...rooms].sort());
  });

  it('every import between rooms is one the table allows', () => {
    const wrong = imports
      .filter((i) => i.target !== undefined && roomOf(i.target) !== roomOf(i.from))
      .filter((i) => !(table.get(roomOf(i.from))?.has(roomOf(i.target as string)) ?? false))
      .map((i) => `${relative(root, i.from)} imports ${i.specifier} (${roomOf(i.target as string)})`);
    expect(wrong).toEqual([]);
  });

  it('no module imports itself round a cycle, type-only imports included', () => {
    const graph = new Map<string, string[]>(files.map((f) => [relative(root, f), []]));
    for (const i of imports) if (i.target !== undefined) graph.get(relative(root, i.from))?.push(relative(root, i.target));
    expect(cycles(graph)).toEqual([]);
  });

  it('what runs in the browser imports nothing of Node', () => {
    const browserRooms = new Set(['entrypoints', 'extension', 'review', 'summary', 'protocol']);
    const wrong = imports.filter((i) => browserRooms.has(roomOf(i.from)) && i.specifier.startsWith('node:')).map((i) => `${relative(root, i.from)} imports ${i.specifier}`);
    expect(wrong).toEqual([]);
  });

  it('the cycle finder finds a cycle, so the test above can fail', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['d']],
      ['e', ['a']],
    ]);
    expect(cycles(graph)).toEqual([['a', 'b', 'c'], ['d']]);
  });
});
