import * as z from 'zod';
import { MAX_MESSAGE_DEPTH, exceedsDepth, parseBridgeMessage, type ParseResult } from './bridge-messages';
import { isObject } from './issues';
import { jsonValueSchema } from './text-schemas';

/*
 * The bridge's fast path for the messages it sees often (docs/bridge-protocol.md section 4: what
 * a bad message gets is exactly what parseBridgeMessage says): zod's compiled code, with JSON data
 * checked by a stand-in zod can compile.
 */

/** copyAsJsonValue's answer for a value z.json() refuses. */
const NOT_JSON = Symbol('not JSON data');

/** copyAsJsonValue's work: containers still to copy, each with its empty copy and its depth. */
interface JsonCopyWork {
  sources: object[];
  copies: Array<unknown[] | Record<string, unknown>>;
  depths: number[];
}

/** The copy of one value: the value itself when it is a primitive z.json() accepts, an empty container queued in `work` to be filled, or NOT_JSON. */
function startCopy(item: unknown, depth: number, work: JsonCopyWork): unknown {
  switch (typeof item) {
    case 'string':
    case 'boolean':
      return item;
    case 'number':
      // z.number() refuses NaN and both infinities.
      return Number.isFinite(item) ? item : NOT_JSON;
    case 'object':
      break;
    default:
      return NOT_JSON;
  }
  if (item === null) return null;
  if (depth > MAX_MESSAGE_DEPTH) return NOT_JSON;
  let copy: unknown[] | Record<string, unknown>;
  if (Array.isArray(item)) copy = new Array<unknown>(item.length);
  // zod's own test of a record, not json.ts's isPlainObject: the two differ on objects JSON.parse never makes.
  else if (z.util.isPlainObject(item)) copy = {};
  else return NOT_JSON;
  work.sources.push(item);
  work.copies.push(copy);
  work.depths.push(depth);
  return copy;
}

/**
 * What z.json() answers for `value`, without its recursion: the value's copy when z.json()
 * accepts it, else NOT_JSON. The rules are z.json()'s (a union of z.string(), z.number(),
 * z.boolean(), z.null(), z.array() of itself and z.record(z.string(), itself), zod 4): any string
 * (lone surrogates too: z.string() does not look), finite numbers, an array read index by index up
 * to its length (a hole is undefined, refused), an object zod calls plain read by its own
 * enumerable keys (a symbol key is refused, a member named `__proto__` is left out of the copy),
 * and new arrays and objects in the copy. Iterative, so hostile depth cannot overflow the stack;
 * deeper than MAX_MESSAGE_DEPTH is NOT_JSON, which no value of a message that passed exceedsDepth
 * reaches, and which ends a cycle.
 */
function copyAsJsonValue(value: unknown): unknown {
  const work: JsonCopyWork = { sources: [], copies: [], depths: [] };
  const root = startCopy(value, 1, work);
  while (work.sources.length > 0) {
    const source = work.sources.pop() as Record<string, unknown> & unknown[];
    const copy = work.copies.pop() as unknown[] | Record<string, unknown>;
    const depth = (work.depths.pop() as number) + 1;
    if (Array.isArray(copy)) {
      for (let i = 0; i < source.length; i++) {
        const item = startCopy(source[i], depth, work);
        if (item === NOT_JSON) return NOT_JSON;
        copy[i] = item;
      }
      continue;
    }
    for (const key of Reflect.ownKeys(source)) {
      if (key === '__proto__' || !Object.prototype.propertyIsEnumerable.call(source, key)) continue;
      if (typeof key !== 'string') return NOT_JSON;
      const item = startCopy(source[key], depth, work);
      if (item === NOT_JSON) return NOT_JSON;
      copy[key] = item;
    }
  }
  return root;
}

/**
 * jsonValueSchema's stand-in in compiled checks: the same values accepted, with an equal copy as
 * output, and no recursion, so zod can compile a message that holds JSON data. A value it refuses
 * is never refused in its words: the message goes to parseBridgeMessage, which says why.
 */
const compilableJsonValueSchema = z.unknown().transform((value, ctx) => {
  const copy = copyAsJsonValue(value);
  if (copy !== NOT_JSON) return copy;
  ctx.addIssue({ code: 'custom', message: 'expected JSON data', input: value });
  return z.NEVER;
});

/**
 * `schema` with jsonValueSchema replaced by compilableJsonValueSchema wherever it is inside
 * objects, unions, optionals, nullables, arrays, records and pipes: those are rebuilt from their
 * definitions (the same checks and messages), every other part is shared. Anything else is kept
 * as it is, so a recursive part this does not know still keeps zod from compiling (and the
 * message on the runtime parser).
 */
export function withCompilableJson(schema: z.core.$ZodType, visiting = new Set<z.core.$ZodType>()): z.core.$ZodType {
  if (schema === jsonValueSchema) return compilableJsonValueSchema;
  // A shape written with getters can contain itself: such a part stays as it is.
  if (visiting.has(schema)) return schema;
  visiting.add(schema);
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  const swap = (part: unknown) => withCompilableJson(part as z.core.$ZodType, visiting);
  const changed: Record<string, unknown> = {};
  const consider = (name: string, part: unknown, replacement: unknown) => {
    if (replacement !== part) changed[name] = replacement;
  };
  switch (def.type) {
    case 'object': {
      const shape = def['shape'] as Record<string, z.core.$ZodType>;
      const swapped = Object.fromEntries(Object.entries(shape).map(([key, part]) => [key, swap(part)]));
      if (Object.keys(shape).some((key) => swapped[key] !== shape[key])) changed['shape'] = swapped;
      break;
    }
    case 'union': {
      const options = def['options'] as z.core.$ZodType[];
      const swapped = options.map(swap);
      if (swapped.some((option, i) => option !== options[i])) changed['options'] = swapped;
      break;
    }
    case 'optional':
    case 'nullable':
      consider('innerType', def['innerType'], swap(def['innerType']));
      break;
    case 'array':
      consider('element', def['element'], swap(def['element']));
      break;
    case 'record':
      consider('valueType', def['valueType'], swap(def['valueType']));
      break;
    case 'pipe':
      consider('in', def['in'], swap(def['in']));
      consider('out', def['out'], swap(def['out']));
      break;
  }
  visiting.delete(schema);
  return Object.keys(changed).length === 0 ? schema : z.clone(schema, z.util.mergeDefs(def, changed) as typeof def);
}

/** A type is compiled once this many of its messages were parsed: a type seen once (a start, a handshake) never pays for compiling. */
export const COMPILE_AFTER_MESSAGES = 16;

/**
 * parseBridgeMessage(union, value, root), faster for the message types that arrive often: once a
 * `type` has been parsed COMPILE_AFTER_MESSAGES times, its option of `union` is compiled
 * (zod's `z.compile`, generated code), and a message the compiled option accepts is accepted with
 * its output. Anything it does not accept goes through parseBridgeMessage with the whole union,
 * so what is refused, its code and its message are exactly parseBridgeMessage's.
 *
 * zod compiles no schema that contains itself (generated code gets no parse context, which is
 * what closes a cycle), and z.json() does: so an option holding JSON data (an approval_request's
 * `request.body` and `arguments`, a tool_call_request's `arguments`) is compiled with
 * withCompilableJson, its JSON members checked and copied by copyAsJsonValue, which accepts the
 * same values with an equal copy. An option zod still cannot compile keeps the runtime parser.
 *
 * For Node (the bridge): compiling uses `new Function`, which an extension page's policy forbids.
 */
export function compiledBridgeParser<S extends z.ZodDiscriminatedUnion<readonly z.ZodObject[], 'type'>>(union: S, root = 'message'): (value: unknown) => ParseResult<z.output<S>> {
  const seen = new Map<string, number>();
  const compiled = new Map<string, z.ZodType>();
  const options = new Map<unknown, z.ZodObject>();
  for (const option of union.options) options.set((option.shape['type'] as z.ZodLiteral).value, option);
  return (value) => {
    const type = isObject(value) ? value['type'] : undefined;
    const option = typeof type === 'string' ? options.get(type) : undefined;
    if (option === undefined || typeof type !== 'string') return parseBridgeMessage(union, value, root);
    let fast = compiled.get(type);
    if (fast === undefined) {
      const count = (seen.get(type) ?? 0) + 1;
      seen.set(type, count);
      if (count < COMPILE_AFTER_MESSAGES) return parseBridgeMessage(union, value, root);
      fast = z.compile(withCompilableJson(option) as z.ZodType);
      compiled.set(type, fast);
    }
    if (exceedsDepth(value, MAX_MESSAGE_DEPTH)) return parseBridgeMessage(union, value, root);
    let result: z.ZodSafeParseResult<unknown>;
    try {
      result = fast.safeParse(value);
    } catch {
      return parseBridgeMessage(union, value, root);
    }
    return result.success ? { ok: true, message: result.data as z.output<S> } : parseBridgeMessage(union, value, root);
  };
}
