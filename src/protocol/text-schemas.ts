import * as z from 'zod';
import { B64U_32_PATTERN, B64U_32_RULE } from './base64url';
import { isWellFormedText } from './json';

/**
 * The text and URL rules that several messages share (bridge-messages.ts, tool-call.ts): a name
 * a person reads, free text for logs, an origin, a request URL. One home, so the bridge, the
 * extension and the agent SDK apply the same rule to the same kind of value.
 */

/** C0/C1 controls and the bidi controls: text shown as a name must be one plain line. */
// Control characters are exactly what this pattern looks for.
// eslint-disable-next-line no-control-regex
export const CONTROL_OR_BIDI = /[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;

/** A name a person reads in the extension (agent names): untrusted, so one plain, short line. */
export function displayNameSchema(max: number): z.ZodType<string> {
  return z
    .string({ error: `expected a string of 1-${max} characters` })
    .min(1, { error: `expected a string of 1-${max} characters` })
    .max(max, { error: `expected at most ${max} characters` })
    .refine((s) => s.trim() !== '', { error: 'expected more than blanks' })
    .refine(isWellFormedText, { error: 'expected well-formed Unicode text, got an unpaired surrogate' })
    .refine((s) => !CONTROL_OR_BIDI.test(s), { error: 'expected no control or bidi-control characters' });
}

/** Free text for logs and history (error messages, outcome details): bounded, well-formed. */
export function freeTextSchema(max: number): z.ZodType<string> {
  return z
    .string({ error: 'expected a string' })
    .max(max, { error: `expected at most ${max} characters` })
    .refine(isWellFormedText, { error: 'expected well-formed Unicode text, got an unpaired surrogate' });
}

/** Hosts where plain http is acceptable: this machine (the reference Company in tests and demos); everything else is https. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function urlIsSecure(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
}

/** A serialized origin, as the agent resolved the Company (company.ts): https, or http on loopback. */
export const originSchema = z
  .string({ error: 'expected a serialized origin such as https://shop.example' })
  .max(2048)
  .refine(
    (s) => {
      try {
        const url = new URL(s);
        return urlIsSecure(url) && url.origin === s;
      } catch {
        return false;
      }
    },
    { error: 'expected a serialized origin such as https://shop.example (https, or http on localhost; scheme, host and port only)' },
  );

/** An absolute https URL (http on loopback), at most 8 KiB: what an API request or MCP server is at. */
export const requestUrlSchema = z
  .string({ error: 'expected an absolute https URL' })
  .max(8192, { error: 'expected at most 8192 characters' })
  .refine(
    (s) => {
      try {
        return urlIsSecure(new URL(s));
      } catch {
        return false;
      }
    },
    { error: 'expected an absolute https URL (http only on localhost)' },
  );

/**
 * JSON data (zod's `z.json()`): an API request's body, a tool's arguments. One instance, which
 * the bridge's compiled checks recognise and replace with a check zod can compile
 * (compiled-bridge-parser.ts): z.json() is recursive, and zod compiles no schema
 * that contains itself.
 */
export const jsonValueSchema = z.json();

/** A JSON object (tool arguments): members of any JSON type. */
export const jsonObjectSchema = z.record(z.string(), jsonValueSchema, { error: 'expected a JSON object' });

/**
 * 32 bytes in base64url's canonical spelling (base64url.ts): a digest, a thumbprint, a nonce, a
 * key coordinate. Here, not in base64url.ts, so that the encoder and decoder load without zod
 * (the approval window's passkey step uses them).
 */
export const base64url32Schema = z.string({ error: `expected ${B64U_32_RULE}` }).regex(B64U_32_PATTERN, { error: `expected ${B64U_32_RULE}` });
