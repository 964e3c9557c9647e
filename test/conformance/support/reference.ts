import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { FetchLike } from '../../../src/agent/index';
import { createCompany, type Company, type CompanyOptions } from '../../../src/company/index';

/**
 * The reference Company for the Personal Agent half of the conformance suite: on a real port
 * (127.0.0.1), spoken to by the SDK's perform functions over real HTTP and MCP.
 */

export { ALEX, Clock, EXCHANGE_L, EXCHANGE_M, EXCHANGE_PATH, GUEST, SIGNED_IN, THIS_SESSION, TOOL_ARGS, referenceFindOutcome } from './shop';

const open: Company[] = [];
const dirs: string[] = [];
const errors: string[] = [];

afterEach(async () => {
  for (const company of open.splice(0)) await company.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  const reported = errors.splice(0);
  if (reported.length > 0) throw new Error(`the Company reported errors:\n${reported.join('\n')}`);
});

export async function startCompany(options: CompanyOptions = {}): Promise<Company> {
  const company = await createCompany({ log: (line) => errors.push(line), ...options });
  open.push(company);
  return company;
}

export async function tempDir(prefix = 'csp-'): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

export interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  status?: number;
  error?: string;
}

/**
 * A fetch that records every request the agent makes (and what came back), and lets a test
 * interfere: `before` may throw (the request never leaves: a network error), `after` may throw
 * (the request was handled, the answer is lost) or replace the response.
 */
export function recordingFetch(hooks: { before?: (seen: Seen) => void | Promise<void>; after?: (seen: Seen, response: Response) => Response | void | Promise<Response | void> } = {}): { fetch: FetchLike; seen: Seen[] } {
  const seen: Seen[] = [];
  const wrapped: FetchLike = async (input, init) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const entry: Seen = { method: init?.method ?? 'GET', url: String(input), headers, body: typeof init?.body === 'string' ? init.body : undefined };
    seen.push(entry);
    try {
      await hooks.before?.(entry);
      const response = await fetch(input, init);
      entry.status = response.status;
      const replaced = await hooks.after?.(entry, response);
      return replaced ?? response;
    } catch (error) {
      entry.error = error instanceof Error ? error.message : String(error);
      throw error;
    }
  };
  return { fetch: wrapped, seen };
}

/** The requests that carried an approval (section 6): the Poppy-Approval header, `_meta`, or an approval message. */
export function approvalRequests(seen: Seen[]): Seen[] {
  return seen.filter((s) => s.headers['poppy-approval'] !== undefined || (s.body ?? '').includes('personalagentprotocol.org/approval') || (s.body ?? '').includes('"approval"'));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
