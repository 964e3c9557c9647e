import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/**
 * A scripted Company on a real port, for the Personal Agent's side of rules about Companies that
 * misbehave or say odd things (a Company text that claims approval, terms that disagree with the
 * summary, an approval answered with the revision it named, a poppy.json without v2 and an
 * operation anyway). Every request is recorded. The reference Company (src/company) never does
 * these things, so these tests need their own.
 */

export interface OddRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface OddReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface OddCompany {
  url: string;
  requests: OddRequest[];
}

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});

export async function startOddCompany(handle: (request: OddRequest, url: string) => OddReply | Promise<OddReply>): Promise<OddCompany> {
  const requests: OddRequest[] = [];
  let url = '';
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = text;
      }
      const request: OddRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body };
      requests.push(request);
      Promise.resolve(handle(request, url)).then(
        (reply) => {
          const payload = reply.body === undefined ? '' : JSON.stringify(reply.body);
          res.writeHead(reply.status, { 'Content-Type': 'application/json', ...(reply.headers ?? {}) });
          res.end(payload);
        },
        () => {
          res.writeHead(500);
          res.end();
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  open.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return { url, requests };
}

export function poppyJson(name: string, versions: string[] | undefined): unknown {
  return versions === undefined ? { organization: { name } } : { organization: { name }, extensions: { operations: versions.map((version) => ({ version })) } };
}

/** An operation that expires in 15 minutes. */
export function oddOperation(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    operation_id: 'exc_odd1',
    revision: 'rev-odd-1',
    summary: 'Exchange the Stormline Jacket (M) on order ord_7Hk2 for the Stormline Insulated Jacket (M), for $70.00 more.',
    terms: { order_id: 'ord_7Hk2', replacement_sku: 'stormline-insulated-m', price_difference: { amount: '70.00', currency: 'USD' } },
    expires_at: new Date(Date.now() + 15 * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    ...overrides,
  };
}
