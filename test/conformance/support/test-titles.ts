import { readFileSync } from 'node:fs';

/**
 * The titles of the tests and suites in a test file (`it`, `test`, `describe`, with modifiers such
 * as `.skipIf(...)` or `.each(...)`), read from the source: the first argument when it is a string
 * literal ('…', "…", or `…` without substitutions). For docs/spec-map.md's check that every test
 * it names exists.
 */

const CALL = /\b(?:it|test|describe)(?:\s*\.\s*\w+(?:\s*\((?:[^()]|\([^()]*\))*\))?)*\s*\(\s*/g;

function readLiteral(source: string, start: number): string | undefined {
  const quote = source[start];
  if (quote !== "'" && quote !== '"' && quote !== '`') return undefined;
  let out = '';
  for (let i = start + 1; i < source.length; i++) {
    const c = source[i] as string;
    if (c === quote) return out;
    if (quote === '`' && c === '$' && source[i + 1] === '{') return undefined;
    if (c === '\\') {
      const next = source[++i] as string;
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', '0': '\0' };
      if (next === 'u') {
        const braced = source[i + 1] === '{';
        const hex = braced ? source.slice(i + 2, source.indexOf('}', i)) : source.slice(i + 1, i + 5);
        out += String.fromCodePoint(parseInt(hex, 16));
        i += braced ? hex.length + 2 : 4;
      } else if (next === 'x') {
        out += String.fromCharCode(parseInt(source.slice(i + 1, i + 3), 16));
        i += 2;
      } else if (next === '\n') {
        // A line continuation.
      } else {
        out += simple[next] ?? next;
      }
      continue;
    }
    if (quote !== '`' && c === '\n') return undefined;
    out += c;
  }
  return undefined;
}

export function titlesIn(source: string): Set<string> {
  const titles = new Set<string>();
  for (const match of source.matchAll(CALL)) {
    const title = readLiteral(source, (match.index ?? 0) + match[0].length);
    if (title !== undefined) titles.add(title);
  }
  return titles;
}

export function titlesOf(file: string): Set<string> {
  return titlesIn(readFileSync(file, 'utf8'));
}
