import { CountersignError } from './errors';
import { ID_RULE, isId } from './id';
import { jsonTypeName } from './issues';
import { MAX_FIELD_VALUE_LENGTH } from './limits';
import { parseApproval, type Approval } from './approval';
import {
  dictionaryMemberNames,
  parseDictionaryField,
  serializeDictionaryField,
  structuredTypeName,
  type Dictionary,
  type FieldOptions,
} from './structured-fields';

/**
 * Section 6, "APIs": the `Poppy-Approval` request header, "a Dictionary Structured Field
 * (RFC 9651) with `operation_id` and `revision` as Strings".
 *
 * Parsing decisions (tested in test/protocol/approval-header.test.ts):
 * - Each member must be a String. A Token (`operation_id=exc_5Rt2`) is refused even though its
 *   characters would pass: the spec says Strings, and a Company that accepted Tokens would hide
 *   a Personal Agent's bug that a stricter Company then refuses.
 * - Each must follow the ID rule (section 3, core 8.2).
 * - A missing member is an error; there is no approval without both.
 * - `operation_id` or `revision` appearing twice is an error (ERR_APPROVAL_HEADER_INVALID), even
 *   though RFC 9651 would keep the last value: two values for what the User approved is an
 *   ambiguity, and a Company must not pick one. Repeats of members we don't know are left to
 *   RFC 9651 (last one wins, and we ignore them anyway).
 * - Unknown members are ignored, whatever their type: "Companies MUST ignore members of
 *   Poppy-Approval they don't recognize, so later versions can add members".
 * - Parameters on `operation_id` and `revision` are ignored, for the same reason: they are the
 *   Dictionary's way of adding to a member, and no version defines one yet.
 */

const FIELD = 'Poppy-Approval';
const OPTIONS: FieldOptions = { field: FIELD, code: 'ERR_APPROVAL_HEADER_INVALID' };
const MEMBERS = ['operation_id', 'revision'] as const;

/** `Poppy-Approval: <what>`, or `Poppy-Approval operation_id: <what>` about one member. */
function fail(member: string | undefined, what: string): never {
  throw new CountersignError('ERR_APPROVAL_HEADER_INVALID', member === undefined ? `${FIELD}: ${what}` : `${FIELD} ${member}: ${what}`);
}

function stringMember(dictionary: Dictionary, name: (typeof MEMBERS)[number]): string {
  const member = dictionary.get(name);
  if (member === undefined) fail(name, `expected a String of ${ID_RULE}, got nothing`);
  const value = member[0];
  if (typeof value !== 'string') {
    const got = structuredTypeName(value);
    const hint = value === true ? ' (a member without a value is Boolean true)' : got === 'a Token' ? ' (a String is written in double quotes)' : '';
    fail(name, `expected a String, got ${got}${hint}`);
  }
  if (!isId(value)) fail(name, `expected a String of ${ID_RULE}, got a String of ${String(value).length} characters that is not`);
  return value;
}

/**
 * Parse a `Poppy-Approval` field value into the approval it carries. When a request has several
 * Poppy-Approval lines, join them with ", " first (RFC 9110 section 5.3; `Headers.get` does).
 * Throws ERR_APPROVAL_HEADER_INVALID with a message that names the member.
 */
export function parseApprovalHeader(value: string): Approval {
  if (typeof value !== 'string') fail(undefined, `expected the field value as a string, got ${jsonTypeName(value)}`);
  if (value.length > MAX_FIELD_VALUE_LENGTH) fail(undefined, `expected at most ${MAX_FIELD_VALUE_LENGTH} characters, got ${value.length}`);
  const dictionary = parseDictionaryField(value, OPTIONS);
  const names = dictionaryMemberNames(value, OPTIONS);
  for (const name of MEMBERS) {
    const count = names.filter((n) => n === name).length;
    if (count > 1) fail(name, `expected once, got ${count} times (an approval names one operation and one revision)`);
  }
  return { operation_id: stringMember(dictionary, 'operation_id'), revision: stringMember(dictionary, 'revision') };
}

/**
 * The `Poppy-Approval` field value for an approval, exactly as the seed writes it:
 * `operation_id="exc_5Rt2", revision="1791487200-k3Jd9Qx2mW8v"`. Throws ERR_APPROVAL_INVALID
 * when the approval is invalid (the input is an approval, not a header).
 */
export function formatApprovalHeader(approval: Approval): string {
  const { operation_id, revision } = parseApproval(approval);
  return serializeDictionaryField({ operation_id, revision }, OPTIONS);
}
