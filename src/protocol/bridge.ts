/**
 * The bridge protocol (docs/bridge-protocol.md), as one import for code outside src/protocol.
 * Each part lives in the file named after it; code inside src/protocol imports those directly.
 */
export * from './bridge-messages';
export * from './compiled-bridge-parser';
export { AGENT_AUTH_CONTEXT, agentAuthInput, verifyAgentAuth, type AgentAuthFields } from './agent-auth';
export { B64U_32_PATTERN, B64U_64_PATTERN, base64urlDecode, base64urlEncode } from './base64url';
export { jwkThumbprint, publicJwkSchema as bridgePublicJwkSchema, thumbprintInput, type PublicJwk as BridgePublicJwk } from './jwk';
export { PAIRING_CODE_CONTEXT, pairingCode, pairingCommitment, type PairingCodeFields } from './pairing-code';
export { MAX_UNIX_SOCKET_PATH_BYTES, accountName, agentSocketCandidates, agentSocketPath, pipeUserName, type SocketPathInput } from './socket-path';
export { randomNonce } from './webcrypto';
