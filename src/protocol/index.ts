/**
 * src/protocol: the wire formats of the Personal Agent Protocol's `operations` extension v2
 * (test/fixtures/operations-extension-v2.md). Isomorphic (browser and Node); imports nothing of
 * ours outside this folder. Every function throws only CountersignError.
 */
export { CountersignError, ERROR_CODES, isCountersignError, type ErrorCode } from './errors';
export { ID_PATTERN, ID_RULE, idSchema, isId } from './id';
export { MAX_COMPANY_NAME_LENGTH, MAX_FIELD_VALUE_LENGTH, MAX_JSON_DEPTH, MAX_SUMMARY_LENGTH } from './limits';
export { OPERATIONS_EXTENSION, OPERATIONS_VERSION, isOperationsV2Version, majorVersion } from './version';
export { RFC3339_RULE, checkRfc3339, deadlineOf, instantOf, isRfc3339, type Rfc3339Check } from './rfc3339';
export { isPlainObject, isWellFormedText, toJsonValue, type JsonObject, type JsonPrimitive, type JsonValue } from './json';
export { canonicalJson } from './canonical-json';
export { formatPairingCode, keyFingerprint } from './fingerprint';

// Section 2: advertising support; section 5: the Company's name
export { formatExtensionsHeader, parseExtensionsHeader, supportsOperationsV2 } from './advertising-support';
export { companyFromPoppyJson, type Company } from './company';

// Section 3: the operation
export { expiresAtMs, operationSchema, parseOperation, type Operation } from './operation';

// Section 4: asking for approval
export {
  operationFromApiResponse,
  operationFromEvent,
  operationFromToolResult,
  type ApiResponseResult,
  type EventResult,
  type ExtensionRequired,
  type NoOperation,
  type OperationFound,
  type ToolResultResult,
} from './asking-for-approval';

// Section 6: sending the approval
export {
  APPROVAL_META_KEY,
  approvalFromMessage,
  approvalFromMeta,
  approvalMessage,
  approvalMeta,
  approvalSchema,
  parseApproval,
  type Approval,
  type ApprovalMessage,
  type ApprovalMeta,
} from './approval';
export { formatApprovalHeader, parseApprovalHeader } from './approval-header';

// Passkey-verified decisions: a WebAuthn assertion over a decision's claims (WebAuthn Level 3 section 7.2)
export {
  PASSKEY_ALGORITHMS,
  parseAuthenticatorData,
  passkeyAssertionSchema,
  passkeyChallenge,
  passkeyChallengeBase64url,
  passkeyCredentialSchema,
  verifyPasskeyAssertion,
  type AuthenticatorData,
  type PasskeyAlg,
  type PasskeyAssertion,
  type PasskeyCredential,
  type VerifiedPasskeyAssertion,
  type VerifyPasskeyAssertionOptions,
} from './passkey';

// RFC 9651 wrappers (the header layer above uses these)
export {
  DisplayString,
  Token,
  dictionaryMemberNames,
  parseDictionaryField,
  parseItemField,
  parseListField,
  serializeDictionaryField,
  serializeItemField,
  serializeListField,
  structuredTypeName,
  type BareItem,
  type Dictionary,
  type DictionaryObject,
  type FieldOptions,
  type InnerList,
  type Item,
  type List,
  type Parameters,
} from './structured-fields';
