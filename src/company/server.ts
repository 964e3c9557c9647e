import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OPERATIONS_EXTENSION, OPERATIONS_VERSION } from '../protocol/index';
import { handleApi } from './api';
import { seedCatalog, type Catalog } from './catalog';
import { Conversations } from './conversation';
import { createFaults, type CompanyFaults } from './faults';
import { sendJson, type CompanyContext } from './http';
import { handleMcp } from './mcp';
import { Operations } from './operations';
import { CompanyPasskeys } from './passkeys';
import type { PasskeyCredential } from '../protocol/passkey';
import { DEFAULT_TOKENS } from './session';
import { handleTesting, type TestingClock } from './testing-routes';

/**
 * `createCompany`: the reference Company (Stormline Outfitters) on a real port, for tests and the
 * demo. Its API, MCP server and conversation endpoint return operations and enforce section 6's
 * checks and section 7's at-most-once (docs/reference-company.md).
 */

export const COMPANY_NAME = 'Stormline Outfitters';

export interface CompanyOptions {
  /** 0 (default): any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** poppy.json `organization.domain`; default the host the server listens on. */
  domain?: string;
  /** Key of the operation ID and revision HMACs; default 32 random bytes (revisions don't survive a restart). */
  secret?: string | Uint8Array;
  /** The clock for expiry, dates and revisions (tests move it); default Date.now. Fault timings use real time. */
  now?: () => number;
  /**
   * Testing mode: the `/testing/*` routes (testing-routes.ts), for a conformance kit that sets the
   * Company up from outside. Default false: then `/testing/*` is 404 like any unknown path.
   */
  testing?: boolean;
  /** How long an approval of a new revision is accepted (section 3, "Expiry"); default 15 minutes. */
  approvalTtlMs?: number;
  /** The same request within this window gets the same revision; default 60 s (whole seconds). */
  revisionWindowMs?: number;
  /** Bearer token → account; default `tok_alex` → `acct_alex`, `tok_sam` → `acct_sam`. */
  tokens?: Record<string, string>;
  /**
   * Account → the passkey registered for it out of band: approvals by those accounts perform only
   * with a passkey proof (passkeys.ts; docs/reference-company.md, "Passkey proofs"). Default none.
   */
  passkeys?: Record<string, PasskeyCredential>;
  /** Where to report unexpected errors; default stderr. */
  log?: (line: string) => void;
}

export interface CompanyState {
  /** How many times each operation was performed, by operation ID (section 7: never more than once). */
  performed: Map<string, number>;
  /** The shop's records (orders, subscriptions, products), live. */
  catalog: Catalog;
}

export interface Company {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  faults: CompanyFaults;
  state: CompanyState;
  close(): Promise<void>;
}

export const DEFAULT_APPROVAL_TTL_MS = 15 * 60_000;
export const DEFAULT_REVISION_WINDOW_MS = 60_000;

function poppyJson(context: CompanyContext, domain: string): unknown {
  const base = context.baseUrl();
  return {
    organization: { name: COMPANY_NAME, domain },
    // Section 2, "Advertising support".
    extensions: { [OPERATIONS_EXTENSION]: [{ version: OPERATIONS_VERSION }] },
    // Where our interfaces are. The core 0.4 names for these aren't available to us
    // (docs/core-assumptions.md); Personal Agents that don't know this member ignore it.
    interfaces: { api: base, mcp: `${base}/mcp`, conversations: `${base}/conversations` },
  };
}

/** The `now` option's clock plus an offset that only moves forward (`POST /testing/clock`). */
function offsetClock(base: () => number): TestingClock {
  let offsetMs = 0;
  return {
    now: () => base() + offsetMs,
    advance: (ms: number) => {
      offsetMs += ms;
    },
  };
}

export async function createCompany(options: CompanyOptions = {}): Promise<Company> {
  const host = options.host ?? '127.0.0.1';
  const secret = options.secret === undefined ? randomBytes(32) : typeof options.secret === 'string' ? Buffer.from(options.secret, 'utf8') : options.secret;
  const clock = offsetClock(options.now ?? Date.now);
  const now = clock.now;
  const faults = createFaults();
  const performed = new Map<string, number>();
  const catalog = seedCatalog();
  const operations = new Operations({
    secret,
    now,
    approvalTtlMs: options.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS,
    revisionWindowMs: options.revisionWindowMs ?? DEFAULT_REVISION_WINDOW_MS,
    faults,
    performed,
  });
  let url = '';
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const context: CompanyContext = {
    catalog,
    operations,
    now,
    faults,
    tokens: new Map(Object.entries(options.tokens ?? DEFAULT_TOKENS)),
    baseUrl: () => url,
    log,
    passkeys: options.passkeys === undefined ? undefined : new CompanyPasskeys(options.passkeys),
  };
  const conversations = new Conversations(context);

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const parsed = new URL(req.url ?? '/', 'http://company.invalid');
    if (parsed.pathname === '/.well-known/poppy.json' && (req.method === 'GET' || req.method === 'HEAD')) {
      return sendJson(context, res, 200, poppyJson(context, options.domain ?? host));
    }
    if (parsed.pathname === '/mcp') return handleMcp(context, req, res);
    if (options.testing === true && (await handleTesting(context, clock, req, res, parsed.pathname))) return;
    if (await conversations.handle(req, res, parsed)) return;
    if (await handleApi(context, req, res, parsed.pathname)) return;
    return sendJson(context, res, 404, { error: 'not_found', error_description: `${req.method ?? 'GET'} ${parsed.pathname} is not here` });
  }

  const server = createServer((req, res) => {
    route(req, res).catch((cause: unknown) => {
      log(`countersign-company: ${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}`);
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: 'server_error' }));
      } else {
        res.destroy();
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;

  return {
    url,
    faults,
    state: { performed, catalog },
    close: () =>
      new Promise<void>((resolve) => {
        operations.close();
        conversations.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
