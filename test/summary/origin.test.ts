/**
 * displayOrigin: what the window shows as the Company's origin (spec section 5; docs/ui.md).
 * IDN display after Chromium's policy; registrable domain from the Public Suffix List.
 */
import { describe, expect, it } from 'vitest';
import { displayOrigin } from '../../src/summary/index.ts';
import { fixture } from './helpers.ts';

const codes = (url: string) => displayOrigin(url).warnings.map((w) => w.code);

describe('displayOrigin', () => {
  it('shows scheme, host and registrable domain of a plain origin', () => {
    expect(displayOrigin('https://shop.example.com/orders/ord_7Hk2?x=1#y')).toEqual({
      scheme: 'https',
      host: 'shop.example.com',
      asciiHost: 'shop.example.com',
      punycode: false,
      subdomain: 'shop',
      fullSubdomain: 'shop',
      registrableDomain: 'example.com',
      port: '',
      display: 'https://shop.example.com',
      spelledDomain: null,
      ownerSentence: 'This site is example.com.',
      ownerText: { key: 'origin_owner', substitutions: ['example.com'] },
      warnings: [],
    });
  });

  it('says who owns the site in words', () => {
    expect(displayOrigin('https://a.b.example.co.uk').ownerSentence).toBe('This site is example.co.uk.');
    expect(displayOrigin('https://www.example.com.').ownerSentence).toBe('This site is example.com.');
    expect(displayOrigin('https://192.0.2.7:8080').ownerSentence).toBe('This site is the IP address 192.0.2.7.');
    expect(displayOrigin('https://[2001:db8::1]').ownerSentence).toBe('This site is the IP address [2001:db8::1].');
    expect(displayOrigin('http://localhost:3000').ownerSentence).toBe('This site is localhost.');
    expect(displayOrigin('https://\u0430pple.com').ownerSentence).toBe('This site is xn--pple-43d.com.');
  });

  it('finds the registrable domain under a multi-label public suffix', () => {
    expect(displayOrigin('https://a.b.example.co.uk')).toMatchObject({ subdomain: 'a.b', registrableDomain: 'example.co.uk' });
  });

  it('treats a private-section suffix as the owner boundary', () => {
    expect(displayOrigin('https://evil.github.io')).toMatchObject({ subdomain: '', registrableDomain: 'evil.github.io' });
  });

  it('keeps a non-default port and drops a default one', () => {
    expect(displayOrigin('https://example.com:8443').display).toBe('https://example.com:8443');
    expect(displayOrigin('https://example.com:443').port).toBe('');
  });

  it('shows a mixed-script name in punycode (Cyrillic а in apple)', () => {
    const origin = displayOrigin('https://\u0430pple.com');
    expect(origin).toMatchObject({ punycode: true, host: 'xn--pple-43d.com', registrableDomain: 'xn--pple-43d.com' });
    expect(codes('https://\u0430pple.com')).toContain('idn-mixed-script');
  });

  it('shows a whole-script confusable in punycode (all-Cyrillic аррӏе.com)', () => {
    expect(displayOrigin('https://\u0430\u0440\u0440\u04cf\u0435.com')).toMatchObject({ punycode: true, host: 'xn--80ak6aa92e.com' });
    expect(codes('https://\u0430\u0440\u0440\u04cf\u0435.com')).toContain('idn-whole-script-confusable');
  });

  it('allows that name under a Cyrillic top-level domain, as Chromium does', () => {
    expect(displayOrigin('https://\u0430\u0440\u0440\u04cf\u0435.\u0440\u0444').punycode).toBe(false);
  });

  it('keeps an ordinary internationalised name in Unicode', () => {
    expect(displayOrigin('https://b\u00fccher.de')).toMatchObject({ punycode: false, host: 'b\u00fccher.de', registrableDomain: 'b\u00fccher.de', warnings: [] });
    expect(displayOrigin('https://xn--bcher-kva.de').host).toBe('b\u00fccher.de');
    expect(displayOrigin('https://\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444').punycode).toBe(false);
    expect(displayOrigin('https://\u4f8b\u3048.jp').punycode).toBe(false);
    expect(displayOrigin('https://\u30c6\u30b9\u30c8\u30fc.jp').punycode).toBe(false);
    expect(displayOrigin('https://col\u00b7legi.cat').punycode).toBe(false);
  });

  it.each([
    ['Latin look-alike (Latin alpha)', 'https://\u0251pple.com', 'idn-lookalike'],
    ['dotless i', 'https://l\u0131nkedin.com', 'idn-lookalike'],
    ['deviation character ß', 'https://stra\u00dfe.de', 'idn-deviation'],
    ['symbol (fraction slash)', 'https://google.com\u2044evil.com', 'idn-lookalike'],
    ['uncommon script (Cherokee look-alikes)', 'https://\u13aa\u13a2\u13a2.com', 'idn-uncommon-script'],
    ['mixed digits (ASCII and Devanagari)', 'https://\u092d\u093e\u0930\u09241\u0967.com', 'idn-mixed-digits'],
    ['combining mark on a Latin letter', 'https://pay\u0338pal.com', 'idn-lookalike'],
  ])('shows a %s in punycode', (_name, url, code) => {
    expect(displayOrigin(url).punycode).toBe(true);
    expect(codes(url)).toContain(code);
  });

  it('shows every hostname-valid UTS #39 look-alike of an ASCII letter in punycode', () => {
    const confusables = fixture<{ lookalikes: Record<string, Array<{ cp: string; char: string }>> }>('unicode/ascii-confusables-uts39.json');
    let checked = 0;
    for (const entries of Object.values(confusables.lookalikes)) {
      for (const { cp, char } of entries) {
        if (char.codePointAt(0)! < 0x80) continue;
        let origin;
        try {
          origin = displayOrigin(`https://ex${char}mple.com`);
        } catch {
          continue; // refused by the URL parser: never displayed at all
        }
        if (origin.asciiHost === 'example.com' || !origin.asciiHost.includes('xn--')) continue; // mapped to ASCII by IDNA
        expect(origin.punycode, cp).toBe(true);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(250);
  });

  it('never lets a long subdomain push the registrable domain out of sight', () => {
    const url = `https://${'a'.repeat(50)}.login.secure.paypal.com.evil.example.co.uk`;
    const origin = displayOrigin(url);
    expect(origin.registrableDomain).toBe('example.co.uk');
    expect(origin.subdomain).toBe('\u2026secure.paypal.com.evil');
    expect(origin.fullSubdomain).toBe(`${'a'.repeat(50)}.login.secure.paypal.com.evil`);
    expect(origin.display).toBe('https://\u2026secure.paypal.com.evil.example.co.uk');
    expect(codes(url)).toContain('subdomain-elided');
    expect(displayOrigin(url, { maxSubdomainLength: 10 }).subdomain).toBe('\u2026com.evil');
  });

  it('cuts inside a single label too long to keep whole', () => {
    const origin = displayOrigin(`https://${'b'.repeat(60)}.example.com`);
    expect(Array.from(origin.subdomain)).toHaveLength(24);
    expect(origin.display).toBe(`https://\u2026${'b'.repeat(23)}.example.com`);
  });

  it('warns about http, credentials, IP addresses and names without a registrable domain', () => {
    expect(codes('http://example.com')).toEqual(['insecure-scheme']);
    expect(displayOrigin('https://paypal.com@evil.example')).toMatchObject({ registrableDomain: 'evil.example' });
    expect(codes('https://paypal.com@evil.example')).toContain('credentials-in-url');
    expect(displayOrigin('https://192.0.2.7:8080')).toMatchObject({ registrableDomain: '192.0.2.7', subdomain: '', display: 'https://192.0.2.7:8080' });
    expect(codes('https://[2001:db8::1]')).toEqual(['ip-address']);
    expect(displayOrigin('http://localhost:3000')).toMatchObject({ registrableDomain: 'localhost', display: 'http://localhost:3000' });
    expect(codes('https://co.uk')).toContain('no-registrable-domain');
  });

  describe('a subdomain that reads as another domain', () => {
    it('says which site it is and which it is not (a reserved name as the ending)', () => {
      const origin = displayOrigin('https://stormline.example.checkout-secure.co');
      expect(origin).toMatchObject({ subdomain: 'stormline.example', registrableDomain: 'checkout-secure.co', spelledDomain: 'stormline.example' });
      expect(origin.warnings).toEqual([
        {
          code: 'subdomain-spells-domain',
          message: 'This site is checkout-secure.co. The address starts with \u201Cstormline.example\u201D, which is not the site.',
          text: { key: 'origin_subdomainIsDomain', substitutions: ['checkout-secure.co', 'stormline.example'] },
        },
      ]);
    });

    it.each([
      ['https://paypal.com.evil.example', 'paypal.com', 'paypal.com'],
      ['https://shop.stormline.test.evil.co', 'stormline.test', 'shop.stormline.test'],
      ['https://paypal.co.uk.evil.example', 'paypal.co.uk', 'paypal.co.uk'],
      ['https://evil.github.io.attacker.co', 'evil.github.io', 'evil.github.io'],
      ['https://a.com.b.net.evil.example', 'b.net', 'a.com.b.net'],
      ['https://xn--e1afmkfd.xn--p1ai.evil.example', '\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444', '\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444'],
    ])('%s reads as %s', (url, domain, prefix) => {
      const origin = displayOrigin(url);
      expect(origin.spelledDomain).toBe(domain);
      const warning = origin.warnings.find((w) => w.code === 'subdomain-spells-domain');
      expect(warning?.message).toContain(`${origin.ownerSentence} The address starts with \u201C${prefix}\u201D`);
    });

    it('says what a longer start reads as', () => {
      const origin = displayOrigin('https://login.paypal.com.secure.evil.co');
      expect(origin.spelledDomain).toBe('paypal.com');
      expect(origin.warnings.map((w) => w.message)).toContain(
        'This site is evil.co. The address starts with \u201Clogin.paypal.com\u201D, which reads like paypal.com but is not the site.',
      );
    });

    it.each([
      'https://shop.stormline.example',
      'https://api.stormline.example:8443',
      'https://www.example.co.uk',
      'https://user.github.io',
      'http://localhost:8080',
      'https://a.b.c.stormline.example',
      'https://eu-west-1.api.stormline.example',
      'https://fr.shop.stormline.example', // newer generic TLDs are words, not endings
      'https://my.app.stormline.example',
      'https://com.stormline.example', // an ending with nothing before it
      'https://paypal-com.evil.co', // dash spelling: not counted (see spelledDomainOf)
      'https://192.0.2.7',
    ])('%s reads as no other domain', (url) => {
      const origin = displayOrigin(url);
      expect(origin.spelledDomain).toBeNull();
      expect(origin.warnings.map((w) => w.code)).not.toContain('subdomain-spells-domain');
    });

    it('adds no warning to the plain origins', () => {
      expect(codes('https://shop.stormline.example')).toEqual([]);
      expect(codes('https://api.stormline.example:8443')).toEqual([]);
      expect(codes('https://www.example.co.uk')).toEqual([]);
      expect(codes('https://user.github.io')).toEqual([]);
      expect(codes('http://localhost:8080')).toEqual(['insecure-scheme', 'no-registrable-domain']);
      expect(codes('https://a.b.c.stormline.example')).toEqual([]);
      expect(codes('https://eu-west-1.api.stormline.example')).toEqual([]);
    });
  });

  it('keeps a trailing dot visible', () => {
    expect(displayOrigin('https://www.example.com.')).toMatchObject({ subdomain: 'www', registrableDomain: 'example.com.' });
  });

  it.each(['javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'ftp://example.com', 'file:///etc/passwd', 'chrome-extension://abcdef/', 'not a url', ''])(
    'rejects %j with CountersignError',
    (url) => {
      expect(() => displayOrigin(url)).toThrow(expect.objectContaining({ name: 'CountersignError', code: 'ERR_ARGUMENT_INVALID' }));
    },
  );
});

describe('displayOrigin: the IDN policy, character by character', () => {
  it.each([
    ['a combining mark over a hyphen, as it would be over a letter', 'https://x-\u0301y.com', ['idn-lookalike']],
    ['a long-stroke overlay over a hyphen', 'https://x-\u0338y.com', ['idn-lookalike']],
    ['a combining mark on a Greek letter', 'https://\u03bb\u0330\u03bc.com', ['idn-lookalike']],
    ['a combining mark on a Cyrillic letter', 'https://\u0434\u0330\u043e\u043c.com', ['idn-lookalike']],
    ['an Arabic vowel mark', 'https://\u0645\u064f\u062d\u0645\u062f.com', []],
    ['a symbol among kana', 'https://\u30c6\u30b9\u30c8\u2606.jp', ['idn-lookalike']],
    ['the long-vowel mark without kana', 'https://\u4f8b\u30fc.jp', ['idn-lookalike']],
    ['a middle dot before an l only', 'https://co\u00b7legi.cat', ['idn-lookalike']],
    ['a middle dot after an l only', 'https://col\u00b7egi.cat', ['idn-lookalike']],
    ['a sign other than the middle dot between two l', 'https://col\u2044legi.cat', ['idn-lookalike']],
    ['an ASCII digit and hyphen in a Unicode label', 'https://b\u00fccher-1.de', []],
    ['a hyphen beside Devanagari digits', 'https://\u092d\u093e\u0930\u0924-\u0967.com', []],
    ['ASCII 0 with a Devanagari digit', 'https://\u092d\u093e\u0930\u09240\u0967.com', ['idn-mixed-digits']],
    ['ASCII 9 with a Devanagari digit', 'https://\u092d\u093e\u0930\u09249\u0967.com', ['idn-mixed-digits']],
    ['a hyphen in an all-Cyrillic look-alike', 'https://\u0430\u0440\u0440-\u0430.com', ['idn-whole-script-confusable']],
    ['a look-alike digit with another digit of its script', 'https://\u0966\u0967.com', ['idn-whole-script-confusable']],
    ['a label of one symbol', 'https://\u2606.com', ['idn-lookalike']],
    ['look-alikes of two scripts', 'https://\u0430\u03bf.com', ['idn-mixed-script']],
    ['a Latin look-alike alone under a Cyrillic top-level domain', 'https://\u0251.\u0440\u0444', ['idn-lookalike']],
  ])('%s: %s gives exactly %j', (_what, url, expected) => {
    const origin = displayOrigin(url);
    expect(origin.warnings.map((w) => w.code)).toEqual(expected);
    expect(origin.punycode).toBe(expected.length > 0);
  });

  it('keeps a label with an ASCII digit in Unicode', () => {
    expect(displayOrigin('https://b\u00fccher1.de')).toMatchObject({ host: 'b\u00fccher1.de', punycode: false, warnings: [] });
  });
});

describe('displayOrigin: subdomain length', () => {
  it('keeps a subdomain of exactly the maximum length whole', () => {
    const sub = 'a'.repeat(24);
    const origin = displayOrigin(`https://${sub}.example.com`);
    expect(origin).toMatchObject({ subdomain: sub, fullSubdomain: sub, display: `https://${sub}.example.com`, warnings: [] });
  });

  it('accepts a maximum of 2', () => {
    expect(displayOrigin('https://ab.example.com', { maxSubdomainLength: 2 }).subdomain).toBe('ab');
    expect(displayOrigin('https://abc.example.com', { maxSubdomainLength: 2 }).subdomain).toBe('\u2026c');
  });

  it.each([1, 0, 2.5, Number.NaN])('refuses a maximum of %s', (max) => {
    expect(() => displayOrigin('https://example.com', { maxSubdomainLength: max })).toThrow(
      expect.objectContaining({
        name: 'CountersignError',
        code: 'ERR_ARGUMENT_INVALID',
        message: `maxSubdomainLength: expected an integer of at least 2, got ${String(max)}`,
      }),
    );
  });
});

describe('displayOrigin: refused origins, with the reason', () => {
  const refusal = (url: unknown): unknown => {
    try {
      displayOrigin(url as string);
    } catch (error) {
      return error;
    }
    return undefined;
  };

  it('says a non-string origin is not a URL, by its type', () => {
    expect(refusal(42)).toMatchObject({ name: 'CountersignError', code: 'ERR_ARGUMENT_INVALID', message: 'origin: expected an http or https URL, got a number' });
  });

  it('says a string the URL parser refuses is not a URL, and keeps the parser error as the cause', () => {
    const error = refusal('not a url') as Error;
    expect(error).toMatchObject({ code: 'ERR_ARGUMENT_INVALID', message: 'origin: expected an http or https URL, got a string that is not a URL' });
    expect(error.cause).toBeInstanceOf(TypeError);
  });

  it('names the scheme it refuses', () => {
    expect(refusal('ftp://example.com')).toMatchObject({ code: 'ERR_ARGUMENT_INVALID', message: 'origin: expected an http or https URL, got the scheme ftp:' });
  });
});

describe('displayOrigin: more of what the window shows', () => {
  it('warns about a password even without a user name', () => {
    expect(codes('https://:secret@example.com')).toEqual(['credentials-in-url']);
  });

  it('shows an IP address as it is, never as punycode', () => {
    expect(displayOrigin('https://192.0.2.7')).toEqual({
      scheme: 'https',
      host: '192.0.2.7',
      asciiHost: '192.0.2.7',
      punycode: false,
      subdomain: '',
      fullSubdomain: '',
      registrableDomain: '192.0.2.7',
      port: '',
      display: 'https://192.0.2.7',
      spelledDomain: null,
      ownerSentence: 'This site is the IP address 192.0.2.7.',
      ownerText: { key: 'origin_ownerIp', substitutions: ['192.0.2.7'] },
      warnings: [
        {
          code: 'ip-address',
          message: 'The Company is known only by an IP address, not by a domain name.',
          text: { key: 'origin_ipAddress', substitutions: [] },
        },
      ],
    });
  });

  it('finds a spelled domain that ends before the last subdomain label', () => {
    const origin = displayOrigin('https://shop.paypal.com.qqq.evil.co');
    expect(origin.spelledDomain).toBe('paypal.com');
    expect(origin.warnings).toEqual([
      {
        code: 'subdomain-spells-domain',
        message: 'This site is evil.co. The address starts with \u201Cshop.paypal.com\u201D, which reads like paypal.com but is not the site.',
        text: { key: 'origin_subdomainSpellsDomain', substitutions: ['evil.co', 'shop.paypal.com', 'paypal.com'] },
      },
    ]);
  });

  it('does not take a two-letter label outside the Public Suffix List for an ending', () => {
    const origin = displayOrigin('https://foo.zz.evil.co');
    expect(origin.spelledDomain).toBeNull();
    expect(origin.warnings).toEqual([]);
  });

  it('names the site without its trailing dot when the subdomain spells a domain', () => {
    expect(displayOrigin('https://paypal.com.evil.example.').warnings).toEqual([
      {
        code: 'subdomain-spells-domain',
        message: 'This site is evil.example. The address starts with \u201Cpaypal.com\u201D, which is not the site.',
        text: { key: 'origin_subdomainIsDomain', substitutions: ['evil.example', 'paypal.com'] },
      },
    ]);
  });
});

describe('a combining mark after the Common characters a name may hold', () => {
  it('is a look-alike after the long-vowel mark among kana, which is allowed on its own', () => {
    expect(displayOrigin('https://\u30c6\u30b9\u30c8\u30fc.jp').warnings.map((w) => w.code)).toEqual([]);
    expect(displayOrigin('https://\u30c6\u30b9\u30c8\u30fc\u0301.jp').warnings.map((w) => w.code)).toContain('idn-lookalike');
  });
});
