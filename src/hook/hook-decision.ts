import os from 'node:os';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { canonicalJson } from '../protocol/canonical-json';
import { isCountersignError } from '../protocol/errors';
import { MAX_TOOL_ARGUMENTS_LENGTH, type ToolServer } from '../protocol/tool-call';
import { digestToolArguments } from '../protocol/tool-call-revision';
import type { ToolCallApprovalResult } from '../agent/companion-types';
import { toolCallDenial } from '../agent/adapters/tool-call-denial';
import { prepareCall, stillTheSame, type PreparedCall } from './card-arguments';
import type { HookDecision } from './hook-answer';
import { parseHookInput, type HookAgent, type HookCall } from './hook-input';
import { hookPolicy, parseHookPolicy, POLICY_FILE, type HookPolicy } from './hook-policy';
import { AGENT_NAMES, toolKind } from './tool-kinds';

/**
 * One hook invocation, from the CLI's input to the decision (docs/coding-agents.md, "How a call
 * is decided"). Fails closed at every step: input we cannot read, a policy file we cannot read,
 * a call too large to show, no Countersign, no answer in time, an answer that does not bind
 * this exact call, or a file that changed after it was shown: each is a deny with its reason.
 * Only a policy allow, or a signed approval of exactly this input with every file as shown,
 * is an allow.
 */

/** How the hook asks Countersign (hook-link.ts; unit tests pass their own). */
export interface ToolCallAsker {
  ask(question: { server: ToolServer; tool: string; arguments: Record<string, unknown>; expiresAt: Date; signal: AbortSignal }): Promise<ToolCallApprovalResult | { status: 'unavailable'; reason: string }>;
  /** Tell Countersign the approved call runs now; false when the person withdrew it first. */
  markRunning(approved: { callId: string; revision: string }): Promise<boolean>;
}

export interface DecideInput {
  agent: HookAgent;
  /** Standard input as the CLI wrote it. */
  input: string;
  configDir: string;
  asker: ToolCallAsker;
  /** How long the prompt stays open. */
  expiryMs: number;
  home?: string | undefined;
  signal?: AbortSignal;
}

export async function decideHookCall(options: DecideInput): Promise<HookDecision> {
  let call: HookCall;
  try {
    call = parseHookInput(options.agent, options.input);
  } catch (error) {
    return deny(`Countersign could not read this tool call, so it is not run: ${messageOf(error)}`);
  }
  let policy: HookPolicy;
  try {
    policy = await loadPolicy(options.configDir);
  } catch (error) {
    return deny(`Countersign's hook policy cannot be read, so nothing runs until it is fixed: ${messageOf(error)}`);
  }
  const kind = toolKind(call);
  let prepared: PreparedCall;
  try {
    prepared = await prepareCall(call, kind, { cwd: call.cwd, home: options.home ?? os.homedir() });
  } catch (error) {
    return deny(`Countersign could not show what ${call.tool} would do, so it is not run: ${messageOf(error)}`);
  }
  const verdict = hookPolicy(call, kind, policy, prepared.facts);
  if (verdict.policy === 'deny') return deny(`${verdict.reason}. Do not retry it.`);
  if (verdict.policy === 'allow') return { decision: 'allow', reason: verdict.reason };
  if (canonicalJson(prepared.arguments).length > MAX_TOOL_ARGUMENTS_LENGTH) {
    return deny(`this ${call.tool} call is too large for Countersign to show in full (over ${MAX_TOOL_ARGUMENTS_LENGTH / 1024} KiB), so it is not run: split it into smaller calls`);
  }
  return askFor(call, prepared, options);
}

async function askFor(call: HookCall, prepared: PreparedCall, options: DecideInput): Promise<HookDecision> {
  const server: ToolServer = { name: AGENT_NAMES[call.agent], reached_by: { transport: 'stdio', command: 'countersign-hook', args: ['--agent', call.agent, '--cwd', call.cwd] } };
  const signal = options.signal ?? new AbortController().signal;
  let result;
  try {
    result = await options.asker.ask({ server, tool: call.tool, arguments: prepared.arguments, expiresAt: new Date(Date.now() + options.expiryMs), signal });
  } catch (error) {
    return deny(`Countersign could not be asked, so ${call.tool} is not run: ${messageOf(error)}`);
  }
  if (result.status !== 'approved') return deny(toolCallDenial(result.status, call.tool, 'reason' in result ? result.reason : undefined));
  // The SDK verified the signature over this exact call; the hook checks once more that what it answers for is what was signed.
  if (result.decision.tool !== call.tool || result.decision.arguments_sha256 !== (await digestToolArguments(prepared.arguments))) {
    return deny(`Countersign's approval does not cover this exact ${call.tool} call, so it is not run.`);
  }
  const changed = await stillTheSame(call, prepared).catch((error: unknown) => `the files could not be checked again (${messageOf(error)})`);
  if (changed !== undefined) return deny(`Not run: ${changed}. Ask again so that Countersign shows the change as it is now.`);
  let running;
  try {
    running = await options.asker.markRunning({ callId: result.callId, revision: result.revision });
  } catch (error) {
    return deny(`Countersign could not be told that ${call.tool} runs now, so it is not run: ${messageOf(error)}`);
  }
  if (!running) return deny(toolCallDenial('withdrawn', call.tool));
  return { decision: 'allow', reason: `Approved in Countersign (${result.callId}).` };
}

/** The policy file of the hook's config folder; none is the defaults. */
export async function loadPolicy(configDir: string): Promise<HookPolicy> {
  const file = path.join(configDir, POLICY_FILE);
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return {};
    throw error;
  }
  return parseHookPolicy(text, file);
}

function deny(reason: string): HookDecision {
  return { decision: 'deny', reason };
}

function messageOf(error: unknown): string {
  if (isCountersignError(error)) return error.message.slice(0, 500);
  return error instanceof Error ? error.message.slice(0, 500) : String(error).slice(0, 500);
}
