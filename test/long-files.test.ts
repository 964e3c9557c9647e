import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * A source file is a room's one job; one that grows past 500 lines says at its top why it is
 * still one job (a state machine, an engine several interfaces share), so the next reader knows
 * whether to split it or not.
 */

const root = resolve(import.meta.dirname, '..');
const LIMIT = 500;
const WHY = /^\/\/ Longer than 500 lines on purpose: \S/;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

describe('source files over 500 lines', () => {
  it('each says at its top why it is longer', () => {
    const silent = [...sources(join(root, 'src')), ...sources(join(root, 'entrypoints'))]
      .filter((file) => readFileSync(file, 'utf8').split('\n').length > LIMIT)
      .filter((file) => !WHY.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(silent).toEqual([]);
  });

  it('the rule reads the first line only', () => {
    expect(WHY.test('// Longer than 500 lines on purpose: one state machine.\nimport x;')).toBe(true);
    expect(WHY.test('import x;\n// Longer than 500 lines on purpose: one state machine.')).toBe(false);
    expect(WHY.test('// Longer than 500 lines on purpose: ')).toBe(false);
  });
});
