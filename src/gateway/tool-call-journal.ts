import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { preparePrivateDir } from '../agent/files';
import { digestToolArguments } from '../protocol/tool-call-revision';
import { CountersignError } from '../protocol/errors';

/**
 * The gateway's history of tool calls that asked: each question, the signed decision, and what
 * the tool returned, one JSON object per line in `<config dir>/gateway-calls.jsonl` (0600, in the
 * agent's private folder). Appended, never rewritten: a line written is a line kept. Arguments
 * are kept as their SHA-256 (the decision covers the same digest), not in full: they may hold
 * file contents or secrets. Results keep their text, cut to 2,000 characters.
 */

export const TOOL_CALL_JOURNAL_FILE = 'gateway-calls.jsonl';
const MAX_RESULT_TEXT = 2000;

export interface ToolCallEntry {
  upstream: string;
  tool: string;
  arguments: Record<string, unknown>;
  callId: string | undefined;
  /** `unknown`: the call was sent and the client left before it answered; a later line says what it did. */
  status: 'approved' | 'declined' | 'expired' | 'withdrawn' | 'cancelled' | 'unavailable' | 'performed' | 'failed' | 'unknown';
  jws?: string;
  result?: CallToolResult;
  detail?: string;
}

export interface ToolCallJournal {
  append(entry: ToolCallEntry): Promise<void>;
}

export class FileToolCallJournal implements ToolCallJournal {
  #ready: Promise<void> | undefined;

  constructor(
    private readonly dir: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  get file(): string {
    return path.join(this.dir, TOOL_CALL_JOURNAL_FILE);
  }

  async append(entry: ToolCallEntry): Promise<void> {
    this.#ready ??= preparePrivateDir(this.dir, { platform: process.platform, uid: process.getuid?.() });
    await this.#ready;
    const line = {
      at: this.now().toISOString(),
      upstream: entry.upstream,
      tool: entry.tool,
      arguments_sha256: await digestToolArguments(entry.arguments),
      ...(entry.callId === undefined ? {} : { call_id: entry.callId }),
      status: entry.status,
      ...(entry.jws === undefined ? {} : { jws: entry.jws }),
      ...(entry.detail === undefined ? {} : { detail: entry.detail.slice(0, MAX_RESULT_TEXT) }),
      ...(entry.result === undefined ? {} : { result: { is_error: entry.result.isError === true, text: resultText(entry.result) } }),
    };
    try {
      await fsp.appendFile(this.file, `${JSON.stringify(line)}\n`, { mode: 0o600, flag: 'a' });
    } catch (error) {
      throw new CountersignError('ERR_STORAGE_FAILED', `${this.file}: could not append to the gateway's journal`, { cause: error });
    }
  }
}

function resultText(result: CallToolResult): string {
  const text = (result.content ?? [])
    .map((c) => (c.type === 'text' ? c.text : `[${c.type}]`))
    .join('\n');
  return text.length > MAX_RESULT_TEXT ? `${text.slice(0, MAX_RESULT_TEXT)}…` : text;
}
