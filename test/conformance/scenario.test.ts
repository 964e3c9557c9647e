import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CountersignError } from '../../src/protocol/errors';
import { atPointer, expand, MAX_OUTCOME_COUNTERS, outcomeCounters, parseScenario, scenarioJsonSchema } from '../../src/conformance/scenario';

const DOC = readFileSync(new URL('../../docs/conformance.md', import.meta.url), 'utf8');
const FILE = readFileSync(new URL('../../docs/conformance/reference-company.json', import.meta.url), 'utf8');

function minimal(extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ version: 1, api: { operation: { method: 'POST', path: '/orders/1/exchanges', body: { a: 1 } } }, ...extra });
}

function refusal(text: string): string {
  try {
    parseScenario(text, 'scenario.json');
  } catch (error) {
    expect(error).toBeInstanceOf(CountersignError);
    expect((error as CountersignError).code).toBe('ERR_SCENARIO_INVALID');
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('the scenario file (docs/conformance.md, "The scenario")', () => {
  it('the documented example is the reference Company scenario file, and it is valid', () => {
    const example = /## The scenario[\s\S]*?```json\n([\s\S]*?)```/.exec(DOC)?.[1];
    expect(example).toBe(FILE);
    const scenario = parseScenario(FILE);
    expect(scenario.signedOut).toBe(true);
    expect(scenario.conversation?.quietMs).toBe(300);
  });

  it('docs/conformance/scenario.schema.json is the schema the kit validates with (npm run conformance:schema)', () => {
    expect(readFileSync(new URL('../../docs/conformance/scenario.schema.json', import.meta.url), 'utf8')).toBe(scenarioJsonSchema());
  });

  it('names the field of every error, before anything is sent', () => {
    expect(refusal('{')).toMatch(/^scenario\.json: expected JSON/);
    expect(refusal(JSON.stringify({ version: 2 }))).toMatch(/version/);
    expect(refusal(minimal({ api: { operation: { method: 'POST', path: 'https://elsewhere.example/x' } } }))).toMatch(/api\.operation\.path/);
    expect(refusal(minimal({ api: { operation: { method: 'POST', path: '//elsewhere.example/x' } } }))).toMatch(/path/);
    expect(refusal(minimal({ api: { operation: { method: 'TRACE', path: '/x' } } }))).toMatch(/method/);
    expect(refusal(minimal({ outcome: { request: { method: 'GET', path: '/x' }, count: 'order/exchanges' } }))).toMatch(/outcome\.count/);
    expect(refusal(minimal({ surprise: true }))).toMatch(/surprise/);
    expect(refusal(JSON.stringify({ version: 1 }))).toMatch(/at least one of api, mcp, conversation/);
    expect(refusal(minimal({ signedOut: false }))).toMatch(/scenario\.account/);
  });

  it('refuses a template variable nobody provides, and accepts the kit\'s own', () => {
    expect(refusal(minimal({ api: { operation: { method: 'POST', path: '/orders/{{order}}/x' } } }))).toMatch(/\{\{order\}\}/);
    expect(() => parseScenario(minimal({ api: { operation: { method: 'POST', path: '/x/{{run}}' } }, cooperation: { performDelay: { request: { method: 'POST', path: '/d', body: { ms: '{{ms}}' } } } } }))).not.toThrow();
    expect(() => parseScenario(minimal({ fixtures: [{ order: 'ord_1' }], api: { operation: { method: 'POST', path: '/orders/{{order}}/x' } } }))).not.toThrow();
  });

  it('outcome: one counter as before, or several, each named or named by its pointer', () => {
    const counter = { request: { method: 'GET', path: '/orders/1' }, count: '/order/exchanges' };
    const one = parseScenario(minimal({ outcome: counter }));
    expect(outcomeCounters(one)).toEqual([counter]);
    const several = parseScenario(minimal({ outcome: [{ name: 'exchanges', ...counter }, { name: 'card holds', request: { method: 'GET', path: '/holds/{{run}}' }, count: '/holds' }] }));
    expect(outcomeCounters(several).map((c) => c.name)).toEqual(['exchanges', 'card holds']);
    expect(outcomeCounters(parseScenario(minimal()))).toEqual([]);
    expect(refusal(minimal({ outcome: [] }))).toMatch(/outcome/);
    expect(refusal(minimal({ outcome: Array.from({ length: MAX_OUTCOME_COUNTERS + 1 }, () => counter) }))).toMatch(/outcome/);
    expect(refusal(minimal({ outcome: [counter, { ...counter, count: 'holds' }] }))).toMatch(/outcome/);
    expect(refusal(minimal({ outcome: [counter, { ...counter, request: { method: 'GET', path: '/holds/{{hold}}' } }] }))).toMatch(/\{\{hold\}\}/);
  });

  it('expand: a whole-string variable keeps its JSON type, others are text', () => {
    expect(expand({ a: '{{ms}}', b: 'x{{ms}}y', c: ['{{id}}'], d: 3 }, { ms: 1500, id: 'ord_1' })).toEqual({ a: 1500, b: 'x1500y', c: ['ord_1'], d: 3 });
    expect(() => expand('{{nope}}', {})).toThrow(CountersignError);
  });

  it('atPointer follows RFC 6901, escapes included', () => {
    const doc = { a: [{ 'b/c': 1, 'd~e': 2 }], '': 3 };
    expect(atPointer(doc, '')).toBe(doc);
    expect(atPointer(doc, '/a/0/b~1c')).toBe(1);
    expect(atPointer(doc, '/a/0/d~0e')).toBe(2);
    expect(atPointer(doc, '/')).toBe(3);
    expect(atPointer(doc, '/a/1')).toBeUndefined();
    expect(atPointer(doc, '/a/01')).toBeUndefined();
    expect(atPointer(doc, '/toString')).toBeUndefined();
  });
});
