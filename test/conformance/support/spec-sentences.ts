/**
 * The normative sentences of the operations extension v2 (test/fixtures/operations-extension-v2.md):
 * every sentence with MUST, MUST NOT or SHOULD (RFC 2119 keywords, upper case), for
 * docs/spec-map.md and its test.
 *
 * The text is read as the spec writes it: headings, paragraphs, list items and table cells;
 * fenced examples and the HTML comment at the top are not prose. A block is cut into sentences at
 * a full stop, question or exclamation mark followed by a space and a capital letter (the spec
 * has no abbreviations with a full stop inside a sentence). Sentences are returned with their
 * section number (the `## n.` heading they are under) and whitespace collapsed.
 */

export interface SpecSentence {
  section: string;
  text: string;
}

export const NORMATIVE = /\b(MUST|SHOULD)\b/;

export function normalize(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function blocks(markdown: string): Array<{ section: string; text: string }> {
  const out: Array<{ section: string; text: string }> = [];
  const body = markdown.replace(/<!--[\s\S]*?-->/g, '');
  let section = '0';
  let fenced = false;
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) out.push({ section, text: normalize(paragraph.join(' ')) });
    paragraph = [];
  };
  for (const raw of body.split('\n')) {
    const line = raw.trimEnd();
    if (line.startsWith('```')) {
      flush();
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading !== null) {
      flush();
      const number = /^(\d+)(?:\.\d+)*\.?\s/.exec(heading[2] as string);
      if ((heading[1] as string).length === 2 && number !== null) section = number[1] as string;
      continue;
    }
    if (line.trim() === '') {
      flush();
      continue;
    }
    if (line.startsWith('|')) {
      flush();
      // A table row: each cell is its own block; the separator row has none.
      for (const cell of line.split(/(?<!\\)\|/).slice(1, -1)) {
        const text = normalize(cell.replace(/\\\|/g, '|'));
        if (text !== '' && !/^:?-+:?$/.test(text)) out.push({ section, text });
      }
      continue;
    }
    const item = /^\s*(?:[-*]|\d+\.)\s+(.*)$/.exec(line);
    if (item !== null) {
      flush();
      paragraph = [item[1] as string];
      continue;
    }
    paragraph.push(line.trim());
  }
  flush();
  return out;
}

export function sentencesOf(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[A-Z*"`([])/)
    .map(normalize)
    .filter((s) => s !== '');
}

/** Every MUST, MUST NOT and SHOULD sentence, in the order of the text. */
export function normativeSentences(markdown: string): SpecSentence[] {
  const found: SpecSentence[] = [];
  for (const block of blocks(markdown)) {
    for (const text of sentencesOf(block.text)) if (NORMATIVE.test(text)) found.push({ section: block.section, text });
  }
  return found;
}
