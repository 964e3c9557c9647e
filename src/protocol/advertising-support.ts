import { CountersignError } from './errors';
import { isObject, jsonTypeName } from './issues';
import { MAX_FIELD_VALUE_LENGTH } from './limits';
import { parseListField, serializeListField, type FieldOptions } from './structured-fields';
import { OPERATIONS_EXTENSION, OPERATIONS_VERSION, isOperationsV2Version } from './version';

/**
 * Section 2, "Advertising support": the Company lists the extension in poppy.json, the Personal
 * Agent declares it in `Poppy-Extensions`, and "the extension is used only when the Company lists
 * `operations` with `version` "2" and the request declares that version".
 */

const FIELD = 'Poppy-Extensions';
const OPTIONS: FieldOptions = { field: FIELD, code: 'ERR_EXTENSIONS_HEADER_INVALID' };

/**
 * The `Poppy-Extensions` field value that declares operations v2, exactly as the seed writes it:
 * `"operations";v="2"`. A request that uses other extensions lists them in the same field; join
 * the values with ", ".
 */
export function formatExtensionsHeader(): string {
  return serializeListField([[OPERATIONS_EXTENSION, new Map([['v', OPERATIONS_VERSION]])]], OPTIONS);
}

/**
 * Whether a `Poppy-Extensions` field value (an RFC 9651 List, core 3.4) declares operations v2.
 * An empty value declares nothing. Throws ERR_EXTENSIONS_HEADER_INVALID when the value is not a
 * List.
 *
 * Decisions:
 * - the extension's name must be a String, as in the seed (`"operations"`). A Token `operations`
 *   is not a declaration, nor an error: it is a member we don't recognise, and members we don't
 *   recognise (other extensions, inner lists) are passed over;
 * - `v` must be a String whose major version is 2 ("2", "2.1"). Another major version ("1",
 *   "3") is not support for this one (section 2), and an Integer `v=2` or a missing `v` declares
 *   no version we can check;
 * - other parameters are ignored; if any member declares v2, the request declares it.
 */
export function parseExtensionsHeader(value: string): boolean {
  if (typeof value !== 'string') {
    throw new CountersignError('ERR_EXTENSIONS_HEADER_INVALID', `${FIELD}: expected the field value as a string, got ${jsonTypeName(value)}`);
  }
  if (value.length > MAX_FIELD_VALUE_LENGTH) {
    throw new CountersignError('ERR_EXTENSIONS_HEADER_INVALID', `${FIELD}: expected at most ${MAX_FIELD_VALUE_LENGTH} characters, got ${value.length}`);
  }
  const list = parseListField(value, OPTIONS);
  return list.some((member) => {
    const [name, parameters] = member;
    // Strict equality with a string: a Token (an object) or an inner list never matches.
    if (name !== OPERATIONS_EXTENSION) return false;
    const version = parameters.get('v');
    return typeof version === 'string' && isOperationsV2Version(version);
  });
}

/**
 * Whether a Company's poppy.json lists operations v2 (section 2): `extensions.operations` is an
 * array with an entry whose `version` has major version 2 ("2", "2.1"; not "1" or "3").
 *
 * Decisions: unknown extensions and unknown members are ignored (core 3.3). A poppy.json that is
 * not an object, or whose `extensions` is present but not an object, is not a poppy.json we can
 * read: that throws ERR_POPPY_JSON_INVALID, so a broken document is reported rather than
 * mistaken for a Company without the extension. Inside `extensions.operations`, everything that
 * isn't a v2 entry (a single object as in draft 0.1, entries without a string `version`) simply
 * isn't support for v2: false. Without the extension the Company handles approval itself, which
 * is always safe (section 2).
 */
export function supportsOperationsV2(poppyJson: unknown): boolean {
  if (!isObject(poppyJson)) {
    throw new CountersignError('ERR_POPPY_JSON_INVALID', `poppy.json: expected an object, got ${jsonTypeName(poppyJson)}`);
  }
  try {
    const extensions = poppyJson.extensions;
    if (extensions === undefined) return false;
    if (!isObject(extensions)) {
      throw new CountersignError('ERR_POPPY_JSON_INVALID', `poppy.json extensions: expected an object keyed by extension name, got ${jsonTypeName(extensions)}`);
    }
    const entries = extensions[OPERATIONS_EXTENSION];
    if (!Array.isArray(entries)) return false;
    return entries.some((entry: unknown) => isObject(entry) && isOperationsV2Version(entry.version));
  } catch (cause) {
    if (cause instanceof CountersignError) throw cause;
    throw new CountersignError('ERR_POPPY_JSON_INVALID', 'poppy.json: expected JSON data, got a value that cannot be read', { cause });
  }
}
