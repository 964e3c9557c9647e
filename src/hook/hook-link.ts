import { Companion } from '../agent/companion';
import type { ToolCallApprovalResult } from '../agent/companion-types';
import { isCountersignError } from '../protocol/errors';
import type { ToolServer } from '../protocol/tool-call';
import type { ToolCallAsker } from './hook-decision';

/**
 * The hook's one connection to Countersign, for one tool call: the agent SDK's Companion over
 * the bridge, opened when the call asks and closed when the hook answers. A coding agent may
 * run several tool calls at once, each in its own hook process; one Companion holds the config
 * folder at a time (the SDK's lock), so the others wait their turn until their prompt would
 * have expired.
 */
export class HookLink implements ToolCallAsker {
  #companion: Companion | undefined;

  constructor(private readonly options: { agentName: string; configDir: string; env: Readonly<Record<string, string | undefined>> }) {}

  async ask(question: { server: ToolServer; tool: string; arguments: Record<string, unknown>; expiresAt: Date; signal: AbortSignal }): Promise<ToolCallApprovalResult | { status: 'unavailable'; reason: string }> {
    let companion;
    try {
      companion = await this.#connect(question.expiresAt.getTime(), question.signal);
    } catch (error) {
      return { status: 'unavailable', reason: reasonOf(error) };
    }
    if (!companion.paired) return { status: 'unavailable', reason: 'countersign-hook is not paired with Countersign (run: countersign-hook pair)' };
    return companion.requestToolCallApproval(question);
  }

  async markRunning(approved: { callId: string; revision: string }): Promise<boolean> {
    if (this.#companion === undefined) return false;
    return this.#companion.markToolCallSent(approved);
  }

  async #connect(deadline: number, signal: AbortSignal): Promise<Companion> {
    for (;;) {
      signal.throwIfAborted();
      try {
        this.#companion = await Companion.connect({ agentName: this.options.agentName, configDir: this.options.configDir, env: this.options.env });
        return this.#companion;
      } catch (error) {
        // Another hook process holds the folder while its prompt is open: wait for our turn.
        if (isCountersignError(error, 'ERR_NOT_ALLOWED') && Date.now() + LOCK_RETRY_MS < deadline) {
          await new Promise((r) => setTimeout(r, LOCK_RETRY_MS));
          continue;
        }
        throw error;
      }
    }
  }

  async close(): Promise<void> {
    await this.#companion?.close().catch(() => undefined);
    this.#companion = undefined;
  }
}

const LOCK_RETRY_MS = 200;

/** Why Countersign could not be asked, in words for the model and the person. */
export function reasonOf(error: unknown): string {
  if (isCountersignError(error, 'ERR_COMPANION_UNAVAILABLE')) return 'the Countersign bridge was not found: is the browser with the Countersign extension open?';
  if (isCountersignError(error, 'ERR_AGENT_NOT_PAIRED')) return 'countersign-hook is not paired with Countersign (run: countersign-hook pair)';
  if (isCountersignError(error, 'ERR_AGENT_REVOKED')) return 'countersign-hook was removed in Countersign: pair it again (countersign-hook pair)';
  return error instanceof Error ? error.message.slice(0, 300) : String(error).slice(0, 300);
}
