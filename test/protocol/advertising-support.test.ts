import { describe, expect, it } from 'vitest';
import {
  companyFromPoppyJson,
  formatExtensionsHeader,
  isOperationsV2Version,
  majorVersion,
  parseExtensionsHeader,
  supportsOperationsV2,
} from '../../src/protocol';

describe('section 2 advertising support: Poppy-Extensions', () => {
  it('writes "operations";v="2"', () => {
    expect(formatExtensionsHeader()).toBe('"operations";v="2"');
  });

  const cases: [string, string, boolean][] = [
    ['an empty field value declares nothing', '', false],
    ['the seed value', '"operations";v="2"', true],
    ['other extensions are tolerated', '"payments";v="1", "operations";v="2", "x";y', true],
    ['only other extensions', '"payments";v="1"', false],
    ['a minor version of 2 ("2.1") counts as 2', '"operations";v="2.1"', true],
    ['another major version ("3") does not count', '"operations";v="3"', false],
    ['an earlier major version ("1") does not count', '"operations";v="1"', false],
    ['v3 and v2 listed together declare v2', '"operations";v="3", "operations";v="2"', true],
    ['no v parameter declares no version', '"operations"', false],
    ['v as an Integer is not the String the seed uses', '"operations";v=2', false],
    ['v as a Token is not a String', '"operations";v=two', false],
    ['v with a leading zero is not a version', '"operations";v="02"', false],
    ['a Token operations is not the String the seed uses', 'operations;v="2"', false],
    ['an inner list is not a declaration', '("operations");v="2"', false],
    ['other parameters are ignored', '"operations";q=1;v="2";x', true],
    ['no whitespace after the comma', '"a","operations";v="2"', true],
  ];
  for (const [name, value, declared] of cases) {
    it(`${name}: ${JSON.stringify(value)} → ${declared}`, () => {
      expect(parseExtensionsHeader(value)).toBe(declared);
    });
  }

  it('round-trips its own value', () => {
    expect(parseExtensionsHeader(formatExtensionsHeader())).toBe(true);
  });
});

describe('section 2 advertising support: poppy.json', () => {
  const cases: [string, unknown, boolean][] = [
    ['no extensions', { organization: { name: 'Shop' } }, false],
    ['extensions without operations', { extensions: { payments: [{ version: '1' }] } }, false],
    ['operations v2', { extensions: { operations: [{ version: '2' }] } }, true],
    ['operations v2.1 (major 2)', { extensions: { operations: [{ version: '2.1' }] } }, true],
    ['operations v3 only', { extensions: { operations: [{ version: '3' }] } }, false],
    ['operations v1 only', { extensions: { operations: [{ version: '1' }] } }, false],
    ['operations v1 and v2', { extensions: { operations: [{ version: '1' }, { version: '2' }] } }, true],
    ['unknown members of the entry are ignored', { extensions: { operations: [{ version: '2', interfaces: ['api'] }] } }, true],
    ['a single object (the draft 0.1 form) is not v2 support', { extensions: { operations: { version: '2' } } }, false],
    ['a numeric version is not a version string', { extensions: { operations: [{ version: 2 }] } }, false],
    ['entries that are not objects are passed over', { extensions: { operations: ['2', null, { version: '2' }] } }, true],
    ['an empty list', { extensions: { operations: [] } }, false],
    ['operations as null', { extensions: { operations: null } }, false],
  ];
  for (const [name, poppyJson, supported] of cases) {
    it(`${name} → ${supported}`, () => {
      expect(supportsOperationsV2(poppyJson)).toBe(supported);
    });
  }
});

describe('section 2 advertising support: versions ("A different major version doesn\'t count")', () => {
  it('reads the major version of dot-separated numbers', () => {
    expect(majorVersion('2')).toBe(2);
    expect(majorVersion('2.1')).toBe(2);
    expect(majorVersion('10.0.3')).toBe(10);
    for (const bad of ['', 'v2', '2.', '.2', '02', '2.01', ' 2', '2 ', 2, null]) expect(majorVersion(bad)).toBeUndefined();
  });

  it('isOperationsV2Version', () => {
    expect(isOperationsV2Version('2')).toBe(true);
    expect(isOperationsV2Version('2.0')).toBe(true);
    expect(isOperationsV2Version('3')).toBe(false);
    expect(isOperationsV2Version('20')).toBe(false);
  });
});

describe("section 5 the Company's name", () => {
  it('is organization.name with the origin the agent fetched it from', () => {
    const poppyJson = { organization: { name: 'Stormline Outfitters', domain: 'stormline.example' }, extensions: {} };
    expect(companyFromPoppyJson(poppyJson, 'https://stormline.example')).toEqual({ name: 'Stormline Outfitters', origin: 'https://stormline.example' });
  });

  it('accepts an origin with a port, and plain http on loopback (the reference Company)', () => {
    const poppyJson = { organization: { name: 'Ref' } };
    expect(companyFromPoppyJson(poppyJson, 'https://shop.example:8443').origin).toBe('https://shop.example:8443');
    expect(companyFromPoppyJson(poppyJson, 'http://localhost:4000').origin).toBe('http://localhost:4000');
    expect(companyFromPoppyJson(poppyJson, 'http://127.0.0.1:4000').origin).toBe('http://127.0.0.1:4000');
  });

  it('refuses origins that are not in serialized form (trailing slash, upper case, default port)', () => {
    const poppyJson = { organization: { name: 'Ref' } };
    for (const origin of ['https://shop.example/', 'https://Shop.example', 'https://shop.example:443', 'https://user@shop.example', 'null']) {
      expect(() => companyFromPoppyJson(poppyJson, origin)).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID' }));
    }
  });

  it('keeps the name as written: spoofing checks belong to the summary module', () => {
    expect(companyFromPoppyJson({ organization: { name: ' Shop\u202e ' } }, 'https://shop.example').name).toBe(' Shop\u202e ');
  });
});
