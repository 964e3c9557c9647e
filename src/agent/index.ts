/**
 * `countersign/agent`: the SDK a desktop Personal Agent imports to pair with the Countersign
 * extension, ask the User for approval of an operation (spec section 5), and send only approvals
 * the extension signed (spec section 6). Node only. Guide: docs/agent-sdk.md.
 */
export {
  Companion,
  CompanionError,
  type ApprovalResult,
  type CompanionEvents,
  type CompanionOptions,
  type OperationInput,
  type OutcomeReport,
  type Pairing,
  type RequestApprovalInput,
  type RequestContext,
  type SessionContext,
} from './companion';
export { CONFIG_DIR_NAME, defaultConfigDir } from './files';
export type { RequestToolCallApprovalInput, ToolCallApprovalResult } from './companion-types';
// Tool calls (countersign-mcp): what the person approves, and how a decision about one is checked.
export { toolCallSummary, type ToolCall, type ToolServer } from '../protocol/tool-call';
export { toolCallRevision } from '../protocol/tool-call-revision';
export { verifyToolCallDecision, type ToolCallClaims } from '../protocol/tool-call-decision';
export { checkSocketPath, findAgentSocket, listAgentSockets, socketFolders, thumbprintOfSocketPath, type FoundSocket } from './discovery';
export { KEY_FILE, PIN_FILE } from './keys';
export { JOURNAL_FILE, OUTCOMES, type Outcome } from './journal';

// What the caller needs around an approval, from the protocol layer, so one import suffices.
export { CountersignError, isCountersignError, type ErrorCode } from '../protocol/errors';
// The longest summary requestApproval sends: above it, ERR_SUMMARY_TOO_LONG and nothing is sent.
export { MAX_SUMMARY_LENGTH } from '../protocol/limits';
export type { DecisionClaims } from '../protocol/decision';
// What the person compares: the code they type into Countersign, and the agent's key fingerprint.
export { formatPairingCode, keyFingerprint } from '../protocol/fingerprint';
// Section 6: the three ways to send an approval back through the interface that returned the operation.
export { formatApprovalHeader } from '../protocol/approval-header';
export { approvalMessage, approvalMeta, APPROVAL_META_KEY, type Approval } from '../protocol/approval';
// Passkey-verified approvals: what the person's passkey signed, and the proof a Company may check.
export { passkeyChallenge, verifyPasskeyAssertion, type PasskeyAssertion, type PasskeyCredential } from '../protocol/passkey';
export {
  PASSKEY_PROOF_MEMBER,
  PASSKEY_PROOF_META_KEY,
  formatPasskeyProofMember,
  passkeyProofFromHeader,
  passkeyProofFromMeta,
  passkeyProofOf,
  verifyPasskeyProof,
  type PasskeyProof,
} from '../protocol/passkey-proof';
export { PASSKEY_FILE } from './passkey-pin';
// Section 4: reading the operation out of what the Company returned.
export { operationFromApiResponse, operationFromEvent, operationFromToolResult } from '../protocol/asking-for-approval';

// Sending approvals (spec sections 2, 4, 6 and 7): the whole loop for one action, per interface.
export {
  performApi,
  performConversation,
  performTool,
  performWithApproval,
  type ApprovalCompanion,
  type FindOutcome,
  type FindOutcomeQuery,
  type FoundOutcome,
  type NotApprovedStatus,
  type PerformApiInput,
  type PerformCommon,
  type PerformConversationInput,
  type PerformInput,
  type PerformProgress,
  type PerformResult,
  type PerformStep,
  type PerformToolInput,
  type RetryOptions,
} from './perform';
export { PERFORM_JOURNAL_FILE, PerformJournal, sharedPerformJournal, type PerformEntry, type PerformState, type StoredRequest } from './perform-journal';
export type { ApiResponse } from './interfaces/api';
export type { ConversationEvent, ConversationResponse } from './interfaces/conversation';
export type { FetchLike } from './interfaces/common';

// Tool calls of agent SDKs (docs/agent-sdk.md): each SDK's approval point, answered in Countersign.
export { askCountersign, type CountersignAdapterOptions, type CountersignVerdict, type ToolCallApprover } from './adapters/ask-countersign';
export { countersignCanUseTool, type CanUseToolOptions, type CanUseToolResult } from './adapters/countersign-can-use-tool';
export { countersignApprovalResponses, type ConversationMessage, type ToolApprovalResponseMessage } from './adapters/countersign-approval-responses';
export { countersignInterruptions, type InterruptedRun, type ToolApprovalInterruption } from './adapters/countersign-interruptions';
