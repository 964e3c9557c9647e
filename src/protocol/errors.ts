/**
 * The one error class of Countersign. Every public entry throws it, never a bare zod, parser
 * or I/O error (those travel in `cause`). `code` is stable: callers and other languages
 * (docs/bridge-protocol.md) branch on it, never on `message`.
 */
export const ERROR_CODES = [
  // Wire formats of the operations extension (spec sections 3, 4, 6)
  'ERR_OPERATION_INVALID',
  // An operation whose summary is longer than MAX_SUMMARY_LENGTH (limits.ts): valid otherwise,
  // but more than Countersign shows, so refused everywhere with this one code.
  'ERR_SUMMARY_TOO_LONG',
  // A tool call whose arguments are more than the approval window shows in full (tool-call.ts
  // limits): refused at intake, like a too-long summary, never shown cut.
  'ERR_TOOL_CALL_TOO_LARGE',
  'ERR_APPROVAL_INVALID',
  'ERR_APPROVAL_HEADER_INVALID',
  'ERR_EXTENSIONS_HEADER_INVALID',
  'ERR_POPPY_JSON_INVALID',
  'ERR_API_RESPONSE_INVALID',
  'ERR_TOOL_RESULT_INVALID',
  'ERR_EVENT_INVALID',
  'ERR_MESSAGE_INVALID',
  // RFC 9651 fields in general, when no field-specific code applies (src/protocol/structured-fields.ts)
  'ERR_STRUCTURED_FIELD_INVALID',
  // Bridge and native messaging
  'ERR_FRAME_INVALID',
  'ERR_FRAME_TOO_LARGE',
  'ERR_BRIDGE_MESSAGE_INVALID',
  'ERR_PROTOCOL_VERSION',
  'ERR_COMPANION_UNAVAILABLE',
  'ERR_AGENT_NOT_PAIRED',
  'ERR_AGENT_REVOKED',
  'ERR_AUTH_FAILED',
  'ERR_THROTTLED',
  'ERR_CONNECTION_UNKNOWN',
  'ERR_SOCKET_IN_USE',
  'ERR_SOCKET_DIR_UNSAFE',
  'ERR_PAIRING_FAILED',
  'ERR_OUTCOME_PENDING',
  'ERR_REVISION_CONFLICT',
  'ERR_TOO_LATE',
  'ERR_APPROVAL_AMBIGUOUS',
  'ERR_NOT_ALLOWED',
  // Decisions and keys
  'ERR_DECISION_INVALID',
  'ERR_DECISION_MISMATCH',
  'ERR_DECISION_EXPIRED',
  'ERR_DECISION_REPLAYED',
  'ERR_KEY_INVALID',
  // A passkey assertion over a decision failed a relying party's check (WebAuthn Level 3 section 7.2).
  'ERR_PASSKEY_INVALID',
  // Installer
  'ERR_INSTALL_FAILED',
  'ERR_UNSUPPORTED_PLATFORM',
  // The conformance kit's scenario file (docs/conformance.md) is not valid: nothing was sent.
  'ERR_SCENARIO_INVALID',
  // The caller passed a function something it does not accept (a wrong type, a value out of
  // range, an id that names nothing): the caller's code must change, retrying cannot help.
  'ERR_ARGUMENT_INVALID',
  // Reading or writing local state failed (the disk, a journal, key files, IndexedDB), or what
  // was read is damaged: the data or the machine needs attention, not the call.
  'ERR_STORAGE_FAILED',
  // The other side (the bridge, the extension, a Company) failed, or answered with an error code
  // this version does not know: codes are open-ended on the wire, so an unknown one still has a
  // code to branch on, and the remote one is kept beside it (CompanionError.remoteCode).
  'ERR_REMOTE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class CountersignError extends Error {
  override readonly name = 'CountersignError';
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }

  /** A plain object for the wire (docs/bridge-protocol.md, "Errors"). */
  toJSON(): { code: ErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }
}

export function isCountersignError(value: unknown, code?: ErrorCode): value is CountersignError {
  return value instanceof CountersignError && (code === undefined || value.code === code);
}
