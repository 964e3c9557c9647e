import { spawn } from 'node:child_process';
import * as z from 'zod';
import { describeZodError } from '../protocol/describe-zod-error';

/**
 * What Codex itself says about its hooks: `codex app-server` speaks JSON-RPC, one JSON object a
 * line, on its stdio; `hooks/list` returns each configured hook with its `key`, the hash Codex
 * computes over it (`currentHash`) and whether that hash is recorded as trusted
 * (`trustStatus`). Codex runs only trusted hooks and silently skips the others, so install
 * records the hash Codex reports, and doctor asks Codex, not our own reading of the file.
 */

const hookSchema = z.looseObject({
  key: z.string().min(1).max(4096),
  command: z.string().max(16_384).nullable().optional(),
  eventName: z.string().max(64),
  currentHash: z.string().min(1).max(256),
  trustStatus: z.string().max(64),
  enabled: z.boolean().optional(),
});
export type CodexHook = z.output<typeof hookSchema>;

const listResultSchema = z.looseObject({
  data: z.array(z.looseObject({ hooks: z.array(hookSchema).max(1000) })).max(100),
});

/** How long codex app-server may take to list its hooks. */
const LIST_TIMEOUT_MS = 20_000;

export async function codexHooks(options: { codex: string | undefined; env: Readonly<Record<string, string | undefined>>; cwd: string }): Promise<{ hooks: CodexHook[] } | { error: string }> {
  const executable = options.codex ?? 'codex';
  return new Promise((resolve) => {
    let settled = false;
    let buffer = '';
    const child = spawn(executable, ['app-server'], { env: options.env, stdio: ['pipe', 'pipe', 'ignore'] });
    const finish = (result: { hooks: CodexHook[] } | { error: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ error: `${executable} app-server did not list its hooks within ${LIST_TIMEOUT_MS / 1000} s` }), LIST_TIMEOUT_MS);
    child.on('error', (error) => finish({ error: `${executable} could not be run (${error.message})` }));
    child.on('exit', (code) => finish({ error: `${executable} app-server exited (${String(code)}) before it listed its hooks` }));
    child.stdin.on('error', () => undefined);
    const send = (message: Record<string, unknown>) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        let message: { id?: unknown; result?: unknown; error?: { message?: unknown } };
        try {
          message = JSON.parse(line) as typeof message;
        } catch {
          continue;
        }
        if (message.id === 1) {
          send({ method: 'initialized', params: {} });
          send({ id: 2, method: 'hooks/list', params: { cwds: [options.cwd] } });
        } else if (message.id === 2) {
          if (message.error !== undefined) return finish({ error: `hooks/list failed: ${String(message.error.message).slice(0, 200)}` });
          const parsed = listResultSchema.safeParse(message.result, { reportInput: true });
          if (!parsed.success) return finish({ error: describeZodError(parsed.error, 'hooks/list') });
          return finish({ hooks: parsed.data.data.flatMap((d) => d.hooks) });
        }
      }
    });
    send({ id: 1, method: 'initialize', params: { clientInfo: { name: 'countersign-hook', version: '1' } } });
  });
}
