import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Caller } from '../../src/conformance/caller';
import { MAX_RESPONSE_BYTES } from '../../src/conformance/company-http';
import { runConformance } from '../../src/conformance/run-conformance';
import { parseScenario } from '../../src/conformance/scenario';

/**
 * The kit against a Company that misbehaves on purpose: redirects elsewhere, answers with more
 * than the kit reads, and a conversation that never stops talking. The kit must finish, follow
 * nothing, report what it saw, and never crash.
 */

const seen: string[] = [];
let events = 0;

function handle(req: IncomingMessage, res: ServerResponse): void {
  seen.push(`${req.method} ${req.url}`);
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname === '/.well-known/poppy.json') {
    res.writeHead(302, { Location: 'http://127.0.0.1:9/elsewhere' }).end();
  } else if (url.pathname === '/orders') {
    res.writeHead(403, { 'Content-Type': 'application/json' });
    res.end(`{"error":"approval_required","padding":"${'x'.repeat(MAX_RESPONSE_BYTES + 10)}"}`);
  } else if (url.pathname === '/conversations') {
    res.writeHead(201, { 'Content-Type': 'application/json' }).end('{"id":"cnv_1"}');
  } else if (url.pathname === '/conversations/cnv_1/messages') {
    res.writeHead(201, { 'Content-Type': 'application/json' }).end('{}');
  } else if (url.pathname === '/conversations/cnv_1/events') {
    // Always one more Company message, whatever "after" says.
    events += 1;
    const event = { id: `evt_${events}`, type: 'message', message: { role: 'company', text: 'and another thing', extensions: { operations: 'not an object' } } };
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ events: [event] }));
  } else {
    res.writeHead(404).end();
  }
}

describe('countersign conformance against a hostile Company', () => {
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    server = createServer(handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('follows no redirect, reads at most MAX_RESPONSE_BYTES, stops reading a conversation that never ends', async () => {
    const scenario = parseScenario(
      JSON.stringify({
        version: 1,
        api: { operation: { method: 'POST', path: '/orders', body: {} } },
        conversation: {
          open: { request: { method: 'POST', path: '/conversations' }, capture: { conversation_id: '/id' } },
          send: { path: '/conversations/{{conversation_id}}/messages' },
          events: { path: '/conversations/{{conversation_id}}/events?after={{after}}', list: '/events' },
          operation: { text: 'exchange it' },
          replyTimeoutMs: 1_000,
          quietMs: 0,
        },
      }),
    );
    const report = await runConformance({ company: origin, scenario, only: ['2-poppy-json', '2-returns-operations'] });
    const poppy = report.checks.find((c) => c.id === '2-poppy-json');
    expect(poppy?.status).toBe('breaks');
    expect(poppy?.findings[0]?.evidence[0]?.why).toMatch(/expected 200 with a JSON object, got 302/);
    expect(seen.some((line) => line.includes('elsewhere'))).toBe(false);
    const returns = report.checks.find((c) => c.id === '2-returns-operations');
    expect(returns?.findings.map((f) => [f.interface, f.status])).toEqual([
      ['api', 'breaks'],
      ['conversation', 'breaks'],
    ]);
    expect(returns?.findings[0]?.evidence[0]?.exchanges[0]?.error).toMatch(/larger than 1048576 bytes/);
    // One read on opening, at most 100 for the answer, one after the quiet time.
    expect(events).toBeLessThanOrEqual(102);
    expect(report.summary.error).toBe(0);
  }, 60_000);
});

describe('countersign conformance: a scenario path stays on --company\'s origin whatever a variable holds', () => {
  const elsewhere: string[] = [];
  const company: string[] = [];
  let servers: Server[] = [];
  let origin: string;
  let other: string;

  beforeAll(async () => {
    const listen = async (handler: (req: IncomingMessage, res: ServerResponse) => void) => {
      const server = createServer(handler);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
      return `127.0.0.1:${(server.address() as AddressInfo).port}`;
    };
    other = await listen((req, res) => {
      elsewhere.push(`${req.method} ${req.url}`);
      res.writeHead(403, { 'Content-Type': 'application/json' }).end('{"error":"approval_required"}');
    });
    // The Company's setup answer names "the next path": another host, written as a path.
    origin = `http://${await listen((req, res) => {
      company.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ next: `/${other}` }));
    })}`;
  });

  it('every way a filled path can name another host is refused: "//", "/\\", a tab between the slashes, a whole URL', () => {
    const caller = new Caller({ label: 'x', sid: 's', origin: new URL('http://127.0.0.1:1'), signer: undefined as never });
    for (const path of ['//x.example/a', '/\\x.example/a', '/\t/x.example/a', 'https://x.example/a', 'a']) {
      expect(() => caller.url(path), path).toThrow(expect.objectContaining({ code: 'ERR_SCENARIO_INVALID' }));
    }
    expect(caller.url('/orders/../x.example/a?b=//c')).toBe('http://127.0.0.1:1/x.example/a?b=//c');
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    servers = [];
  });

  it('a captured "/host:port" in "/{{next}}/orders" is refused with ERR_SCENARIO_INVALID, and nothing reaches the other host', async () => {
    const scenario = parseScenario(
      JSON.stringify({
        version: 1,
        setup: { request: { method: 'POST', path: '/setup' }, capture: { next: '/next' } },
        api: { operation: { method: 'POST', path: '/{{next}}/orders', body: {} } },
      }),
    );
    const report = await runConformance({ company: origin, scenario, only: ['2-returns-operations'] });
    const finding = report.checks.find((c) => c.id === '2-returns-operations')?.findings[0];
    expect(company).toContain('POST /setup');
    expect(elsewhere).toEqual([]);
    expect(finding?.status).toBe('error');
    expect(finding?.reason).toMatch(new RegExp(`the path "//${other.replace(/\./g, '\\.')}/orders": expected a path on ${origin.replace(/\./g, '\\.')} once its variables are filled`));
  }, 60_000);
});
