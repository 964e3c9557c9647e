import { describe, expect, it, vi } from 'vitest';
import { APPROVE_PAGE } from '../../../src/extension/approval-window';
import { dispatchPageMessage, type DispatchContext } from '../../../src/extension/page-messages/dispatch';
import { PAGE_MESSAGES, PAGE_PATHS, type BackgroundParts, type PageName, type PageServices } from '../../../src/extension/page-messages/index';
import { pageMessage, type PageMessage } from '../../../src/extension/runtime-messages';
import { CountersignError } from '../../../src/protocol/errors';

/**
 * The registry of page messages and the dispatch in front of it: every message has a schema, the
 * pages allowed to send it and a handler; the union the background parses with accepts each one;
 * and a message from a page not allowed to send it gets the same ERR_NOT_ALLOWED answer the
 * background always gave, before its handler (or the background's start) is reached.
 */

const OWN_ID = 'countersign-id';
const base = `chrome-extension://${OWN_ID}`;
const pageAt = (page: PageName) => `${base}${PAGE_PATHS[page]}`;

/** One valid message of each type: the union must parse every one. */
const EXAMPLES: Record<PageMessage['type'], PageMessage> = {
  'countersign/version': { type: 'countersign/version' },
  'countersign/decide': { type: 'countersign/decide', key: 'k1', decision: 'approve', trusted: true, shownFor: 1500 },
  'countersign/withdraw': { type: 'countersign/withdraw', key: 'k1', trusted: true },
  'countersign/decline-all': { type: 'countersign/decline-all', trusted: true },
  'countersign/snapshot': { type: 'countersign/snapshot' },
  'countersign/pair-answer': { type: 'countersign/pair-answer', pairingId: 'c_1:p1', confirmed: true, code: '304 236', trusted: true, shownFor: 1500 },
  'countersign/revoke-agent': { type: 'countersign/revoke-agent', thumbprint: 'thumb' },
  'countersign/open-window': { type: 'countersign/open-window' },
  'countersign/history': { type: 'countersign/history', query: 'jacket', limit: 50 },
  'countersign/export': { type: 'countersign/export' },
  'countersign/settings-set': { type: 'countersign/settings-set', settings: { notifications: false } },
  'countersign/passkey-challenge': { type: 'countersign/passkey-challenge', key: 'k1' },
  'countersign/passkey-set': { type: 'countersign/passkey-set', credential: null },
  'countersign/agent-verification': { type: 'countersign/agent-verification', thumbprint: 'thumb', required: true },
  'countersign/settings-challenge': { type: 'countersign/settings-challenge', change: { kind: 'agent-verification', thumbprint: 'thumb', required: false } },
};

/** Who may send each message, as the background has always checked it. */
const SENDERS: Record<PageMessage['type'], readonly PageName[] | 'any'> = {
  'countersign/version': 'any',
  'countersign/decide': ['approve'],
  'countersign/withdraw': ['approve', 'popup'],
  'countersign/decline-all': 'any',
  'countersign/snapshot': 'any',
  'countersign/pair-answer': ['approve'],
  'countersign/revoke-agent': 'any',
  'countersign/open-window': 'any',
  'countersign/history': 'any',
  'countersign/export': 'any',
  'countersign/settings-set': 'any',
  // The passkey: confirmed in the approval window, registered and required in the options page.
  'countersign/passkey-challenge': ['approve'],
  'countersign/passkey-set': ['options'],
  'countersign/agent-verification': ['options'],
  'countersign/settings-challenge': ['options'],
};

const typeOf = (m: (typeof PAGE_MESSAGES)[number]) => m.schema.shape.type.value;

function fakes() {
  const parts = {
    store: { newest: vi.fn(async () => []), all: vi.fn(async () => []), agents: vi.fn(async () => []), auditLog: vi.fn(async () => []) },
    queue: { decide: vi.fn(async () => undefined), withdraw: vi.fn(async () => ({ tooLate: false })), declineAll: vi.fn(async () => ({ declined: 0, failed: [] })) },
    sessions: { answerPairing: vi.fn(async () => ({ status: 'paired' })), revoke: vi.fn(async () => true) },
    port: { state: 'up' },
    thumbprint: 'ext',
  };
  const services: PageServices = {
    version: '1.2.3',
    extensionOrigin: base,
    startedAt: 42,
    ready: vi.fn(async () => parts as unknown as BackgroundParts),
    snapshot: vi.fn(async () => ({}) as never),
    settings: vi.fn(async () => ({ notifications: true })),
    saveSettings: vi.fn(async () => undefined),
    showApprovalWindow: vi.fn(async () => 1),
    changed: vi.fn(),
  };
  const ctx: DispatchContext = { ownId: OWN_ID, pageUrl: (path) => `${base}${path}`, services };
  return { parts, services, ctx };
}

describe('page messages: the registry', () => {
  it('every registered module has a schema for its own type, the pages allowed to send it and a handler', () => {
    for (const module of PAGE_MESSAGES) {
      expect(module.schema.shape.type.value).toMatch(/^countersign\/[a-z-]+$/);
      expect(typeof module.handler).toBe('function');
      if (module.from === 'any') continue;
      expect(module.from.length).toBeGreaterThan(0);
      for (const page of module.from) expect(Object.keys(PAGE_PATHS)).toContain(page);
      expect(module.refusal).toMatch(/\S/);
    }
  });

  it('the approval window is checked at the address it opens at', () => {
    expect(PAGE_PATHS.approve).toBe(APPROVE_PAGE);
  });

  it('one module per type, and the senders each type has always had', () => {
    const types = PAGE_MESSAGES.map(typeOf);
    expect(new Set(types).size).toBe(types.length);
    expect(types.sort()).toEqual(Object.keys(EXAMPLES).sort());
    expect(Object.fromEntries(PAGE_MESSAGES.map((m) => [typeOf(m), m.from]))).toEqual(SENDERS);
  });

  it('the union parses one message of each type, and still refuses unknown types and extra members', () => {
    for (const example of Object.values(EXAMPLES)) expect(pageMessage.parse(example)).toEqual(example);
    expect(pageMessage.safeParse({ type: 'countersign/approve-all' }).success).toBe(false);
    expect(pageMessage.safeParse({ type: 'countersign/snapshot', extra: 1 }).success).toBe(false);
    expect(pageMessage.safeParse({ type: 'countersign/decide', key: 'k1', decision: 'approve', trusted: false, shownFor: 1500 }).success).toBe(false);
  });
});

describe('page messages: the dispatch', () => {
  it('a message from a page not allowed to send it gets ERR_NOT_ALLOWED, as before, and reaches no handler', async () => {
    const refusals: Array<[PageMessage['type'], string | undefined, string]> = [
      ['countersign/decide', pageAt('popup'), 'decisions are taken in the approval window only'],
      ['countersign/decide', pageAt('options'), 'decisions are taken in the approval window only'],
      ['countersign/decide', undefined, 'decisions are taken in the approval window only'],
      ['countersign/withdraw', pageAt('options'), 'withdraw from the approval window or the popup'],
      ['countersign/withdraw', pageAt('welcome'), 'withdraw from the approval window or the popup'],
      ['countersign/pair-answer', pageAt('popup'), 'pairing is answered in the approval window only'],
      ['countersign/pair-answer', 'https://evil.example/approve.html', 'pairing is answered in the approval window only'],
    ];
    for (const [type, url, message] of refusals) {
      const { ctx, services } = fakes();
      expect(await dispatchPageMessage(EXAMPLES[type], { id: OWN_ID, url }, ctx)).toEqual({ error: { code: 'ERR_NOT_ALLOWED', message } });
      expect(services.ready).not.toHaveBeenCalled();
    }
  });

  it('the pages allowed are answered by the handler', async () => {
    const { ctx, parts } = fakes();
    expect(await dispatchPageMessage(EXAMPLES['countersign/decide'], { id: OWN_ID, url: `${pageAt('approve')}?x=1` }, ctx)).toEqual({ ok: true });
    expect(parts.queue.decide).toHaveBeenCalledWith('k1', 'approve');
    expect(await dispatchPageMessage(EXAMPLES['countersign/withdraw'], { id: OWN_ID, url: pageAt('popup') }, ctx)).toEqual({ ok: true, tooLate: false });
    expect(await dispatchPageMessage(EXAMPLES['countersign/withdraw'], { id: OWN_ID, url: pageAt('approve') }, ctx)).toEqual({ ok: true, tooLate: false });
    // 'any': no check of the address, only of the extension id.
    expect(await dispatchPageMessage(EXAMPLES['countersign/revoke-agent'], { id: OWN_ID }, ctx)).toEqual({ ok: true });
    expect(parts.sessions.revoke).toHaveBeenCalledWith('thumb');
  });

  it('what is not ours is not answered at all: another extension, or a message that does not parse', () => {
    const { ctx, services } = fakes();
    expect(dispatchPageMessage(EXAMPLES['countersign/snapshot'], { id: 'other-extension', url: pageAt('approve') }, ctx)).toBeUndefined();
    expect(dispatchPageMessage({ type: 'countersign/snapshot', extra: true }, { id: OWN_ID, url: pageAt('approve') }, ctx)).toBeUndefined();
    expect(dispatchPageMessage('countersign/snapshot', { id: OWN_ID, url: pageAt('approve') }, ctx)).toBeUndefined();
    expect(services.ready).not.toHaveBeenCalled();
  });

  it('errors are answered as { error }: a CountersignError as it is, anything else as ERR_REMOTE', async () => {
    const { ctx, parts } = fakes();
    parts.queue.decide.mockRejectedValueOnce(new CountersignError('ERR_TOO_LATE', 'already decided'));
    expect(await dispatchPageMessage(EXAMPLES['countersign/decide'], { id: OWN_ID, url: pageAt('approve') }, ctx)).toEqual({ error: { code: 'ERR_TOO_LATE', message: 'already decided' } });
    parts.queue.declineAll.mockRejectedValueOnce(new Error('disk full'));
    expect(await dispatchPageMessage(EXAMPLES['countersign/decline-all'], { id: OWN_ID, url: pageAt('approve') }, ctx)).toEqual({ error: { code: 'ERR_REMOTE', message: 'Error: disk full' } });
  });

  it('the approval gate still holds behind the page check: too quick, or the bridge down', async () => {
    const { ctx, parts } = fakes();
    const approve = { id: OWN_ID, url: pageAt('approve') };
    expect(await dispatchPageMessage({ ...EXAMPLES['countersign/decide'], shownFor: 999 }, approve, ctx)).toEqual({
      error: { code: 'ERR_NOT_ALLOWED', message: 'approve: the window was not in front of the person long enough' },
    });
    parts.port.state = 'down';
    expect(await dispatchPageMessage(EXAMPLES['countersign/decide'], approve, ctx)).toEqual({ error: { code: 'ERR_COMPANION_UNAVAILABLE', message: 'approve: the bridge is down' } });
    // Declining needs neither.
    expect(await dispatchPageMessage({ ...EXAMPLES['countersign/decide'], decision: 'decline', shownFor: 0 }, approve, ctx)).toEqual({ ok: true });
    expect(parts.queue.decide).toHaveBeenCalledTimes(1);
    expect(await dispatchPageMessage({ ...EXAMPLES['countersign/pair-answer'], code: undefined }, approve, ctx)).toEqual({
      error: { code: 'ERR_PAIRING_FAILED', message: 'pair: type the 6-digit code your agent shows' },
    });
  });

  it('the version query is answered without starting the background', async () => {
    const { ctx, services } = fakes();
    expect(await dispatchPageMessage(EXAMPLES['countersign/version'], { id: OWN_ID, url: pageAt('options') }, ctx)).toEqual({ product: 'Countersign', version: '1.2.3', bridgeProtocol: expect.any(Number), startedAt: 42 });
    expect(services.ready).not.toHaveBeenCalled();
  });
});
