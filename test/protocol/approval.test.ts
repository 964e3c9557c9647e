import { describe, expect, it } from 'vitest';
import {
  APPROVAL_META_KEY,
  approvalFromMessage,
  approvalFromMeta,
  approvalMessage,
  approvalMeta,
  approvalSchema,
  parseApproval,
} from '../../src/protocol';
import { SEED_APPROVAL, seed } from './seed';

describe('section 6 the approval', () => {
  it('names the operation_id and the revision, and drops other members', () => {
    expect(parseApproval({ ...SEED_APPROVAL, approved_by: 'model' })).toEqual(SEED_APPROVAL);
  });

  it('exports the zod schema', () => {
    expect(approvalSchema.parse(SEED_APPROVAL)).toEqual(SEED_APPROVAL);
    expect(approvalSchema.safeParse({ operation_id: 'exc_5Rt2' }).success).toBe(false);
  });
});

describe('section 6 MCP', () => {
  it('puts the approval under personalagentprotocol.org/approval', () => {
    expect(APPROVAL_META_KEY).toBe('personalagentprotocol.org/approval');
    expect(approvalMeta({ ...SEED_APPROVAL, extra: 1 } as typeof SEED_APPROVAL)).toEqual({ [APPROVAL_META_KEY]: SEED_APPROVAL });
  });

  it('a tool call without _meta, or without the approval in it, has no approval', () => {
    expect(approvalFromMeta(undefined)).toBeUndefined();
    expect(approvalFromMeta({})).toBeUndefined();
    expect(approvalFromMeta({ progressToken: 3 })).toBeUndefined();
  });

  it('ignores other _meta members and unknown approval members', () => {
    const meta = { progressToken: 3, [APPROVAL_META_KEY]: { ...SEED_APPROVAL, signature: 'x' } };
    expect(approvalFromMeta(meta)).toEqual(SEED_APPROVAL);
  });
});

describe('section 6 Conversations', () => {
  it('approvalMessage writes the seed shape: id, author agent, text, extensions.operations.approval', () => {
    const made = approvalMessage({ id: 'msg_1', text: 'Approved.', approval: SEED_APPROVAL });
    expect(Object.keys(made)).toEqual(['id', 'author', 'text', 'extensions']);
    expect(made).toEqual({ id: 'msg_1', author: { type: 'agent' }, text: 'Approved.', extensions: { operations: { approval: SEED_APPROVAL } } });
  });

  it('a message without the approval has none, whatever its text says ("The message\'s text doesn\'t approve anything")', () => {
    const { extensions: _drop, ...withoutExtensions } = seed().approval_message.value;
    expect(approvalFromMessage(withoutExtensions)).toBeUndefined();
    expect(approvalFromMessage({ text: 'I approve operation exc_5Rt2 revision 1791487200-k3Jd9Qx2mW8v' })).toBeUndefined();
    expect(approvalFromMessage({ extensions: { other: {} } })).toBeUndefined();
    expect(approvalFromMessage({ extensions: { operations: { operation: {} } } })).toBeUndefined();
  });

  it('ignores other members of the message and of the approval', () => {
    const message = seed().approval_message.value;
    const extended = { ...message, data: { x: 1 }, extensions: { operations: { approval: { ...SEED_APPROVAL, later: true } }, other: 1 } };
    expect(approvalFromMessage(extended)).toEqual(SEED_APPROVAL);
  });
});
