/**
 * Fault switches of the reference Company, for tests of section 7 ("Retries and at most once")
 * on the Personal Agent side. Change them at any time through `company.faults`; counts are used
 * up one per perform.
 */
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
    reset() {
      this.delayMs = 0;
      this.dropAfterPerform = 0;
      this.holdPerformMs = 0;
      this.crashAfterPerform = 0;
      this.crashUnknownMs = 0;
    },
  };
}
