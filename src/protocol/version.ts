/**
 * Extension names and versions (section 2; core 3.3 and 3.4).
 *
 * "A different major version doesn't count as support for this version" (section 2). The core
 * text that defines version strings is not available to us; we read a version as dot-separated
 * decimal numbers without leading zeros ("2", "2.1") whose first number is the major version.
 * Anything else ("v2", "02", "", "2.") names no version we know, so it is not support for v2.
 * This is an assumption about the core spec: keep it here and only here.
 */
export const OPERATIONS_EXTENSION = 'operations';

/** The version this implementation speaks, as poppy.json and Poppy-Extensions write it. */
export const OPERATIONS_VERSION = '2';

const OPERATIONS_MAJOR = 2;

const VERSION_PATTERN = /^(0|[1-9][0-9]*)(?:\.(?:0|[1-9][0-9]*))*$/;

/** The major version of an extension version string, or undefined when it isn't one. */
export function majorVersion(version: unknown): number | undefined {
  if (typeof version !== 'string') return undefined;
  const m = VERSION_PATTERN.exec(version);
  return m === null ? undefined : Number(m[1]);
}

/** True when `version` names major version 2 of the operations extension ("2", "2.1"). */
export function isOperationsV2Version(version: unknown): boolean {
  return majorVersion(version) === OPERATIONS_MAJOR;
}
