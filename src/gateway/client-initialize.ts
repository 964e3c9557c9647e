import type { Readable } from 'node:stream';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

/**
 * The MCP client's capabilities, read from its `initialize` before anything answers it, and put
 * back on the stream for the MCP transport to read as if nobody had looked. The gateway starts
 * its upstreams only then, so that each is told what this client can do (upstream-connection.ts,
 * relayedCapabilities): MCP has no way to change a connection's capabilities once initialized.
 * MCP's stdio framing is one JSON-RPC message per line, and `initialize` comes first. The stream
 * is left paused with what was read put back: resume it once the transport listens.
 */

/** A first line longer than this is not read as an `initialize`: the transport gets it as it is. */
const MAX_FIRST_LINE = 4 * 1024 * 1024;

const initializeSchema = z.looseObject({
  jsonrpc: z.literal('2.0'),
  method: z.literal('initialize'),
  params: z.looseObject({ capabilities: z.looseObject({}) }),
});

/**
 * Undefined: the first message is not an `initialize` (or the stream ended, or `stopped` came,
 * first); the upstreams are then told of no capability, and the transport answers whatever came
 * as MCP says.
 */
export function readClientCapabilities(input: Readable, stopped?: Promise<void>): Promise<ClientCapabilities | undefined> {
  return new Promise((resolve) => {
    let settled = false;
    const chunks: Buffer[] = [];
    let length = 0;
    const done = (capabilities: ClientCapabilities | undefined) => {
      if (settled) return;
      settled = true;
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('error', onEnd);
      input.pause();
      if (chunks.length > 0) input.unshift(Buffer.concat(chunks));
      resolve(capabilities);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      chunks.push(bytes);
      length += bytes.length;
      const buffered = Buffer.concat(chunks);
      const end = buffered.indexOf(0x0a);
      if (end >= 0) return done(capabilitiesOf(buffered.subarray(0, end).toString('utf8')));
      if (length > MAX_FIRST_LINE) done(undefined);
    };
    const onEnd = () => done(undefined);
    input.on('data', onData);
    input.once('end', onEnd);
    input.once('error', onEnd);
    void stopped?.then(onEnd);
  });
}

function capabilitiesOf(line: string): ClientCapabilities | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return undefined;
  }
  const parsed = initializeSchema.safeParse(message);
  return parsed.success ? parsed.data.params.capabilities : undefined;
}
