// @vitest-environment jsdom
import { describe, it, expect } from 'vitest';
import { renderApprovalCard } from '../../../src/extension/ui/approval-card';
import { translator, type Translate } from '../../../src/extension/ui/i18n';
import { ALLOWED_TAGS } from '../../../src/summary/sanitize.ts';
import type { ReviewedView } from '../../../src/extension/snapshot';
import { chromeGetMessage, englishMessages } from './locale-table';
import { textOf } from './fake-browser';
import { EXCHANGE_REQUEST, jacketOperation, jacketView, STORMLINE, T700, TERMS } from './jacket-view';
import { toolCallAsRequest } from '../../../src/extension/tool-call-request';

/** The English translator, recording every text it gave the card. */
function recording(): Translate & { shown: Set<string> } {
  const shown = new Set<string>();
  const get = chromeGetMessage(englishMessages());
  const t = translator((key, subs) => {
    const text = get(key, subs);
    if (text) shown.add(text);
    return text;
  }, 'en') as Translate & { shown: Set<string> };
  return Object.assign(t, { shown });
}

function render(view: ReviewedView) {
  const t = recording();
  const out = renderApprovalCard(document, view, t);
  document.body.replaceChildren(out.card);
  return { ...out, t, $: (s: string) => out.card.querySelector<HTMLElement>(s) };
}

/**
 * docs/ui.md "Language": every visible text node is a message as the page was given it, or
 * inside an element marked `data-value` (aria-hidden decoration is not read, as in the e2e check).
 */
function unmarked(root: Element, shown: Set<string>): string[] {
  const bad: string[] = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent ?? '';
    if (!text.trim() || node.parentElement?.closest('[data-value], [aria-hidden="true"]')) continue;
    if (!shown.has(text)) bad.push(text);
  }
  return bad;
}

const SPELLS = 'https://stormline.example.checkout-secure.co';

describe('approval card: the risk banner (docs/ui.md "Danger")', () => {
  it('a clean request: no banner, no list of concerns', () => {
    const { $ } = render(jacketView());
    expect($('[data-testid="risk"]')).toBeNull();
    expect($('.concerns')).toBeNull();
  });

  it('a warning only (a bare IP address): listed under the concerns, but no banner', () => {
    const { $, risk, t } = render(jacketView({ url: 'https://192.168.1.10' }));
    expect(risk.danger).toBe(false);
    expect($('[data-testid="risk"]')).toBeNull();
    expect(textOf($('[data-testid="findings"] li.finding.warning'))).toBe(t('origin_ipAddress'));
  });

  it('info only (http on localhost): no banner, no concerns; the note is under technical details', () => {
    const { $, t } = render(jacketView({ url: 'http://localhost:8080' }));
    expect($('[data-testid="risk"]')).toBeNull();
    expect($('[data-testid="findings"]')).toBeNull();
    expect([...$('[data-testid="checked"]')!.querySelectorAll('li.info')].map(textOf)).toContain(t('origin_insecureScheme'));
  });

  it('danger from the review: the banner comes first, as an alert, with "Why?"', () => {
    const { card, $, t } = render(jacketView({ operation: jacketOperation({ terms: T700 }) }));
    const banner = $('[data-testid="risk"]')!;
    expect(card.firstElementChild).toBe(banner);
    expect(banner.getAttribute('role')).toBe('alert');
    // The top finding itself, in the facts' words: the label, and the amount as the facts show it.
    expect(textOf(banner)).toContain('The terms set Price difference to $700.00, but the summary does not state that amount.');
    // The banner's line is the first danger of the findings list, not a general alarm.
    expect(textOf(banner.querySelector('.line'))).toContain(textOf($('.finding.danger')));
    expect(banner.querySelector<HTMLButtonElement>('button[data-action="why"]')?.textContent).toBe(t('riskWhy'));
    expect($('[data-testid="findings"] li.finding.danger')).not.toBeNull();
  });

  it('danger from the address: the banner says the address may not be who it claims', () => {
    const { $ } = render(jacketView({ url: SPELLS }));
    expect(textOf($('[data-testid="risk"]'))).toContain('This site is checkout-secure.co.');
    expect(textOf($('[data-testid="risk"] .line'))).toContain(textOf($('.finding.danger')));
  });
});

describe('approval card: who asks (spec section 5: the Company\'s name, with its origin)', () => {
  it('normally the heading names the Company, and no "it calls itself" line', () => {
    const { $ } = render(jacketView());
    const heading = $('h1#company-heading')!;
    expect(heading.textContent).toBe('Stormline Outfitters asks to do this for you');
    expect(heading.title).toBe(STORMLINE.name);
    expect($('.claims')).toBeNull();
    expect(textOf($('[data-testid="origin"] .registrable'))).toBe('stormline.example');
    expect($('[data-testid="owner"]')).toBeNull();
  });

  it('with an origin warning the heading leads with the registrable domain; the claimed name comes after', () => {
    const { $, t } = render(jacketView({ url: SPELLS }));
    const heading = $('h1#company-heading')!;
    expect(heading.textContent).toBe('checkout-secure.co asks to do this for you');
    expect(heading.textContent).not.toContain(STORMLINE.name);
    expect(heading.title).toBe('checkout-secure.co');
    expect(textOf($('.claims'))).toBe(t('claimsToBe', STORMLINE.name));
    expect(textOf($('[data-testid="owner"]'))).toBe('This site is checkout-secure.co.');
    expect(textOf($('[data-testid="origin"]'))).toBe('https://stormline.example.checkout-secure.co');
    expect(textOf($('[data-testid="origin"] strong.registrable'))).toBe('checkout-secure.co');
  });
});

describe('approval card: key facts (how much, for whom, who asked)', () => {
  it('money first, with "you pay" for a charge', () => {
    const { $ } = render(jacketView());
    const block = $('[data-testid="facts"]')!;
    expect(textOf(block.querySelector('dt'))).toBe('Price difference');
    const first = block.querySelector('dd')!;
    expect(first.classList.contains('money')).toBe(true);
    expect(textOf(first.querySelector('[data-testid="money"]'))).toBe('$70.00');
    expect(textOf(first.querySelector('.direction'))).toBe('you pay');
  });

  it('a refund says "back to you", not "you pay"', () => {
    const { $ } = render(jacketView({ operation: jacketOperation({ summary: 'Refund **$20.00** to your card for order ord_7Hk2.', terms: { refund: { amount: '20.00', currency: 'USD' }, order_id: 'ord_7Hk2' } }) }));
    const money = $('[data-testid="facts"] dd.money')!;
    expect(textOf(money.querySelector('.direction'))).toBe('back to you');
  });

  it('three terms facts at most, by meaning, references left to Technical details; then "For" and "Asked by" with the agent\'s name and key', () => {
    const { $, t } = render(jacketView());
    const labels = [...$('[data-testid="facts"]')!.querySelectorAll('dt')].map(textOf);
    // The jacket's other terms are IDs: they answer no question the person asks before deciding.
    expect(labels).toEqual(['Price difference', t('factsLabelFor'), t('factsLabelAgent')]);
    expect(textOf($('[data-testid="terms"]'))).toContain('ord_7Hk2');
    const flight = render(jacketView({ operation: jacketOperation({ terms: { booking_ref: 'SL-88QX', old_departure: '2026-12-10T07:05:00+01:00', new_departure: '2026-12-10T09:40:00+01:00', fare_difference: { amount: '45.00', currency: 'EUR' }, cabin: 'Economy', seat: '22A' } }) }));
    const rows = [...flight.$('[data-testid="facts"]')!.querySelectorAll('dt')].map((dt) => `${textOf(dt)}: ${textOf(dt.nextElementSibling)}`);
    expect(rows.slice(0, 3)).toEqual(['Fare difference: €45.00 you pay', expect.stringMatching(/^Departure: Dec 10, 2026, 7:05\sAM UTC\+01:00 → Dec 10, 2026, 9:40\sAM UTC\+01:00$/), 'Cabin: Economy']);
    expect(textOf($('[data-testid="for-whom"]'))).toBe('Your account “alex@example.com”');
    expect(textOf($('[data-testid="agent"]'))).toBe('Desk agent 7Q2M-X9KD');
  });

  it('no terms: "None stated" in the amount\'s place', () => {
    const { $, t } = render(jacketView({ operation: jacketOperation({ terms: undefined }) }));
    const block = $('[data-testid="facts"]')!;
    expect(textOf(block.querySelector('dt'))).toBe(t('factsLabelTerms'));
    expect(textOf(block.querySelector('dd'))).toBe(t('factsNoTerms'));
    expect(block.querySelector('[data-testid="money"]')).toBeNull();
  });
});

describe('approval card: technical details are folded away', () => {
  it('a closed <details> after the summary, with the exact terms, the request and the reference', () => {
    const { card, $, t } = render(jacketView());
    const details = $('details[data-testid="technical"]') as HTMLDetailsElement;
    expect(details.open).toBe(false);
    expect(card.lastElementChild).toBe(details);
    expect(textOf(details.querySelector('summary'))).toBe(t('technicalDetails'));
    const rows = [...details.querySelectorAll('[data-testid="terms"] tr')].map((r) => [...r.children].map(textOf));
    expect(rows).toContainEqual(['price_difference.amount', '70.00']);
    expect(rows).toContainEqual(['order_id', 'ord_7Hk2']);
    expect(details.querySelector('[data-testid="request"]')!.textContent).toBe(JSON.stringify(EXCHANGE_REQUEST.body, null, 2));
    expect(textOf(details.querySelector('.ids'))).toBe('exc_5Rt2 · rev1');
    expect(details.querySelectorAll('[data-testid="checked"] li.checked').length).toBeGreaterThan(0);
    // The findings are above the fold, not inside it.
    expect(card.querySelector('details [data-testid="findings"]')).toBeNull();
  });
});

describe('approval card: Company text never becomes markup (spec section 3 "Formatting", section 8)', () => {
  const html = '<img src=x onerror="alert(1)"><script>alert(2)</script><a href="javascript:alert(3)">x</a><iframe></iframe>';
  const hostile = jacketView({
    company: { name: `Storm ${html}`, origin: STORMLINE.origin },
    agentName: `Agent ${html}`,
    operation: jacketOperation({
      operation_id: `op ${html}`,
      summary: `Exchange **the jacket** ${html}\n\n<b onclick="x()">bold</b> [link](https://evil.example) ![pic](https://evil.example/p.png)\n\n- one\n- two`,
      terms: { ...TERMS, [`note ${html}`]: `value ${html}` },
    }),
    previous: jacketOperation({ operation_id: `op ${html}`, summary: 'Old words', terms: { ...TERMS, [`note ${html}`]: 'before' } }),
    request: { interface: 'api', method: html, url: html, body: { x: html } },
    session: { kind: 'signed_in', account: html },
  });

  it('the summary holds only allow-listed elements; no element anywhere has an event handler, a link or an image', () => {
    const { card, summary } = render(hostile);
    for (const e of summary.querySelectorAll('*')) expect(ALLOWED_TAGS as readonly string[]).toContain(e.localName);
    expect(summary.querySelector('strong')).not.toBeNull();
    expect(card.querySelectorAll('img, script, iframe, a, b, object, embed, svg, style, link')).toHaveLength(0);
    for (const e of card.querySelectorAll('*')) for (const attr of e.getAttributeNames()) expect(attr).not.toMatch(/^on|^href$|^src$/);
  });

  it('outside the summary the card is made of its own elements only, and Company text stays text', () => {
    const { card, summary } = render(hostile);
    const own = new Set(['article', 'div', 'span', 'button', 'strong', 'h1', 'h2', 'h3', 'p', 'dl', 'dt', 'dd', 'section', 'ul', 'li', 'details', 'summary', 'table', 'tr', 'th', 'td', 'pre', 'ins', 'del']);
    for (const e of card.querySelectorAll('*')) if (!summary.contains(e)) expect(own, e.localName).toContain(e.localName);
    expect(textOf(card.querySelector('#company-heading'))).toContain('<img src=x onerror="alert(1)">');
    expect(textOf(card.querySelector('.agent-name'))).toContain('<script>alert(2)</script>');
  });
});

describe('approval card: every visible text is a message or marked data-value (docs/ui.md "Language")', () => {
  it('fact labels (<dt>) and values are marked data; the card\'s own labels are messages', () => {
    const { $, t } = render(jacketView());
    const block = $('[data-testid="facts"]')!;
    const dts = [...block.querySelectorAll('dt')];
    expect(dts[0]!.hasAttribute('data-value'), textOf(dts[0])).toBe(true);
    for (const value of block.querySelectorAll('dd.money > .value, dd.fact > .value')) expect(value.hasAttribute('data-value')).toBe(true);
    expect(block.querySelectorAll('dd > .value[data-value]')).toHaveLength(1);
    expect(textOf(dts[1])).toBe(t('factsLabelFor'));
  });

  const cases: Array<[string, ReviewedView]> = [
    ['a clean request', jacketView()],
    ['danger from the address, with info notes', jacketView({ url: 'https://stormline.example.checkout-secure.co' })],
    ['review danger, a revision that changed, no request, hidden characters', jacketView({ operation: jacketOperation({ terms: T700, summary: 'Exchange\u200B the jacket for **$70.00** more.' }), previous: jacketOperation(), request: null, session: null })],
    ['no terms, an MCP call, a refund', jacketView({ operation: jacketOperation({ terms: undefined }), request: { interface: 'mcp', tool: 'exchange', server_url: 'https://mcp.example', arguments: { a: 1 } } })],
    ['a refund and a conversation', jacketView({ operation: jacketOperation({ summary: 'Refund **$20.00** for order ord_7Hk2.', terms: { refund: { amount: '20.00', currency: 'USD' }, order_id: 'ord_7Hk2' } }), request: { interface: 'conversation', conversation_id: 'c_1' } })],
  ];
  for (const [name, view] of cases) {
    it(name, () => {
      const { card, t } = render(view);
      expect(textOf(card).length).toBeGreaterThan(0);
      expect(unmarked(card, t.shown)).toEqual([]);
    });
  }
});

describe('approval card: a new revision while reading', () => {
  it('the "changed" banner says what moved, in the terms\' values', () => {
    const { $, t } = render(jacketView({ operation: jacketOperation({ terms: T700, revision: 'rev2' }), previous: jacketOperation() }));
    const banner = $('[data-testid="changed"]')!;
    expect(textOf(banner.querySelector('strong'))).toBe(t('changedBanner', STORMLINE.name));
    expect(textOf(banner.querySelector('.changes'))).toBe('Price difference $70.00 → $700.00');
    expect($('[data-testid="diff"]')).not.toBeNull();
  });
});

describe('a Company name with hidden characters (docs/ui.md, "Danger")', () => {
  it('heads the card with the domain, not a heading full of tokens; the name as sent follows, tokens shown', () => {
    const { $ } = render(jacketView({ company: { ...STORMLINE, name: 'Storm\u200Bline\u202E Outfitters' } }));
    expect(textOf($('#company-heading'))).toBe('stormline.example asks to do this for you');
    expect(textOf($('.claims'))).toContain('Storm\u27E8U+200B\u27E9line\u27E8U+202E\u27E9 Outfitters');
    expect(textOf($('[data-testid="risk"]'))).not.toBe('');
  });
});

describe('a tool call from countersign-mcp (docs/mcp-gateway.md, "What you approve")', () => {
  async function toolCallView(): Promise<ReviewedView> {
    const req = await toolCallAsRequest({
      id: 'req_1',
      nonce: 'N'.repeat(42) + 'A',
      tool_call: {
        call_id: 'call_1',
        server: { name: 'secure-filesystem-server', reached_by: { transport: 'stdio', command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '/home/me/my notes'] } },
        tool: 'write_file',
        arguments: { path: '/home/me/my notes/a.txt', content: '**not bold** <b>x</b>' },
        expires_at: '2026-10-08T19:20:00Z',
      },
    });
    // `url` only feeds the helper's own origin, which `origin: null` then replaces (a tool call has no web address).
    return jacketView({ url: 'https://unused.example', company: req.company, origin: null, operation: req.operation, request: req.request, session: req.session, toolCall: { server: req.toolCall!.server, tool: 'write_file', arguments: req.toolCall!.arguments } });
  }

  it('leads with what will happen in plain words, then who asks; names the server and how it is started once', async () => {
    const { card, t, $ } = render(await toolCallView());
    expect($('#company-heading')?.textContent).toBe('Create or replace the file a.txt');
    expect($('[data-testid="action-target"]')?.textContent).toBe('/home/me/my notes/a.txt');
    expect($('[data-testid="item-kind"]')?.textContent).toBe('this computer: a tool call, not a request from a Company');
    // The command is who the server is; the name it gives itself is in quotes, its own words.
    expect($('[data-testid="server"]')?.textContent).toBe("write_file of “secure-filesystem-server”, a server started with npx @modelcontextprotocol/server-filesystem '/home/me/my notes'");
    expect(textOf(card).split('npx @modelcontextprotocol').length).toBe(2);
    expect(textOf(card)).toContain('Every argument of the call, as your agent will send it');
    expect(textOf(card)).not.toContain('in the Company’s words');
    expect($('[data-testid="for-whom"]')?.textContent).toBe('this computer: a tool call, not a request from a Company');
    expect(unmarked(card, t.shown)).toEqual([]);
  });

  it("shows the server's description as its own words, plain text, and a destructive hint as a danger", async () => {
    const view = await toolCallView();
    const hinted = { ...view, toolCall: { ...view.toolCall!, description: 'Writes <b>files</b>', annotations: { destructiveHint: true } } };
    const { risk, $ } = render(hinted);
    expect($('[data-testid="tool-description"]')?.textContent).toBe('The server describes the tool: Writes <b>files</b>');
    expect($('[data-testid="tool-description"] b')).toBeNull();
    expect(risk.danger).toBe(true);
    expect($('[data-testid="risk"]')?.textContent).toContain('The server marks this tool as destructive');
    // A read-only hint never lowers what the card does.
    const readOnly = render({ ...view, toolCall: { ...view.toolCall!, annotations: { readOnlyHint: true } } });
    expect(readOnly.$('#company-heading')?.textContent).toBe('Create or replace the file a.txt');
  });

  it('shows the arguments as typed: no emphasis or HTML of theirs takes effect', async () => {
    const { $ } = render(await toolCallView());
    const summary = $('[data-testid="summary"]')!;
    const content = [...summary.querySelectorAll('[data-testid="argument"]')].find((row) => row.querySelector('.name')?.textContent === 'content');
    expect(content?.querySelector('.value')?.textContent).toBe('**not bold** <b>x</b>');
    expect(summary.querySelector('b, em')).toBeNull();
  });

  it('a Company operation keeps its own heading and no tool-call line', () => {
    const { $ } = render(jacketView());
    expect($('[data-testid="item-kind"]')).toBeNull();
    expect($('#company-heading')?.textContent).toContain('Stormline');
  });
});
