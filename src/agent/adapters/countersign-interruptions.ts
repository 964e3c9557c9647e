import { askCountersign, type CountersignAdapterOptions, type ToolCallApprover } from './ask-countersign';

/**
 * The OpenAI Agents SDK's tool approvals, answered by the person in Countersign
 * (docs/agent-sdk.md, "OpenAI Agents SDK"): a `tool({ needsApproval: true })` call stops the run
 * with an interruption; this asks Countersign about each one with the call's exact arguments,
 * approves or rejects it on the run's state (this call only, never `alwaysApprove`), and returns
 * the state to run again. Structural types only: the package does not depend on the SDK.
 */

/** An interruption of a run (the members used here). */
export interface ToolApprovalInterruption {
  type: string;
  name?: string | undefined;
  /** The call's arguments as JSON text. */
  arguments?: string | undefined;
  rawItem?: { type: string; callId?: string | undefined } | undefined;
}

export interface InterruptedRun<State, Item extends ToolApprovalInterruption> {
  interruptions: Item[];
  state: State & {
    approve(item: Item): void;
    reject(item: Item, options?: { message?: string }): void;
    /** Fresh copies of the interruptions as the state holds them: what runs when the run resumes. */
    getInterruptions?(): Item[];
  };
}

export async function countersignInterruptions<State, Item extends ToolApprovalInterruption>(
  companion: ToolCallApprover,
  result: InterruptedRun<State, Item>,
  options: CountersignAdapterOptions & { signal?: AbortSignal },
): Promise<InterruptedRun<State, Item>['state']> {
  // One prompt at a time, in the run's order: the person decides each call on its own.
  for (const item of result.interruptions) {
    const tool = item.name ?? 'tool';
    const verdict =
      item.type === 'tool_approval_item' && item.arguments !== undefined
        ? await askCountersign(companion, options, { tool, input: parsed(item.arguments), signal: options.signal, current: () => parsed(asHeld(result.state, item).arguments) })
        : { allowed: false as const, reason: `Countersign cannot show this ${tool} call's arguments, so it is not run.` };
    if (verdict.allowed) result.state.approve(item);
    else result.state.reject(item, { message: verdict.reason });
  }
  return result.state;
}

/** `result.interruptions` are copies: the call as the run state holds it, read again from the state. */
function asHeld<Item extends ToolApprovalInterruption>(state: InterruptedRun<unknown, Item>['state'], item: Item): Item | { arguments: undefined } {
  if (state.getInterruptions === undefined) return item;
  const callId = item.rawItem?.callId;
  return state.getInterruptions().find((held) => held.rawItem?.callId === callId && held.name === item.name) ?? { arguments: undefined };
}

function parsed(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
