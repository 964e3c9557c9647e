/**
 * The misleading-summaries corpus (test/fixtures/misleading-summaries): summaries that state
 * the terms' amount somewhere and still mislead the person about what they pay, and honest
 * summaries that must not raise a danger (spec section 5: the Personal Agent points out any
 * difference between the terms and the summary).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { reviewOperation, type ReviewCode, type ReviewFinding } from '../../src/review/index.ts';

interface Case {
  id: string;
  why: string;
  summary: string;
  terms: Record<string, unknown>;
  request?: Record<string, unknown>;
  expect?: ReviewCode[];
}

const corpus = JSON.parse(readFileSync(new URL('../fixtures/misleading-summaries/cases.json', import.meta.url), 'utf8')) as {
  misleading: Case[];
  honest: Case[];
};

const dangers = (c: Case): ReviewFinding[] =>
  reviewOperation({ summary: c.summary, terms: c.terms, request: c.request }).findings.filter((f) => f.severity === 'danger');

const caught = (c: Case): boolean => dangers(c).some((f) => c.expect!.includes(f.code));

describe('the corpus', () => {
  it('has at least 45 misleading and 25 honest cases, with unique ids', () => {
    expect(corpus.misleading.length).toBeGreaterThanOrEqual(45);
    expect(corpus.honest.length).toBeGreaterThanOrEqual(25);
    const ids = [...corpus.misleading, ...corpus.honest].map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of corpus.misleading) expect(c.expect?.length, c.id).toBeGreaterThan(0);
  });
});

describe('misleading summaries raise a danger', () => {
  for (const c of corpus.misleading) {
    it(`misleading ${c.id}: ${c.why}`, () => {
      const found = dangers(c);
      expect(
        found.some((f) => c.expect!.includes(f.code)),
        `expected a danger among ${c.expect!.join(', ')}; got ${JSON.stringify(found.map((f) => f.code))}`,
      ).toBe(true);
    });
  }
});

describe('honest summaries raise no danger', () => {
  for (const c of corpus.honest) {
    it(`honest ${c.id}: ${c.why}`, () => {
      expect(dangers(c)).toEqual([]);
    });
  }
});

describe('rates', () => {
  it('reports how many misleading summaries are caught and how many honest ones alarm', () => {
    const n = corpus.misleading.filter(caught).length;
    const k = corpus.honest.filter((c) => dangers(c).length > 0).length;
    console.log(`misleading caught ${n} of ${corpus.misleading.length}; false alarms ${k} of ${corpus.honest.length}`);
    expect(n).toBeLessThanOrEqual(corpus.misleading.length);
  });
});
