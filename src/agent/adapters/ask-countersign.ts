import { canonicalJson } from '../../protocol/canonical-json';
import { isCountersignError } from '../../protocol/errors';
import type { ToolServer } from '../../protocol/tool-call';
import { digestToolArguments } from '../../protocol/tool-call-revision';
import { jsonObjectSchema } from '../../protocol/text-schemas';
import type { RequestToolCallApprovalInput, ToolCallApprovalResult } from '../companion-types';
import { toolCallDenial } from './tool-call-denial';

/**
 * The one question every agent-SDK adapter asks (docs/agent-sdk.md, "Tool calls of agent SDKs"):
 * may this tool run with exactly this input? Countersign is asked with the input as it is, the
 * answer is checked once more against that input, and every way of not getting a signed approval
 * of it (no Countersign, no answer in time, an error, a decline, a changed input) is a denial
 * with its reason, in words the model and the person can read.
 */

/** What the adapters need of a Companion: the SDK's two tool-call calls (a Companion has them). */
export interface ToolCallApprover {
  requestToolCallApproval(input: RequestToolCallApprovalInput): Promise<ToolCallApprovalResult>;
  markToolCallSent(approved: { callId: string; revision: string }): Promise<boolean>;
}

export interface CountersignAdapterOptions {
  /** The agent as the person knows it: the card says its tool calls come from it. */
  agent: string;
  /** How long the prompt stays open. Default two minutes, as countersign-mcp's. */
  expiryMs?: number;
  /** How the card says the agent is reached. Default: this process's command line. */
  reachedBy?: ToolServer['reached_by'];
}

export type CountersignVerdict =
  | { allowed: true; /** The approved input, a copy no one else holds: run exactly this. */ input: Record<string, unknown>; callId: string }
  | { allowed: false; reason: string };

const DEFAULT_EXPIRY_MS = 120_000;
// The extension closes the prompt at its expiry and says so; this is for one that stopped answering.
const ANSWER_GRACE_MS = 5_000;

export async function askCountersign(
  companion: ToolCallApprover,
  options: CountersignAdapterOptions,
  call: {
    tool: string;
    input: unknown;
    signal?: AbortSignal | undefined;
    /** The input as it will run, read again once approved (the SDK's own copy). Default: `input` as it is then. */
    current?: () => unknown;
  },
): Promise<CountersignVerdict> {
  const parsed = jsonObjectSchema.safeParse(call.input);
  if (!parsed.success) return deny(`Countersign can only show a tool input that is a JSON object, so ${call.tool} is not run.`);
  // The input as it was when asked: what is shown, signed and, once approved, run.
  const asked = canonicalJson(parsed.data);
  const input = JSON.parse(asked) as Record<string, unknown>;
  const expiryMs = options.expiryMs ?? DEFAULT_EXPIRY_MS;
  const timeout = AbortSignal.timeout(expiryMs + ANSWER_GRACE_MS);
  const signal = call.signal === undefined ? timeout : AbortSignal.any([call.signal, timeout]);
  const server: ToolServer = { name: options.agent, reached_by: options.reachedBy ?? { transport: 'stdio', command: process.argv0, args: process.argv.slice(1, 3) } };
  let result: ToolCallApprovalResult;
  try {
    result = await companion.requestToolCallApproval({ server, tool: call.tool, arguments: JSON.parse(asked) as Record<string, unknown>, expiresAt: new Date(Date.now() + expiryMs), signal });
  } catch (error) {
    if (timeout.aborted) return deny(toolCallDenial('expired', call.tool));
    return deny(`Countersign could not be asked, so ${call.tool} is not run: ${messageOf(error)}`);
  }
  if (result.status !== 'approved') return deny(toolCallDenial(result.status, call.tool));
  // The Companion verified the signature over the call it sent; this checks once more that the
  // decision covers this tool and the input as asked, and that what will run did not change
  // while the person looked.
  const digest = await digestToolArguments(input);
  if (result.decision.tool !== call.tool || result.decision.arguments_sha256 !== digest || !sameJson(call.current === undefined ? call.input : call.current(), asked)) {
    return deny(`Countersign's approval does not cover this exact ${call.tool} call, so it is not run.`);
  }
  let running: boolean;
  try {
    running = await companion.markToolCallSent({ callId: result.callId, revision: result.revision });
  } catch (error) {
    return deny(`Countersign could not be told that ${call.tool} runs now, so it is not run: ${messageOf(error)}`);
  }
  if (!running) return deny(toolCallDenial('withdrawn', call.tool));
  return { allowed: true, input, callId: result.callId };
}

function sameJson(value: unknown, canonical: string): boolean {
  try {
    return canonicalJson(value) === canonical;
  } catch {
    return false;
  }
}

function deny(reason: string): CountersignVerdict {
  return { allowed: false, reason };
}

function messageOf(error: unknown): string {
  if (isCountersignError(error, 'ERR_COMPANION_UNAVAILABLE')) return 'the Countersign bridge was not found: is the browser with the Countersign extension open?';
  if (isCountersignError(error, 'ERR_AGENT_NOT_PAIRED')) return 'this agent is not paired with Countersign';
  return (error instanceof Error ? error.message : String(error)).slice(0, 500);
}
