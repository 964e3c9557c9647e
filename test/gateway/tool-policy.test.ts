import { describe, expect, it } from 'vitest';
import { globToRegExp, toolPolicy } from '../../src/gateway/tool-policy';

const ro = { name: 'read_file', annotations: { readOnlyHint: true } };
const rw = { name: 'write_file', annotations: { readOnlyHint: false, destructiveHint: true } };
const bare = { name: 'echo' };

describe('toolPolicy: defaults from annotations', () => {
  it('allows a tool annotated readOnlyHint: true', () => expect(toolPolicy(ro, undefined, false)).toBe('allow'));
  it('asks for a tool annotated readOnlyHint: false', () => expect(toolPolicy(rw, undefined, false)).toBe('ask'));
  it('asks for a tool without annotations', () => expect(toolPolicy(bare, undefined, false)).toBe('ask'));
  it('asks when readOnlyHint is truthy but not true (a string is a claim we do not read)', () =>
    expect(toolPolicy({ name: 'x', annotations: { readOnlyHint: 'true' } }, undefined, false)).toBe('ask'));
});

describe('toolPolicy: the config file overrides, in the order deny, ask-all, ask, allow', () => {
  it('deny hides a read-only tool', () => expect(toolPolicy(ro, { deny: ['read_*'] }, false)).toBe('deny'));
  it('deny wins over allow for the same tool', () => expect(toolPolicy(rw, { deny: ['write_file'], allow: ['*'] }, false)).toBe('deny'));
  it('deny still hides with --ask-all', () => expect(toolPolicy(rw, { deny: ['write_*'] }, true)).toBe('deny'));
  it('--ask-all makes a read-only tool ask, even one the config allows', () => expect(toolPolicy(ro, { allow: ['read_file'] }, true)).toBe('ask'));
  it('ask makes a read-only tool ask', () => expect(toolPolicy(ro, { ask: ['read_?ile'] }, false)).toBe('ask'));
  it('ask wins over allow', () => expect(toolPolicy(rw, { ask: ['write_file'], allow: ['write_file'] }, false)).toBe('ask'));
  it('allow lets a write tool run without asking', () => expect(toolPolicy(rw, { allow: ['write_file'] }, false)).toBe('allow'));
  it('a glob that does not match leaves the default', () => expect(toolPolicy(rw, { allow: ['write'] }, false)).toBe('ask'));
});

describe('toolPolicy: a Company the config names gets the same local policy first', () => {
  it('deny hides its tool', () => expect(toolPolicy(rw, { deny: ['write_*'] }, false, true)).toBe('deny'));
  it('--ask-all asks', () => expect(toolPolicy(ro, undefined, true, true)).toBe('ask'));
  it('ask asks', () => expect(toolPolicy(rw, { ask: ['write_file'] }, false, true)).toBe('ask'));
  it('otherwise its own operations ask: allowed to its perform loop, whatever the annotations', () => expect(toolPolicy(rw, undefined, false, true)).toBe('allow'));
});

describe('globToRegExp', () => {
  it.each([
    ['*', 'anything', true],
    ['read_*', 'read_text_file', true],
    ['read_*', 'xread_file', false],
    ['get-?um', 'get-sum', true],
    ['get-?um', 'get-summ', false],
    ['a.b', 'a.b', true],
    ['a.b', 'axb', false],
    ['(x)+', '(x)+', true],
    ['(x)+', 'xx', false],
  ])('%s against %s: %s', (glob, name, expected) => expect(globToRegExp(glob).test(name)).toBe(expected));
});
