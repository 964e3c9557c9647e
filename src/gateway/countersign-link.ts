import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Companion, CountersignError, defaultConfigDir, isCountersignError, performTool, socketFolders, type PerformResult } from '../agent/index';
import { DEFAULT_AGENT_NAME } from './gateway-args';
import type { OperationsCaller } from './gateway-server';
import { unavailableText } from './gateway-server';
import type { ApprovedCall, ToolCallAnswer, ToolCallApprover, ToolCallOutcome, ToolCallQuestion } from './tool-call-approver';
import type { Upstream } from './upstream-connection';
import { isStdioUpstream } from './upstream-spec';

/**
 * The gateway's one link to Countersign: the agent SDK's Companion, connected when first needed
 * and again after the extension or the bridge went away. Through it the gateway asks about tool
 * calls (ToolCallApprover) and runs an operations v2 Company's tools (OperationsCaller: the SDK's
 * perform loop, spec sections 5-7). Never a fallback: when Countersign cannot be reached, nothing
 * runs (docs/mcp-gateway.md, "Fail closed").
 */
/**
 * The folder of the gateway's keys and journals: the one given, else the agent SDK's default;
 * for an agent name other than the default, a folder of its own inside it. Countersign shows the
 * name a key was paired with, so each name is its own key, paired once under that name
 * (`countersign-mcp pair --agent-name <name>`): a name given only to `run` would otherwise never
 * reach the window.
 */
export function gatewayConfigDir(configDir: string | undefined, env: Readonly<Record<string, string | undefined>>, agentName: string = DEFAULT_AGENT_NAME): string {
  const base = configDir ?? defaultConfigDir({ platform: process.platform, env, homedir: os.homedir() });
  return agentName === DEFAULT_AGENT_NAME ? base : path.join(base, 'agents', agentFolderName(agentName));
}

/** A folder name for an agent name: readable, and distinct for distinct names (the hash of the exact name). */
export function agentFolderName(agentName: string): string {
  const readable = agentName.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 32);
  const hash = createHash('sha256').update(agentName, 'utf8').digest('hex').slice(0, 12);
  return `${readable === '' ? 'agent' : readable}-${hash}`;
}

/**
 * What the MCP client gave countersign-mcp, for the error that says the bridge was not found:
 * where it looked, and which of the variables that decide it the client passed (names only:
 * values may be secrets). Clients that start servers with the MCP SDK's default environment
 * pass only HOME, PATH, SHELL and TERM (docs/mcp-gateway.md, "When Countersign is not found").
 */
export function environmentFacts(env: Readonly<Record<string, string | undefined>>): string {
  const folders = socketFolders({ platform: process.platform, env, uid: process.getuid?.() ?? 0, username: os.userInfo().username });
  const given = Object.keys(env).filter((k) => env[k] !== undefined).sort();
  const runtime = env['XDG_RUNTIME_DIR'];
  return (
    `looked for the bridge in ${folders.join(', ')}; ` +
    `the MCP client started countersign-mcp with ${runtime === undefined ? 'no XDG_RUNTIME_DIR' : `XDG_RUNTIME_DIR=${runtime}`} and the variables ${given.length === 0 ? '(none)' : given.slice(0, 40).join(', ')}. ` +
    'If the browser\'s bridge listens elsewhere ("countersign-bridge doctor" prints where), add "env": {"XDG_RUNTIME_DIR": "<its folder>"} to this server in the client\'s config'
  );
}

export class CountersignLink implements ToolCallApprover, OperationsCaller {
  #companion: Promise<Companion> | undefined;
  /** Questions and calls using the Companion now; at zero it is closed after IDLE_MS. */
  #users = 0;
  #idle: ReturnType<typeof setTimeout> | undefined;
  /** Approved tool calls, holding the Companion until they ran (or were withdrawn). */
  readonly #held = new Map<string, () => void>();

  constructor(
    private readonly options: { agentName: string; configDir: string | undefined; env?: Readonly<Record<string, string | undefined>>; idleMs?: number },
  ) {}

  get configDir(): string {
    return gatewayConfigDir(this.options.configDir, this.options.env ?? process.env, this.options.agentName);
  }

  #reasonOf(error: unknown): string {
    const reason = reasonOf(error, this.options.agentName);
    return isCountersignError(error, 'ERR_COMPANION_UNAVAILABLE') ? `${reason}; ${environmentFacts(this.options.env ?? process.env)}` : reason;
  }

  /**
   * The Companion, for one use: connected on demand, and closed again once nobody uses it for a
   * moment. One Companion may hold a config folder at a time (the SDK's lock, which keeps its
   * journals whole), and several MCP clients may each run a gateway on the same folder: holding
   * it only while asking lets them take turns. While another process holds it, we wait for it
   * until `deadline`.
   */
  async #use(deadline: number): Promise<{ companion: Companion; release: () => void }> {
    this.#users += 1;
    clearTimeout(this.#idle);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.#users -= 1;
      if (this.#users === 0) {
        this.#idle = setTimeout(() => void this.#closeCompanion(), this.options.idleMs ?? IDLE_MS);
        this.#idle.unref?.();
      }
    };
    try {
      return { companion: await this.#connected(deadline), release };
    } catch (error) {
      release();
      throw error;
    }
  }

  async #connected(deadline: number): Promise<Companion> {
    for (;;) {
      const current = this.#companion;
      if (current !== undefined) {
        const companion = await current.catch(() => undefined);
        if (companion?.connected) return companion;
        if (this.#companion === current) this.#companion = undefined;
        await companion?.close().catch(() => undefined);
        continue;
      }
      const next = Companion.connect({ agentName: this.options.agentName, configDir: this.configDir, ...(this.options.env ? { env: this.options.env } : {}) });
      this.#companion = next;
      try {
        return await next;
      } catch (error) {
        if (this.#companion === next) this.#companion = undefined;
        // Another gateway on this folder is asking right now: wait for our turn.
        if (isCountersignError(error, 'ERR_NOT_ALLOWED') && Date.now() + LOCK_RETRY_MS < deadline) {
          await new Promise((r) => setTimeout(r, LOCK_RETRY_MS));
          continue;
        }
        throw error;
      }
    }
  }

  async #closeCompanion(): Promise<void> {
    if (this.#users > 0) return;
    const current = this.#companion;
    this.#companion = undefined;
    const companion = await current?.catch(() => undefined);
    await companion?.close().catch(() => undefined);
  }

  async ask(question: ToolCallQuestion): Promise<ToolCallAnswer> {
    let use;
    try {
      use = await this.#use(question.expiresAt.getTime());
    } catch (error) {
      return { status: 'unavailable', reason: this.#reasonOf(error) };
    }
    const { companion, release } = use;
    if (!companion.paired) {
      release();
      return { status: 'unavailable', reason: notPaired(this.options.agentName) };
    }
    try {
      const result = await companion.requestToolCallApproval({
        server: question.server,
        tool: question.tool,
        ...(question.description === undefined ? {} : { description: question.description }),
        ...(question.annotations === undefined ? {} : { annotations: question.annotations }),
        arguments: question.arguments,
        expiresAt: question.expiresAt,
        signal: question.signal,
      });
      if (result.status === 'approved') {
        // Held until it ran: marking it sent and reporting its outcome need this same connection.
        this.#held.set(result.callId, release);
        return { status: 'approved', callId: result.callId, revision: result.revision, jws: result.jws };
      }
      release();
      if (result.status === 'unavailable') return { status: 'unavailable', reason: 'the Countersign extension went away before you answered' };
      // Superseded cannot happen to a tool call (nothing replaces it); read as withdrawn all the same.
      return { status: result.status === 'superseded' ? 'withdrawn' : result.status, callId: result.callId };
    } catch (error) {
      release();
      if (question.signal.aborted) return { status: 'cancelled' };
      return { status: 'unavailable', reason: this.#reasonOf(error) };
    }
  }

  async markRunning(approved: ApprovedCall): Promise<boolean> {
    const companion = await this.#companion;
    const running = companion !== undefined && (await companion.markToolCallSent(approved));
    if (!running) this.#release(approved.callId);
    return running;
  }

  async reportRan(approved: ApprovedCall, outcome: ToolCallOutcome, detail?: string): Promise<void> {
    try {
      const companion = await this.#companion;
      await companion?.reportToolCallOutcome({ ...approved, outcome, ...(detail === undefined ? {} : { detail }) });
    } finally {
      // `unknown` is followed by the real outcome, over this same connection.
      if (outcome !== 'unknown') this.#release(approved.callId);
    }
  }

  #release(callId: string): void {
    this.#held.get(callId)?.();
    this.#held.delete(callId);
  }

  async call(upstream: Upstream, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    // Only an HTTP upstream can be a Company (its poppy.json is fetched from the URL's origin).
    if (upstream.operations === undefined || isStdioUpstream(upstream.spec)) throw new CountersignError('ERR_ARGUMENT_INVALID', `upstream "${upstream.spec.name}": expected an operations v2 Company over HTTP`);
    let use;
    try {
      use = await this.#use(Date.now() + OPERATION_LOCK_WAIT_MS);
    } catch (error) {
      return notDone(unavailableText(this.#reasonOf(error)));
    }
    const spec = upstream.spec;
    try {
      const result = await performTool({
        companion: use.companion,
        company: { origin: upstream.operations.company.origin, name: upstream.operations.company.name },
        poppyJson: upstream.operations.poppyJson,
        session: spec.session ?? (spec.headers?.['Authorization'] !== undefined ? { kind: 'signed_in' } : { kind: 'this_session' }),
        headers: spec.headers ?? {},
        serverUrl: spec.url,
        tool,
        arguments: args,
        journalDir: this.configDir,
        signal,
      });
      return toolResult(result, upstream.operations.company.name);
    } finally {
      use.release();
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.#idle);
    this.#users = 0;
    await this.#closeCompanion();
  }
}

/** How long the Companion stays connected after its last use. */
const IDLE_MS = 2_000;
/** How often to try again for a config folder another gateway holds. */
const LOCK_RETRY_MS = 250;
/** How long an operations v2 call waits for the config folder before it fails closed. */
const OPERATION_LOCK_WAIT_MS = 120_000;

/** The command that pairs this agent name (the name's own key, gatewayConfigDir). */
function notPaired(agentName: string): string {
  const command = agentName === DEFAULT_AGENT_NAME ? 'countersign-mcp pair' : `countersign-mcp pair --agent-name ${JSON.stringify(agentName)}`;
  return `this gateway ("${agentName}") is not paired with Countersign: run ${command} once`;
}

function reasonOf(error: unknown, agentName: string): string {
  if (isCountersignError(error, 'ERR_COMPANION_UNAVAILABLE')) return 'the Countersign bridge is not running: is the browser with Countersign open?';
  if (isCountersignError(error, 'ERR_AGENT_NOT_PAIRED')) return notPaired(agentName);
  if (isCountersignError(error, 'ERR_AGENT_REVOKED')) return 'this gateway was removed in Countersign: pair it again';
  // The call itself has to change, not the setup: say which limit, with the code to look up.
  if (isCountersignError(error, 'ERR_TOOL_CALL_TOO_LARGE')) return `ERR_TOOL_CALL_TOO_LARGE, too large for the approval window to show in full: ${error.message.slice(0, 300)}`;
  return error instanceof Error ? error.message.slice(0, 300) : String(error).slice(0, 300);
}

function notDone(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** What the client sees of the perform loop: the Company's own answer, or plainly what did not happen. */
export function toolResult(result: PerformResult<CallToolResult>, company: string): CallToolResult {
  switch (result.status) {
    case 'answered':
      return result.response;
    case 'performed':
      return result.response ?? { content: [{ type: 'text', text: `${company} performed it (confirmed after the fact).` }] };
    case 'not_performed':
      return result.response ?? notDone(`${company} refused the approved request: ${result.detail}. Nothing was done.`);
    case 'new_revision':
      return notDone(`${company} changed the terms after you approved them, so nothing was done. Call the tool again to see the new terms in Countersign.`);
    case 'unknown':
      return notDone(`It is not known whether ${company} did it (${result.detail}). The approval is kept: call the same tool with the same arguments again to find out; it will not be done twice.`);
    case 'declined':
      return notDone(`You declined this in Countersign. Nothing was done: ${company} was not sent an approval.`);
    case 'expired':
      return notDone(`Nobody approved this in Countersign before it expired. Nothing was done.`);
    case 'superseded':
      return notDone(`${company} replaced this request with new terms before you approved it. Nothing was done.`);
    case 'withdrawn':
      return notDone(`The approval was withdrawn in Countersign. Nothing was done.`);
    case 'unavailable':
      return notDone(unavailableText('Countersign could not be reached'));
  }
}
