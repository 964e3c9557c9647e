/**
 * src/company: the reference Company (Stormline Outfitters), our conformance peer for the
 * `operations` extension v2. Node only. See docs/reference-company.md.
 */
export { COMPANY_NAME, DEFAULT_APPROVAL_TTL_MS, DEFAULT_REVISION_WINDOW_MS, createCompany, type Company, type CompanyOptions, type CompanyState } from './server';
export { SPEC_BREAKS, isSpecBreak, type CompanyFaults, type SpecBreak } from './faults';
export { DEFAULT_TOKENS, POPPY_VERSION } from './session';
export { EXTENSION_REQUIRED_STATUS } from './http';
export { TOOL_NAMES } from './mcp';
export type { MessageEvent } from './conversation';
