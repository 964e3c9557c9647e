#!/usr/bin/env node
// A pseudo-localised copy of a built extension: every message is accented, about 40 % longer and
// wrapped in ⟦ ⟧, so a page shows at a glance which text did not come from messages.json and where
// a longer language would clip. Placeholders ($NAME$, $1) are kept as they are.
//
//   node scripts/pseudo-locale.mjs <built extension dir> <output dir>
//
// Importable too: the end-to-end language test uses pseudoMessages and pseudoBuild.
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What marks a pseudo-localised message: a test looks for these. */
export const PSEUDO_OPEN = '\u27E6';
export const PSEUDO_CLOSE = '\u27E7';

const ACCENTED = {
  a: 'á', b: 'ƀ', c: 'ç', d: 'ð', e: 'é', f: 'ƒ', g: 'ĝ', h: 'ĥ', i: 'í', j: 'ĵ', k: 'ķ', l: 'ļ', m: 'ɱ',
  n: 'ñ', o: 'ó', p: 'þ', r: 'ŕ', s: 'š', t: 'ţ', u: 'ú', w: 'ŵ', y: 'ý', z: 'ž',
  A: 'Å', C: 'Ç', D: 'Ð', E: 'É', I: 'Í', N: 'Ñ', O: 'Ö', S: 'Š', U: 'Ü', Y: 'Ý',
};

/** Accents the words of one message and pads it; placeholders and `$$` stay intact. */
export function pseudoText(message) {
  const parts = message.split(/(\$[A-Za-z0-9_@]+\$|\$\d|\$\$)/);
  const body = parts.map((part, i) => (i % 2 === 1 ? part : [...part].map((c) => ACCENTED[c] ?? c).join(''))).join('');
  const letters = message.replace(/\$[A-Za-z0-9_@]+\$|\$\d/g, '').length;
  const padding = '~'.repeat(Math.max(1, Math.round(letters * 0.4)));
  return `${PSEUDO_OPEN}${body} ${padding}${PSEUDO_CLOSE}`;
}

/** A messages.json table with every message pseudo-localised (the `@@` ones are the browser's, not in the file). */
export function pseudoMessages(table) {
  return Object.fromEntries(Object.entries(table).map(([key, entry]) => [key, { ...entry, message: pseudoText(entry.message) }]));
}

/** Copies a built extension and replaces its English messages with the pseudo-localised ones. */
export async function pseudoBuild(builtDir, outDir) {
  await cp(builtDir, outDir, { recursive: true });
  const file = path.join(outDir, '_locales', 'en', 'messages.json');
  const table = JSON.parse(await readFile(file, 'utf8'));
  await writeFile(file, `${JSON.stringify(pseudoMessages(table), null, 2)}\n`);
  return outDir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [built, out] = process.argv.slice(2);
  if (!built || !out) {
    console.error('usage: node scripts/pseudo-locale.mjs <built extension dir> <output dir>');
    process.exit(2);
  }
  await pseudoBuild(path.resolve(built), path.resolve(out));
  console.log(`pseudo-localised extension in ${out}`);
}
