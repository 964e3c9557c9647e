import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

/** A JSON fixture under test/fixtures (copied from the shared corpora with its licence). */
export function fixture<T>(path: string): T {
  // A path, not a URL object: under jsdom the global URL is jsdom's, which node:fs doesn't take.
  return JSON.parse(readFileSync(join(FIXTURES, path), 'utf8')) as T;
}

export const ALLOWED = new Set(['p', 'em', 'strong', 'ul', 'ol', 'li']);

/**
 * What must never be in a rendered summary (spec section 3 "Formatting", section 8): an
 * element off the allow-list, an attribute other than a numeric `ol@start`, and (so the
 * check holds even if the allow-list grew) any href/src or script-capable URL in an attribute.
 */
export function domViolations(root: ParentNode): string[] {
  const problems: string[] = [];
  for (const element of Array.from(root.querySelectorAll('*'))) {
    const tag = element.localName;
    if (!ALLOWED.has(tag) || element.namespaceURI !== 'http://www.w3.org/1999/xhtml') problems.push(`element <${tag}>`);
    for (const attr of Array.from(element.attributes)) {
      if (!(tag === 'ol' && attr.name === 'start' && /^\d{1,9}$/.test(attr.value))) problems.push(`attribute ${tag}@${attr.name}`);
      if (attr.name === 'href' || attr.name === 'src' || /^\s*(?:javascript|data|vbscript):/i.test(attr.value)) problems.push(`url in ${tag}@${attr.name}`);
    }
  }
  return problems;
}

/** ASCII punctuation: what a backslash can escape (CommonMark 0.31.2, "Backslash escapes"). */
const ESCAPABLE = /[!-/:-@[-`{-~]/;

/** How often each character of `which` occurs in Markdown source, not counting backslash-escaped ones. */
export function countUnescaped(markdown: string, which: string): number {
  let count = 0;
  for (let i = 0; i < markdown.length; i += 1) {
    const ch = markdown[i]!;
    if (ch === '\\' && i + 1 < markdown.length && ESCAPABLE.test(markdown[i + 1]!)) {
      i += 1;
      continue;
    }
    if (which.includes(ch)) count += 1;
  }
  return count;
}

export function countOf(text: string, which: string): number {
  let count = 0;
  for (const ch of text) if (which.includes(ch)) count += 1;
  return count;
}

/** Parse HTML into an inert template (no script runs, nothing loads) and return its content. */
export function parseHtml(doc: Document, html: string): DocumentFragment {
  const template = doc.createElement('template');
  template.innerHTML = html;
  return template.content;
}
