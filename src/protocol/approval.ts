import * as z from 'zod';
import { CountersignError } from './errors';
import { idSchema } from './id';
import { expected, isObject, jsonTypeName } from './issues';
import { isWellFormedText } from './json';
import { parseWith } from './parse-with';
import { OPERATIONS_EXTENSION } from './version';

/**
 * Section 6, "Sending the approval": "An approval names the `operation_id` and the `revision`."
 * The same two members travel in all three interfaces: the Poppy-Approval header
 * (approval-header.ts), MCP `_meta`, and a conversation message. Later versions may add members
 * ("Companies MUST ignore members of Poppy-Approval they don't recognize"), so parsing drops
 * unknown members instead of failing on them.
 */
export const approvalSchema = z.object(
  {
    operation_id: idSchema,
    revision: idSchema,
  },
  { error: expected('an approval object') },
);

export type Approval = { operation_id: string; revision: string };

/** Parse an approval at `root`; throws ERR_APPROVAL_INVALID naming the field. */
function parseApprovalAt(value: unknown, root: string): Approval {
  const { operation_id, revision } = parseWith(approvalSchema, value, 'ERR_APPROVAL_INVALID', root);
  return { operation_id, revision };
}

/** Parse an approval object (section 6). Unknown members are dropped. Throws ERR_APPROVAL_INVALID. */
export function parseApproval(value: unknown): Approval {
  return parseApprovalAt(value, 'approval');
}

/** The `_meta` key of an approval in an MCP tool call (section 6, "MCP"). */
export const APPROVAL_META_KEY = 'personalagentprotocol.org/approval';

export type ApprovalMeta = { [APPROVAL_META_KEY]: Approval };

/**
 * The `_meta` object of the tool call that sends an approval (section 6, "MCP"). Merge it into
 * any `_meta` the call already has. Throws ERR_APPROVAL_INVALID for an invalid approval.
 */
export function approvalMeta(approval: Approval): ApprovalMeta {
  return { [APPROVAL_META_KEY]: parseApprovalAt(approval, 'approval') };
}

/**
 * The approval in an MCP tool call's `_meta` (section 6, "MCP"), for the Company side; undefined
 * when the call carries none (then it is a request without an approval). `meta` is
 * `params._meta`, which may be absent. Other `_meta` members are ignored.
 * Throws ERR_APPROVAL_INVALID when `_meta` isn't an object or the approval is invalid.
 */
export function approvalFromMeta(meta: unknown): Approval | undefined {
  if (meta === undefined) return undefined;
  if (!isObject(meta)) throw new CountersignError('ERR_APPROVAL_INVALID', `_meta: expected an object (MCP _meta), got ${jsonTypeName(meta)}`);
  let value: unknown;
  try {
    value = meta[APPROVAL_META_KEY];
  } catch (cause) {
    throw new CountersignError('ERR_APPROVAL_INVALID', '_meta: expected JSON data, got a value that cannot be read', { cause });
  }
  if (value === undefined) return undefined;
  return parseApprovalAt(value, `_meta["${APPROVAL_META_KEY}"]`);
}

/** A conversation message from the Personal Agent (section 6, "Conversations"), as the seed shows it. */
export type ApprovalMessage = {
  id: string;
  author: { type: 'agent' };
  text: string;
  extensions: { operations: { approval: Approval } };
};

const approvalMessageInputSchema = z.object(
  {
    // A message ID follows the core 8.2 ID rule, like operation_id (docs/core-assumptions.md,
    // "IDs").
    id: idSchema,
    text: z
      .string({ error: expected('a string') })
      .refine(isWellFormedText, { error: 'expected well-formed Unicode text, got an unpaired surrogate' }),
    // Checked on its own below, so that a bad approval gets ERR_APPROVAL_INVALID.
    approval: z.unknown().optional(),
  },
  { error: expected('an object with id, text and approval') },
);

/**
 * The message that sends an approval in a conversation (section 6, "Conversations"): the
 * approval in `extensions.operations.approval`, authored by the agent. The `text` is for people
 * and "doesn't approve anything, whatever it says"; only the approval does.
 * Throws ERR_MESSAGE_INVALID for a bad `id` or `text`, ERR_APPROVAL_INVALID for a bad approval.
 */
export function approvalMessage(input: { id: string; text: string; approval: Approval }): ApprovalMessage {
  const parsed = parseWith(approvalMessageInputSchema, input, 'ERR_MESSAGE_INVALID', 'message');
  const approval = parseApprovalAt(parsed.approval, 'approval');
  const { id, text } = parsed;
  return { id, author: { type: 'agent' }, text, extensions: { [OPERATIONS_EXTENSION]: { approval } } };
}

/**
 * The approval in a conversation message (section 6, "Conversations"), for the Company side;
 * undefined when the message carries none. Only `extensions.operations.approval` counts, never
 * the text. Throws ERR_MESSAGE_INVALID when the message or its extensions aren't objects,
 * ERR_APPROVAL_INVALID when the approval is invalid.
 */
export function approvalFromMessage(message: unknown): Approval | undefined {
  if (!isObject(message)) throw new CountersignError('ERR_MESSAGE_INVALID', `message: expected an object, got ${jsonTypeName(message)}`);
  let approval: unknown;
  try {
    const extensions = message.extensions;
    if (extensions === undefined) return undefined;
    if (!isObject(extensions)) {
      throw new CountersignError('ERR_MESSAGE_INVALID', `message.extensions: expected an object (spec 8.4), got ${jsonTypeName(extensions)}`);
    }
    const operations = extensions[OPERATIONS_EXTENSION];
    if (operations === undefined) return undefined;
    if (!isObject(operations)) {
      throw new CountersignError('ERR_MESSAGE_INVALID', `message.extensions.operations: expected an object (section 2), got ${jsonTypeName(operations)}`);
    }
    approval = operations.approval;
  } catch (cause) {
    if (cause instanceof CountersignError) throw cause;
    throw new CountersignError('ERR_MESSAGE_INVALID', 'message: expected JSON data, got a value that cannot be read', { cause });
  }
  if (approval === undefined) return undefined;
  return parseApprovalAt(approval, 'message.extensions.operations.approval');
}
