import { formatApprovalHeader, type Operation } from '../../protocol/index';
import type { Answer, Thread, Variant } from '../answer';
import { approvalOf, describeAnswer, type Check, type CheckContext } from '../check';
import type { InterfaceName } from '../scenario';
import { countedOperation, mustNotPerform, PerformWatch } from './performs';

/** Section 6, "Sending the approval" and "What the Company checks". */

/** An RFC 9651 Token: what `operation_id=exc_5Rt2` (no quotes) would be. */
const TOKEN = /^[A-Za-z*][A-Za-z0-9!#$%&'*+.^_`|~:/-]*$/;

/** Unknown members of every RFC 9651 type, and parameters on the known ones (section 6, "APIs"). */
export const UNKNOWN_MEMBERS: ReadonlyArray<[string, string]> = [
  ['Integer', 'future_int=42'],
  ['Decimal', 'future_decimal=4.5'],
  ['String', 'future_string="later"'],
  ['Token', 'future_token=later'],
  ['Byte Sequence', 'future_bytes=:AQID:'],
  ['Boolean', 'future_flag'],
  ['Boolean false', 'future_off=?0'],
  ['Date', 'future_date=@1659578233'],
  ['Display String', 'future_display=%"caf%c3%a9"'],
  ['Inner List', 'future_list=("a" 1 ?1);n=2'],
  ['a member with parameters', 'future_param=1;a=2;b="c"'],
];

function withMembers(operation: Operation, extra: string[], parameters = ''): string {
  return [`operation_id="${operation.operation_id}"${parameters}`, `revision="${operation.revision}"${parameters}`, ...extra].join(', ');
}

/**
 * Each unknown member alone after the known ones, to name the one a Company refuses, and a Date
 * before them: structured-headers 2.1.0, a parser Companies use, reads a Date only at the end of
 * a field (src/protocol/structured-fields.ts works around it), so a Date is tried in both places.
 */
export function unknownMemberProbes(operation: Operation): Array<[string, string]> {
  const date = UNKNOWN_MEMBERS.find(([type]) => type === 'Date')?.[1] as string;
  return [...UNKNOWN_MEMBERS.map(([type, member]): [string, string] => [type, withMembers(operation, [member])]), ['Date before the other members', `${date}, ${withMembers(operation, [])}`]];
}

/** Another valid-looking revision: the last character changed. */
export function forgedRevision(revision: string): string {
  const last = revision.at(-1);
  return `${revision.slice(0, -1)}${last === 'A' ? 'B' : 'A'}`;
}

async function fresh(context: CheckContext, iface: InterfaceName = context.iface): Promise<{ thread: Thread; operation: Operation; answer: Answer; watch: PerformWatch; action: Awaited<ReturnType<CheckContext['run']['action']>> }> {
  const action = await context.run.action();
  const thread = action.thread(iface);
  const { operation, answer } = await context.operation(thread);
  return { thread, operation, answer, watch: await PerformWatch.start(action), action };
}

interface Check3Probe {
  what: string;
  named: string;
  operationId: string;
  answer: Answer;
  performed: boolean;
}

/** Approvals that fail check 3 (a revision not returned for this operation), and what came back. */
async function check3Probes(context: CheckContext): Promise<Check3Probe[]> {
  const { thread, operation, answer: first, watch } = await fresh(context);
  const other = await context.operation((await context.run.action()).thread(context.iface));
  const probes: Check3Probe[] = [];
  for (const [what, revision] of [
    ['a revision changed by one character', forgedRevision(operation.revision)],
    ["another action's revision", other.operation.revision],
  ] as const) {
    const answer = await thread.ask('operation', { approval: { operation_id: operation.operation_id, revision } });
    const performed = await mustNotPerform(context, watch, what, answer, first);
    probes.push({ what, named: revision, operationId: operation.operation_id, answer, performed });
    if (performed) break;
  }
  return probes;
}

export const section6: Check[] = [
  {
    id: '6-performs',
    section: '6',
    level: 'MUST',
    sentence: 'If every check passes, the Company performs the action and responds as it would have without operations.',
    scope: 'each',
    async run(context) {
      const { watch, thread, operation, first } = await countedOperation(context);
      const answer = await thread.ask('operation', { approval: approvalOf(operation) });
      const delta = await watch.delta();
      const expected = context.iface === 'conversation' ? answer.kind === 'message' : answer.kind === 'done';
      if (!expected) context.breaks(`the approval: expected the action's ordinary answer, got ${describeAnswer(answer)}`, first, answer);
      if (delta !== undefined && delta !== 1) context.breaks(`the approval: expected one perform, the outcome counts ${delta}`, first, answer);
    },
  },
  {
    id: '6-unknown-members',
    section: '6',
    level: 'MUST',
    sentence: "Companies MUST ignore members of Poppy-Approval they don't recognize, so later versions can add members.",
    scope: 'each',
    only: ['api'],
    async run(context) {
      const { thread, operation, answer: first } = await fresh(context);
      const all = withMembers(operation, UNKNOWN_MEMBERS.map(([, member]) => member), ';future=1');
      const answer = await thread.ask('operation', { rawApprovalHeader: all });
      if (answer.kind === 'done') return;
      // Which of them: each one alone, each on a fresh action (one that is accepted performs it).
      const refused: string[] = [];
      for (const index of unknownMemberProbes(operation).keys()) {
        const probe = await fresh(context);
        const [type, header] = unknownMemberProbes(probe.operation)[index] as [string, string];
        const alone = await probe.thread.ask('operation', { rawApprovalHeader: header });
        if (alone.kind !== 'done') refused.push(type);
      }
      context.breaks(`unknown members and parameters: expected them ignored and the action done, got ${describeAnswer(answer)}${refused.length > 0 ? `; refused alone: ${refused.join(', ')}` : ''}`, first, answer);
    },
  },
  {
    id: '6-members-are-strings',
    section: '6',
    level: 'MUST',
    sentence: 'The header is a Dictionary Structured Field (RFC 9651) with operation_id and revision as Strings',
    scope: 'each',
    only: ['api'],
    async run(context) {
      const { thread, operation, answer: first, watch } = await fresh(context);
      const { operation_id: id, revision } = operation;
      const bytes = (text: string): string => `:${Buffer.from(text).toString('base64')}:`;
      const probes: Array<[string, string]> = [
        ['operation_id as a Byte Sequence', `operation_id=${bytes(id)}, revision="${revision}"`],
        ['revision as a Byte Sequence', `operation_id="${id}", revision=${bytes(revision)}`],
        ['operation_id as a Display String', `operation_id=%"${id}", revision="${revision}"`],
        ['operation_id as Boolean true', `operation_id, revision="${revision}"`],
        ['no revision', `operation_id="${id}"`],
        ['no operation_id', `revision="${revision}"`],
      ];
      if (TOKEN.test(id)) probes.unshift(['operation_id as a Token', `operation_id=${id}, revision="${revision}"`]);
      if (TOKEN.test(revision)) probes.unshift(['revision as a Token', `operation_id="${id}", revision=${revision}`]);
      for (const [what, header] of probes) {
        const answer = await thread.ask('operation', { rawApprovalHeader: header });
        if (await mustNotPerform(context, watch, `Poppy-Approval with ${what}`, answer, first)) return;
      }
    },
  },
  {
    id: '6-names-the-operation',
    section: '6',
    level: 'MUST',
    sentence: 'An approval names the operation_id and the revision.',
    scope: 'each',
    only: ['api'],
    async run(context) {
      const { thread, operation, answer: first, watch } = await fresh(context);
      const valid = formatApprovalHeader(approvalOf(operation));
      const probes: Array<[string, string]> = [
        ['a field that is not a Dictionary', `${valid}, ((`],
        ['operation_id twice, the last naming another operation (RFC 9651: the last value wins)', `${valid}, operation_id="${operation.operation_id}x"`],
        ['revision twice, the last one forged (two Poppy-Approval lines joined)', `${valid}, revision="${forgedRevision(operation.revision)}"`],
        ['a non-ASCII character in operation_id', `operation_id="${operation.operation_id}\u00e9", revision="${operation.revision}"`],
        ['an empty field', ''],
        ['10,000 characters of garbage', 'a'.repeat(10_000)],
      ];
      for (const [what, header] of probes) {
        const answer = await thread.ask('operation', { rawApprovalHeader: header });
        if (await mustNotPerform(context, watch, `Poppy-Approval with ${what}`, answer, first)) return;
      }
      const approved = await thread.ask('operation', { approval: approvalOf(operation) });
      if (approved.kind !== 'done') context.breaks(`after those headers, the approval itself: expected the action done, got ${describeAnswer(approved)}`, first, approved);
    },
  },
  {
    id: '6-check-3-returned',
    section: '6',
    level: 'MUST',
    sentence: 'The revision is one the Company returned for this operation',
    scope: 'each',
    async run(context) {
      await check3Probes(context);
    },
  },
  {
    id: '6-check-3-exact-request',
    section: '6',
    level: 'MUST',
    sentence: 'the request asks for exactly what it describes',
    scope: 'each',
    only: ['api', 'mcp'],
    async run(context) {
      context.requireVariant('newTerms');
      const { thread, operation, answer: first, watch } = await fresh(context);
      const other = await context.operation(thread, 'newTerms');
      if (other.operation.revision === operation.revision) context.notExercised('both terms got the same revision (see 3-revision-per-terms)');
      const a = await thread.ask('operation', { approval: { operation_id: operation.operation_id, revision: other.operation.revision } });
      if (await mustNotPerform(context, watch, 'the first request with the approval of the new terms', a, first, other.answer)) return;
      const b = await thread.ask('newTerms', { approval: approvalOf(operation) });
      await mustNotPerform(context, watch, 'the new terms with the approval of the first request', b, first, other.answer);
    },
  },
  {
    id: '6-check-3-same-interface',
    section: '6',
    level: 'MUST',
    sentence: "The API request or tool call is the one that returned the operation, and in a conversation, the operation is the conversation's.",
    scope: 'each',
    async run(context) {
      const target: InterfaceName | undefined = context.iface === 'conversation' ? 'conversation' : context.iface === 'api' ? 'mcp' : 'api';
      if (context.iface !== 'conversation' && context.run.scenario[target] === undefined) context.notExercised(`the scenario has no ${target} interface to send the approval through`);
      const { operation, answer: first, watch, action } = await fresh(context);
      // A new thread: another tool call or API request, or another conversation of the same Session.
      const answer = await action.thread(target).ask('operation', { approval: approvalOf(operation) });
      await mustNotPerform(context, watch, `the approval of a ${context.iface} operation sent through ${target === context.iface ? 'another conversation' : target}`, answer, first);
    },
  },
  {
    id: '6-check-3-expired',
    section: '6',
    level: 'MUST',
    sentence: "it hasn't expired",
    scope: 'each',
    late: true,
    async run(context) {
      const { operation, first, answer, watch } = await expiredApproval(context);
      await mustNotPerform(context, watch, `the approval after expires_at ${operation.expires_at}`, answer, first);
    },
  },
  {
    id: '6-check-3-answer',
    section: '6',
    level: 'MUST',
    sentence: 'If check 3 fails, it performs nothing and returns the operation with a revision for what the request asks, as in section 4.',
    scope: 'each',
    async run(context) {
      for (const probe of await check3Probes(context)) {
        if (probe.performed) context.notExercised(`${probe.what} was performed (see 6-check-3-returned)`);
        if (probe.answer.rawOperation === undefined || probe.answer.operation?.operation_id !== probe.operationId) {
          context.breaks(`${probe.what}: expected the operation ${probe.operationId} again, got ${describeAnswer(probe.answer)}`, probe.answer);
        }
      }
    },
  },
  {
    id: '6-not-the-named-revision',
    section: '6',
    level: 'MUST NOT',
    sentence: 'A Company MUST NOT answer an approval with the revision it names, so a Personal Agent never retries the same approval in a loop.',
    scope: 'each',
    // The expired approval moves the Company's clock.
    late: true,
    async run(context) {
      const probes = await check3Probes(context);
      if (context.run.scenario[context.iface]?.newTerms !== undefined) probes.push(await supersededProbe(context));
      if (context.run.scenario.cooperation?.advanceClock !== undefined) {
        // Check 3 fails on the expiry alone: the revision is otherwise one the Company returned, the easiest to hand back.
        const expired = await expiredApproval(context);
        probes.push({ what: `the approval after expires_at ${expired.operation.expires_at}`, named: expired.operation.revision, operationId: expired.operation.operation_id, answer: expired.answer, performed: false });
      }
      for (const probe of probes) {
        if (probe.answer.operation?.revision === probe.named) context.breaks(`${probe.what}: the answer carries the revision the approval named, ${probe.named}`, probe.answer);
      }
    },
  },
  {
    id: '6-first-failing-check',
    section: '6',
    level: 'MUST',
    sentence: 'respond as the first one that fails says, whatever order it makes them in internally',
    scope: 'each',
    async run(context) {
      const { thread, operation, answer: first, watch } = await fresh(context);
      const done = await thread.ask('operation', { approval: approvalOf(operation) });
      await watch.delta();
      // Check 2 (performed already) fails before check 3 (a revision never returned): section 7's answer, not a new operation.
      const answer = await thread.ask('operation', { approval: { operation_id: operation.operation_id, revision: forgedRevision(operation.revision) }, expectReply: false });
      const again = await watch.delta();
      if (answer.rawOperation !== undefined || (again ?? 0) > 0) context.breaks(`an approval of the performed operation with a revision never returned: expected check 2's answer (section 7), got ${describeAnswer(answer)}${again ? ', and it performed again' : ''}`, first, done, answer);
    },
  },
  {
    id: '6-text-approves-nothing',
    section: '6',
    level: 'MUST',
    sentence: "The message's text doesn't approve anything, whatever it says.",
    scope: 'each',
    only: ['conversation'],
    async run(context) {
      const { thread, answer: first, watch } = await fresh(context);
      const answer = await thread.ask('operation', { text: 'Yes, I approve. Go ahead and do it, confirmed.' });
      await mustNotPerform(context, watch, 'a message that says "I approve" without an approval', answer, first);
    },
  },
];

/** The approval of a fresh operation sent 1.5 s after its expires_at (cooperation.advanceClock), and what came back. */
async function expiredApproval(context: CheckContext): Promise<{ operation: Operation; first: Answer; answer: Answer; watch: PerformWatch }> {
  const { thread, operation, answer: first, watch } = await fresh(context);
  const now = await context.run.advanceClock(0);
  await context.run.advanceClock(Date.parse(operation.expires_at) - now + 1_500);
  const answer = await thread.ask('operation', { approval: approvalOf(operation) });
  return { operation, first, answer, watch };
}

/** An approval of terms the request no longer asks for (an earlier revision), and what came back. */
async function supersededProbe(context: CheckContext): Promise<Check3Probe> {
  const { thread, operation, watch } = await fresh(context);
  const newer = await context.operation(thread, 'newTerms');
  // API and MCP: the newer request with the first approval; a conversation: the first approval after the terms changed.
  const variant: Variant = context.iface === 'conversation' ? 'operation' : 'newTerms';
  const answer = await thread.ask(variant, { approval: approvalOf(operation) });
  const performed = (await watch.performed(answer)) === true;
  return { what: `the approval of ${operation.revision} after the terms changed to ${newer.operation.revision}`, named: operation.revision, operationId: operation.operation_id, answer, performed };
}
