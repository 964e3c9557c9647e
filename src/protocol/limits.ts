/**
 * Limits of this implementation, not of the specification. The spec sets no maximum for these;
 * we set one so that untrusted Company input (section 8) cannot make the trusted window, the
 * store or the bridge handle unbounded data. Each is far above what a real value needs.
 */

/**
 * A `summary` is written "so the User can decide from it alone" (section 3): text the User reads
 * in full in the approval window. Ten thousand UTF-16 code units is several pages; the seed's
 * summary has 150.
 */
export const MAX_SUMMARY_LENGTH = 10_000;

/**
 * Nesting depth of `terms` (section 3) and of anything canonicalJson serialises. Terms are a
 * flat-ish object of the Company's keys (the seed nests two levels); a deeper value is shown and
 * hashed by recursive code, which must not run out of stack.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Length of a `Poppy-Approval` or `Poppy-Extensions` field value we parse (section 2, 6). A valid
 * approval is at most about 540 characters; common servers refuse header lines above 8 KiB.
 */
export const MAX_FIELD_VALUE_LENGTH = 8192;

/** `organization.name` from poppy.json, shown to the User as the Company's name (section 5). */
export const MAX_COMPANY_NAME_LENGTH = 256;
