/**
 * Fault switches of the reference Company. Change them at any time through `company.faults`.
 *
 * - The section 7 faults (`delayMs` ... `crashUnknownMs`) keep the Company conformant: they make
 *   it slow, drop connections or crash, as a real Company may, for tests of the Personal Agent's
 *   retries. Counts are used up one per perform.
 * - `breaks` makes it non-conformant on purpose: each SpecBreak breaks exactly one sentence of
 *   the operations extension v2, as observed from outside, so that a conformance kit run against
 *   the reference Company can be shown to report that sentence and nothing else
 *   (docs/reference-company.md, "Spec-breaking switches").
 */

/** Every spec-breaking switch. Each line: the sentence it breaks, then what the Company does instead. */
export const SPEC_BREAKS = [
  /** Section 7 "MUST perform each operation at most once": a perform waits 50 ms before recording it, so concurrent approvals all perform. */
  'perform-twice-concurrently',
  /** Section 3 "MUST NOT give two different sets of terms the same revision": the revision leaves out summary and terms. */
  'same-revision-for-new-terms',
  /** Section 6 "MUST NOT answer an approval with the revision it names": when check 3 fails, the operation returned carries the named revision. */
  'echo-named-revision',
  /** Section 2 "MUST NOT return operations in response to a request that doesn't declare it": undeclared requests are treated as declared. */
  'operations-without-declaration',
  /** Section 6 "MUST ignore members of Poppy-Approval they don't recognize": any other member is a 400 invalid_approval. */
  'refuse-unknown-approval-members',
  /** Section 6 "with operation_id and revision as Strings": Poppy-Approval members given as Tokens are accepted. */
  'token-as-string',
  /** Section 7 "gets the response the Company gave the first time, or one that says the same": a replay gets 409 already_performed. */
  'replay-error',
  /** Section 7 "MUST remember that it performed an operation at least until ... expires_at": forgotten 2 minutes (Company clock) after the perform. */
  'forget-early',
  /** Section 7 "MUST NOT respond as if it failed": requests for an operation being performed get 409 operation_failed. */
  'fail-while-performing',
  /** Section 3 "[operation_id] stays the same when the terms change": the operation ID also depends on the replacement SKU. */
  'new-operation-id-for-new-terms',
  /** Section 6 check 3 "it hasn't expired": an approval after its expires_at still performs. */
  'accept-expired-revision',
  /** Section 3 "An operation returned in a signed-out Session can be approved only in that Session": signed-out Sessions share their operations. */
  'any-session-approves',
  /** Section 6 check 3 "The API request or tool call is the one that returned the operation": the revision leaves out the interface and request. */
  'accept-other-interface-revision',
  /** Section 3 "MUST NOT start the action before it receives an approval for it": returning an exchange's operation writes a pending exchange to the order. */
  'start-before-approval',
  /** Section 2 "A tool that needs the extension returns an ordinary tool error instead": an undeclared tool call gets JSON-RPC error -32600 extension_required. */
  'mcp-error-without-declaration',
  /** Section 6 "The message's text doesn't approve anything, whatever it says": "I approve" / "go ahead" in a conversation performs the current offer. */
  'text-approves',
  /** Section 4 "The API responds with HTTP 403 ... it doesn't go in WWW-Authenticate": approval_required is a 401 with WWW-Authenticate. */
  'approval-required-401',
  /** Section 3 "Whichever revision is approved, the Company MUST perform each operation at most once": the perform lock is keyed by the revision, so two revisions approved at once (the API's and the MCP tool's) both perform. */
  'lock-per-revision',
  /** Section 7 "a new message with the same approval adds nothing": the Company Agent answers a repeated approval, a second after it, with "That's already done". */
  'reply-to-repeated-approval',
  /** Section 3 "the Company MUST NOT use it for another action": once an exchange on an order is performed, the next exchange on that order gets its operation ID. */
  'reuse-operation-id-after-perform',
  /** Section 2 "MUST NOT return operations in response to a request that doesn't declare it": the name alone declares it (a Token, no v, an Integer v). */
  'lenient-declaration',
  /** Section 2 "Support means that the Company can return operations": only v="2" exactly is read as the declaration, so v="2.1" gets none. */
  'exact-version-only',
  /** Section 3 "MUST NOT start the action before it receives an approval for it": returning an exchange's operation places the card hold for its price difference. */
  'hold-before-approval',
  /** Section 4 "The tool returns an error result, with isError set to true": approval_required is a JSON-RPC error with the operation in its data. */
  'mcp-approval-as-rpc-error',
  /** Section 6 "MUST NOT answer an approval with the revision it names": an approval after expires_at gets the operation it named back unchanged. */
  'echo-expired-revision',
  /** Section 6 "MUST ignore members of Poppy-Approval they don't recognize": Poppy-Approval is parsed by structured-headers 2.1.0 as is, which refuses a Date member anywhere but at the end. */
  'date-member-only-last',
] as const;

export type SpecBreak = (typeof SPEC_BREAKS)[number];

export function isSpecBreak(name: string): name is SpecBreak {
  return (SPEC_BREAKS as readonly string[]).includes(name);
}

export interface CompanyFaults {
  /** Every response waits this long before it is written (a slow Company; client timeouts). */
  delayMs: number;
  /** The next N performs: the action takes effect, then the connection is closed without an answer. */
  dropAfterPerform: number;
  /**
   * Each perform takes this long. Meanwhile requests for the operation get HTTP 503 with
   * Retry-After (section 7: "While an operation is being performed ... responds with HTTP 503").
   */
  holdPerformMs: number;
  /**
   * The next N performs: the Company "crashes" between performing and answering. The perform is
   * recorded, the connection is destroyed, and for `crashUnknownMs` the Company doesn't know
   * whether the action took effect, answering 503 with Retry-After (section 7); afterwards a retry
   * gets a response that says the same as the one it never received.
   */
  crashAfterPerform: number;
  crashUnknownMs: number;
  /** The spec-breaking switches that are on (SPEC_BREAKS); empty: conformant. */
  breaks: Set<SpecBreak>;
  /** All switches off. */
  reset(): void;
}

export function createFaults(): CompanyFaults {
  return {
    delayMs: 0,
    dropAfterPerform: 0,
    holdPerformMs: 0,
    crashAfterPerform: 0,
    crashUnknownMs: 0,
    breaks: new Set(),
    reset() {
      this.delayMs = 0;
      this.dropAfterPerform = 0;
      this.holdPerformMs = 0;
      this.crashAfterPerform = 0;
      this.crashUnknownMs = 0;
      this.breaks.clear();
    },
  };
}
