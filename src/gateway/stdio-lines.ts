import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage, type MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';

/**
 * MCP's stdio transport (one JSON-RPC message per line), for both sides of the gateway: the
 * client's stdin and stdout, and an upstream's process. What the MCP SDK's stdio transports do,
 * with the gateway's tap first (pass-through.ts): a line the tap takes (an allow call and its
 * answer, each checked there) goes on as it is, and every other line gets the SDK's own check,
 * MCP's JSON-RPC message schema, before the SDK sees it. So an allow call costs the gateway one
 * JSON parse and one write each way, and nothing is read twice (bench/gateway.bench.ts).
 */

/** As the SDK's ReadBuffer: a line longer than this is refused, and the transport closes. */
const MAX_BUFFER = 10 * 1024 * 1024;

abstract class StdioLines implements Transport {
  /** True: the message was taken here, and the SDK never sees it. Sees each parsed line before any schema. */
  tap: ((message: Record<string, unknown>) => boolean) | undefined;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  #buffer: Buffer | undefined;

  abstract start(): Promise<void>;
  abstract close(): Promise<void>;
  protected abstract get output(): Writable | undefined;

  protected readonly ondata = (chunk: Buffer): void => {
    const buffer = this.#buffer === undefined ? chunk : Buffer.concat([this.#buffer, chunk]);
    if (buffer.length > MAX_BUFFER) {
      this.#buffer = undefined;
      this.onerror?.(new Error(`a line of more than ${MAX_BUFFER} bytes`));
      void this.close().catch(() => undefined);
      return;
    }
    let from = 0;
    for (let end = buffer.indexOf(0x0a, from); end >= 0; end = buffer.indexOf(0x0a, from)) {
      this.#line(buffer.toString('utf8', from, end > from && buffer[end - 1] === 0x0d ? end - 1 : end));
      from = end + 1;
    }
    this.#buffer = from >= buffer.length ? undefined : buffer.subarray(from);
  };

  #line(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (typeof value === 'object' && value !== null && this.tap?.(value as Record<string, unknown>) === true) return;
    const message = JSONRPCMessageSchema.safeParse(value);
    if (!message.success) return this.onerror?.(message.error);
    this.onmessage?.(message.data);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const out = this.output;
    if (out === undefined) return Promise.reject(new Error('Not connected'));
    if (out.write(`${JSON.stringify(message)}\n`)) return Promise.resolve();
    return new Promise((resolve) => out.once('drain', () => resolve()));
  }
}

/** The gateway as a stdio MCP server: the client's messages on `input`, ours on `output`. */
export class StdioServerLines extends StdioLines {
  constructor(
    readonly input: Readable,
    readonly out: Writable,
  ) {
    super();
  }

  protected get output(): Writable {
    return this.out;
  }

  async start(): Promise<void> {
    this.input.on('data', this.ondata);
    this.input.on('error', this.onInputError);
  }

  readonly onInputError = (error: Error): void => this.onerror?.(error);

  async close(): Promise<void> {
    this.input.off('data', this.ondata);
    this.input.off('error', this.onInputError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.onclose?.();
  }
}

export interface UpstreamProcess {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd?: string;
}

/** How long closing waits for the upstream to exit after its stdin ends, and again after SIGTERM (as the SDK's). */
const EXIT_WAIT_MS = 2000;

/** An upstream MCP server as a process, spoken to over its stdin and stdout; its stderr is ours. */
export class StdioUpstreamLines extends StdioLines {
  #child: ChildProcess | undefined;

  constructor(readonly spec: UpstreamProcess) {
    super();
  }

  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  protected get output(): Writable | undefined {
    return this.#child?.stdin ?? undefined;
  }

  start(): Promise<void> {
    if (this.#child !== undefined) return Promise.reject(new Error('already started'));
    return new Promise((resolve, reject) => {
      const child = spawn(this.spec.command, [...this.spec.args], { env: this.spec.env, stdio: ['pipe', 'pipe', 'inherit'], shell: false, ...(this.spec.cwd === undefined ? {} : { cwd: this.spec.cwd }) });
      this.#child = child;
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
      child.once('close', () => {
        this.#child = undefined;
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', this.ondata);
      child.stdout?.on('error', (error) => this.onerror?.(error));
    });
  }

  async close(): Promise<void> {
    const child = this.#child;
    if (child === undefined) return;
    this.#child = undefined;
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const waited = () => Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, EXIT_WAIT_MS).unref())]);
    // As the MCP spec's stdio shutdown says: close its input, then SIGTERM, then SIGKILL.
    child.stdin?.end();
    await waited();
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    else return;
    await waited();
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
