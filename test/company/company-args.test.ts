import { describe, expect, it } from 'vitest';
import { parseCompanyArgs } from '../../src/company/company-args';

describe('countersign-company command line', () => {
  it('reads --x=y and --x y alike, and keeps an "=" inside the value', () => {
    expect(parseCompanyArgs(['--host=a=b', '--port=8787'])).toEqual({ port: 8787, host: 'a=b', testing: false, breaks: [] });
    expect(parseCompanyArgs(['--host', 'a=b', '--port', '8787'])).toEqual({ port: 8787, host: 'a=b', testing: false, breaks: [] });
  });

  it('takes --testing and repeated --break names', () => {
    expect(parseCompanyArgs(['--testing', '--break', 'replay-error', '--break=token-as-string'])).toEqual({ port: 0, host: '127.0.0.1', testing: true, breaks: ['replay-error', 'token-as-string'] });
  });

  it('says what is wrong with a bad value, an unknown break or an unknown argument', () => {
    expect(parseCompanyArgs(['--port', '70000'])).toEqual({ error: '--port: expected 0-65535, got 70000' });
    expect(parseCompanyArgs(['--port=-1'])).toEqual({ error: '--port: expected 0-65535, got -1' });
    expect(parseCompanyArgs(['--host='])).toEqual({ error: '--host: expected a host name or address' });
    expect(parseCompanyArgs(['--break', 'be-rude'])).toMatchObject({ error: expect.stringMatching(/^--break: expected one of the names below, got be-rude\n/) });
    expect(parseCompanyArgs(['--bogus'])).toMatchObject({ error: expect.stringContaining("Unknown option '--bogus'") });
    expect(parseCompanyArgs(['stray'])).toMatchObject({ error: expect.stringContaining('stray') });
  });

  it('answers --help and -h with the usage', () => {
    expect(parseCompanyArgs(['--help'])).toEqual({ help: true });
    expect(parseCompanyArgs(['-h'])).toEqual({ help: true });
  });
});
