/**
 * The review's rules and their sentences, registered together (src/review/rules.ts): no sentence
 * of `REVIEW_MESSAGES` without a rule, no rule without a sentence, and every finding, statement
 * and change the review writes says a sentence of its own rule (spec section 5).
 */
import { describe, expect, it } from 'vitest';
import { REVIEW_MESSAGES, reviewText } from '../../src/review/messages.ts';
import { CHANGE_SENTENCES, CHECKED_STATEMENTS, REVIEW_RULES, finding } from '../../src/review/rules.ts';
import type { ReviewCode } from '../../src/review/types.ts';
import { diffed, reviewed } from './sentences.ts';

const OWNERS = new Map<string, string[]>();
function own(key: string, owner: string): void {
  OWNERS.set(key, [...(OWNERS.get(key) ?? []), owner]);
}
for (const [code, keys] of Object.entries(REVIEW_RULES)) for (const key of keys) own(key, `finding ${code}`);
for (const [code, key] of Object.entries(CHECKED_STATEMENTS)) own(key, `statement ${code}`);
for (const [what, keys] of Object.entries(CHANGE_SENTENCES)) for (const key of keys) own(key, `change of ${what}`);

describe('review rules and their messages (spec section 5)', () => {
  it('every sentence of REVIEW_MESSAGES belongs to exactly one rule, statement or change', () => {
    const unowned = Object.keys(REVIEW_MESSAGES).filter((key) => !OWNERS.has(key));
    const shared = [...OWNERS].filter(([, owners]) => owners.length > 1).map(([key, owners]) => `${key}: ${owners.join(', ')}`);
    expect(unowned).toEqual([]);
    expect(shared).toEqual([]);
  });

  it('every rule has a sentence, and every sentence it names is in REVIEW_MESSAGES', () => {
    for (const [code, keys] of Object.entries(REVIEW_RULES)) expect(keys.length, code).toBeGreaterThan(0);
    expect([...OWNERS.keys()].filter((key) => !(key in REVIEW_MESSAGES))).toEqual([]);
  });

  it('every finding the review writes says a sentence of its own rule', () => {
    const findings = [...reviewed().findings, ...diffed().findings];
    const strays = findings.filter((f) => !(REVIEW_RULES[f.code] as readonly string[]).includes(f.text.key)).map((f) => `${f.code}: ${f.text.key}`);
    expect(strays).toEqual([]);
    // And the corpus reaches every rule, so the check above covers them all.
    const codes = new Set(findings.map((f) => f.code));
    expect((Object.keys(REVIEW_RULES) as ReviewCode[]).filter((code) => !codes.has(code))).toEqual([]);
  });

  it('every checked statement says its own sentence, and every change a change sentence', () => {
    const { checked } = reviewed();
    expect(checked.filter((s) => CHECKED_STATEMENTS[s.code] !== s.text.key)).toEqual([]);
    const { terms, expiry } = diffed();
    expect(terms.filter((c) => !(CHANGE_SENTENCES.term as readonly string[]).includes(c.text.key))).toEqual([]);
    expect(expiry.filter((c) => !(CHANGE_SENTENCES.deadline as readonly string[]).includes(c.text.key))).toEqual([]);
  });

  it("does not compile a finding that says another rule's sentence", () => {
    // @ts-expect-error 'review_termsEmpty' is the sentence of terms-empty, not of terms-absent.
    const wrong = finding('info', 'terms-absent', '', reviewText('review_termsEmpty'));
    expect(wrong.code).toBe('terms-absent');
    const right = finding('info', 'terms-absent', '', reviewText('review_termsAbsent'));
    expect(right).toMatchObject({ severity: 'info', code: 'terms-absent', path: '', text: { key: 'review_termsAbsent' } });
  });
});
