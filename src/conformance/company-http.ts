/**
 * Every request the kit sends, and what it got back, kept as evidence (docs/conformance.md, "The
 * report"): a break is reported with the exchanges that show it. Secrets a scenario gives the kit
 * (Authorization, the Session JWT) are shortened in the evidence, never in the request.
 */

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON when the body was JSON, else the text (cut at 2,000 characters). */
  body: unknown;
}

export interface Exchange {
  request: RecordedRequest;
  /** Undefined when no response arrived (`error` says why). */
  response?: RecordedResponse;
  error?: string;
}

const SECRET_HEADERS = new Set(['authorization', 'poppy-session', 'cookie']);
const KEPT_RESPONSE_HEADERS = ['content-type', 'retry-after', 'www-authenticate', 'mcp-session-id', 'location'];
const MAX_TEXT = 2_000;
export const REQUEST_TIMEOUT_MS = 30_000;

function shorten(name: string, value: string): string {
  if (!SECRET_HEADERS.has(name.toLowerCase()) || value.length <= 24) return value;
  return `${value.slice(0, 16)}…(${value.length} characters)`;
}

function readBody(text: string, contentType: string): unknown {
  if (/\bjson\b/i.test(contentType) || /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // Not JSON after all: kept as text.
    }
  }
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…(${text.length} characters)` : text;
}

/** The most of a response body the kit reads: a Company's answer is small, and a hostile one must not exhaust the kit. */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

async function readCapped(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      throw new Error(`the response body is larger than ${MAX_RESPONSE_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

export interface SendOptions {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
}

/** Send one request and record it; network failures become an exchange with `error`. */
export async function send(options: SendOptions): Promise<Exchange & { rawText?: string }> {
  const headers = { ...options.headers };
  const hasBody = options.body !== undefined;
  if (hasBody && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
  const request: RecordedRequest = {
    method: options.method,
    url: options.url,
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, shorten(k, v)])),
    ...(hasBody ? { body: options.body } : {}),
  };
  const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  try {
    const response = await fetch(options.url, {
      method: options.method,
      headers,
      body: hasBody ? JSON.stringify(options.body) : null,
      signal: options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout]),
      redirect: 'manual',
    });
    const text = await readCapped(response);
    const kept: Record<string, string> = {};
    for (const name of KEPT_RESPONSE_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) kept[name] = value;
    }
    return { request, response: { status: response.status, headers: kept, body: readBody(text, kept['content-type'] ?? '') }, rawText: text };
  } catch (cause) {
    const reason = cause instanceof Error ? (cause.cause instanceof Error ? `${cause.message}: ${cause.cause.message}` : cause.message) : String(cause);
    return { request, error: reason };
  }
}

/** Whether a host is this machine: the kit runs against anything else only with --i-own-this-company. */
export function isLocalOrigin(origin: URL): boolean {
  const host = origin.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::1';
}
