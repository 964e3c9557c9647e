import * as z from 'zod';
import { CountersignError } from '../protocol/errors';
import { describeZodError } from '../protocol/describe-zod-error';

/**
 * The scenario file of `countersign conformance` (docs/conformance.md, "The scenario"): how to
 * reach a Company's interfaces and how to make it return operations. The kit knows nothing about
 * the Company beyond this file and the spec, so every request it sends is one of these templates.
 *
 * Templates: in any string, `{{name}}` is replaced by a variable; a string that is exactly
 * `{{name}}` becomes the variable's value with its JSON type (so `"{{ms}}"` can be a number).
 * Variables come from `setup.capture` (or one entry of `fixtures`), from the kit (`ms`,
 * `conversation_id`, `after`, `wait`, `run`), and nowhere else: an unknown name is an error
 * before anything is sent.
 */

export const SCENARIO_VERSION = 1;

/** Variables the kit itself provides, beside those a fixture captures. */
export const KIT_VARIABLES = ['ms', 'conversation_id', 'after', 'wait', 'run'] as const;

const TEMPLATE = /\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}/g;

/** An RFC 6901 JSON Pointer: `""` is the whole document, else `/a/0/b`. */
const pointerSchema = z.string().regex(/^(\/([^~]|~[01])*)*$/, 'a JSON Pointer (RFC 6901) such as /order/exchanges');

const headersSchema = z.record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'an HTTP field name'), z.string());

/** A path on the Company's origin: the kit sends nothing anywhere else. */
const pathSchema = z
  .string()
  .regex(/^\/(?!\/)/, 'a path that starts with one "/" (the origin comes from --company)')
  .refine((path) => !/[\s#]/.test(path), 'no spaces and no fragment');

export const requestSchema = z.strictObject({
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
  path: pathSchema,
  headers: headersSchema.optional(),
  body: z.json().optional(),
});

const captureSchema = z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a variable name'), pointerSchema);

const toolCallSchema = z.strictObject({ tool: z.string().min(1), arguments: z.record(z.string(), z.json()) });

const textMessageSchema = z.strictObject({ text: z.string().min(1) });

/** The most outcome counters a scenario may list (each is one request per count). */
export const MAX_OUTCOME_COUNTERS = 8;

/** One thing the action does, counted from outside: a request, and where its count is in the answer. */
const outcomeCounterSchema = z.strictObject({
  /** Shown in the report ("card holds"); default the pointer. */
  name: z.string().min(1).max(100).optional(),
  request: requestSchema,
  /** A JSON Pointer to an array (its length) or a whole number. */
  count: pointerSchema,
});

export const scenarioSchema = z.strictObject({
  $schema: z.string().optional(),
  version: z.literal(SCENARIO_VERSION),
  name: z.string().optional(),
  /** The Session JWT the kit signs for each request (core 5.3, as an agent would). */
  session: z
    .strictObject({
      clientId: z.string().min(1).optional(),
      /** An Ed25519 private JWK registered with the Company for `clientId`; default a new key per run. */
      privateKeyJwk: z.strictObject({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: z.string(), d: z.string(), kid: z.string().optional() }).optional(),
      claims: z.record(z.string(), z.json()).optional(),
    })
    .optional(),
  /** Signed in: the headers that sign a Session in to an account (core 7), e.g. Authorization. */
  account: z.strictObject({ headers: headersSchema }).optional(),
  /** Whether the operation requests also work in a signed-out Session (default true). */
  signedOut: z.boolean().default(true),
  /** Makes a fresh action for each check that performs one; sent with the Session's headers. */
  setup: z.strictObject({ request: requestSchema, capture: captureSchema }).optional(),
  /** Or fixed values, one entry per check that performs an action, used in order. */
  fixtures: z.array(z.record(z.string(), z.string())).min(1).optional(),
  /**
   * Reads what the action did, for the at-most-once checks: one counter, or several (the
   * exchange, the card hold, the email...), each of which a perform raises by one at most and
   * nothing raises before the approval.
   */
  outcome: z.union([outcomeCounterSchema, z.array(outcomeCounterSchema).min(1).max(MAX_OUTCOME_COUNTERS)]).optional(),
  api: z.strictObject({ operation: requestSchema, newTerms: requestSchema.optional(), otherAction: requestSchema.optional() }).optional(),
  mcp: z
    .strictObject({
      path: pathSchema,
      operation: toolCallSchema,
      newTerms: toolCallSchema.optional(),
      otherAction: toolCallSchema.optional(),
    })
    .optional(),
  conversation: z
    .strictObject({
      open: z.strictObject({ request: requestSchema, capture: captureSchema.refine((c) => 'conversation_id' in c, 'must capture conversation_id') }),
      send: z.strictObject({ path: pathSchema }),
      /** Events after `{{after}}` (empty for all), holding up to `{{wait}}` seconds. */
      events: z.strictObject({ path: pathSchema, list: pointerSchema }),
      operation: textMessageSchema,
      newTerms: textMessageSchema.optional(),
      /** A message asking for another action on the same resource (another item of the order). */
      otherAction: textMessageSchema.optional(),
      /** How long to wait for the Company Agent's reply, and for silence (ms). */
      replyTimeoutMs: z.int().min(100).max(60_000).default(5_000),
      quietMs: z.int().min(0).max(10_000).default(300),
    })
    .optional(),
  /** Checks that need the Company's help; each is "not exercised" without its hook. */
  cooperation: z
    .strictObject({
      /** Moves the Company's clock forward by `{{ms}}`; `now` points at the Company time after it. */
      advanceClock: z.strictObject({ request: requestSchema, now: pointerSchema }).optional(),
      /** Makes each perform take `{{ms}}` (0 turns it off). */
      performDelay: z.strictObject({ request: requestSchema }).optional(),
    })
    .optional(),
});

export type Scenario = z.output<typeof scenarioSchema>;
export type OutcomeCounter = z.output<typeof outcomeCounterSchema>;

/** The scenario's outcome counters, whichever way it wrote them (one object or a list). */
export function outcomeCounters(scenario: Scenario): OutcomeCounter[] {
  const outcome = scenario.outcome;
  if (outcome === undefined) return [];
  return Array.isArray(outcome) ? outcome : [outcome];
}
export type RequestTemplate = z.output<typeof requestSchema>;
export type ToolCallTemplate = z.output<typeof toolCallSchema>;
export type InterfaceName = 'api' | 'mcp' | 'conversation';
export const INTERFACES: readonly InterfaceName[] = ['api', 'mcp', 'conversation'];

export type Variables = Readonly<Record<string, string | number>>;

function templateNames(value: unknown, into: Set<string>): Set<string> {
  if (typeof value === 'string') for (const m of value.matchAll(TEMPLATE)) into.add(m[1] as string);
  else if (Array.isArray(value)) for (const v of value) templateNames(v, into);
  else if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) templateNames(v, into);
  return into;
}

/** Every `{{name}}` must be a variable the scenario or the kit provides. */
function checkVariables(scenario: Scenario): void {
  const known = new Set<string>(KIT_VARIABLES);
  for (const name of Object.keys(scenario.setup?.capture ?? {})) known.add(name);
  for (const fixture of scenario.fixtures ?? []) for (const name of Object.keys(fixture)) known.add(name);
  const { setup: _setup, ...rest } = scenario;
  const unknown = [...templateNames(rest, new Set())].filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new CountersignError('ERR_SCENARIO_INVALID', `scenario: {{${unknown[0]}}}: expected a variable from setup.capture, fixtures or ${KIT_VARIABLES.join(', ')}, got an unknown name`);
  }
  if (scenario.api === undefined && scenario.mcp === undefined && scenario.conversation === undefined) {
    throw new CountersignError('ERR_SCENARIO_INVALID', 'scenario: expected at least one of api, mcp, conversation, got none');
  }
  if (!scenario.signedOut && scenario.account === undefined) {
    throw new CountersignError('ERR_SCENARIO_INVALID', 'scenario.account: expected the headers of an account when signedOut is false, got nothing');
  }
}

/**
 * The scenario's JSON Schema (2020-12), as docs/conformance/scenario.schema.json holds it. The
 * kit's own checks beyond the schema (template variables, path shape) are not in it.
 */
export function scenarioJsonSchema(): string {
  return `${JSON.stringify(z.toJSONSchema(scenarioSchema, { io: 'input' }), null, 2)}\n`;
}

/** Parse a scenario file's text. Throws ERR_SCENARIO_INVALID naming the field. */
export function parseScenario(text: string, name = 'scenario'): Scenario {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new CountersignError('ERR_SCENARIO_INVALID', `${name}: expected JSON, got text that is not (${(cause as Error).message})`, { cause });
  }
  const parsed = scenarioSchema.safeParse(json, { reportInput: true });
  if (!parsed.success) throw new CountersignError('ERR_SCENARIO_INVALID', describeZodError(parsed.error, name), { cause: parsed.error });
  checkVariables(parsed.data);
  return parsed.data;
}

/** Fill a template's `{{name}}`s (see the top of this file). */
export function expand<T>(value: T, variables: Variables): T {
  if (typeof value === 'string') {
    const whole = /^\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}$/.exec(value);
    if (whole !== null) return lookup(variables, whole[1] as string) as T;
    return value.replace(TEMPLATE, (_m, name: string) => String(lookup(variables, name))) as T;
  }
  if (Array.isArray(value)) return value.map((v: unknown) => expand(v, variables)) as T;
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v, variables)])) as T;
  return value;
}

function lookup(variables: Variables, name: string): string | number {
  const value = variables[name];
  if (value === undefined) throw new CountersignError('ERR_SCENARIO_INVALID', `scenario: {{${name}}}: expected a value at this point of the run, got none`);
  return value;
}

/** RFC 6901: the value at `pointer` in `document`, or undefined. */
export function atPointer(document: unknown, pointer: string): unknown {
  if (pointer === '') return document;
  let here = document;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(here) && /^(0|[1-9][0-9]*)$/.test(key)) here = here[Number(key)];
    else if (typeof here === 'object' && here !== null && !Array.isArray(here) && Object.hasOwn(here, key)) here = (here as Record<string, unknown>)[key];
    else return undefined;
  }
  return here;
}
