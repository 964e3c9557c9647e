/**
 * Limits of this implementation, not of the specification. The spec sets no maximum for these;
 * we set one so that untrusted Company input (section 8) cannot make the trusted window, the
 * store or the bridge handle unbounded data. Each is far above what a real value needs.
 */

/**
 * A `summary` is written "so the User can decide from it alone" (section 3): text the User reads
 * in full in the approval window. Ten thousand UTF-16 code units is several pages; the seed's
 * summary has 150.
 *
 * The one limit on a summary's length: the operation schema (operation.ts), hence the SDK before
 * it sends, the bridge and the extension, refuse a longer one with ERR_SUMMARY_TOO_LONG, and the
 * window shows every summary up to it in full (summary/render.ts SUMMARY_DISPLAY_LIMIT). Counted
 * in UTF-16 code units, as JavaScript's `length`: a character outside the BMP counts 2.
 *
 * It must leave room in a bridge frame (bridge-framing.ts MAX_FRAME_BYTES, 1 048 576 bytes; an
 * agent message may have 1 048 515 of them once the bridge wraps it in its relay envelope). As
 * JSON a code unit takes at most 6 bytes (a control character is written `\u001f`; a surrogate
 * pair is 4 bytes for 2 units), so a summary is at most 60 000 bytes. The other bounded members of
 * an approval_request (ids, the Company, the request URL, the account) take under 60 000 bytes at
 * worst, which leaves more than 900 000 bytes for `terms` and the request body.
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
