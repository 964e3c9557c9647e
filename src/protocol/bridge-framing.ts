import { CountersignError } from './errors';
import { describeValue } from './issues';

/**
 * Frames of the bridge protocol (docs/bridge-protocol.md, "Framing"): a 4-byte unsigned length
 * followed by that many bytes of UTF-8 JSON. Both links use it and differ only in byte order:
 *
 * - extension ↔ bridge (native messaging, stdio): the host's native byte order, because that is
 *   what Chromium and Firefox write and read;
 * - agent ↔ bridge (local socket): big-endian, fixed, so an agent in any language on any machine
 *   reads it the same way (`struct.unpack('>I')`, `binary.BigEndian.Uint32`).
 *
 * Isomorphic (browser + Node): Uint8Array, DataView and TextDecoder only, no Buffer. The decoder is
 * a byte-at-a-time-safe state machine: a read may end anywhere (inside the length, inside the
 * payload) and may hold many frames; each payload is copied at most once.
 */

/** 1 MiB: the browsers' limit toward the extension (Chromium and Firefox, inclusive), used on every link. */
export const MAX_FRAME_BYTES = 1024 * 1024;

export type Endianness = 'LE' | 'BE';

/** The byte order of this machine: what native messaging calls "native byte order". */
export function nativeEndianness(): Endianness {
  return new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 'LE' : 'BE';
}

const encoder = new TextEncoder();
// fatal: invalid UTF-8 is an error, never U+FFFD (a replaced character would change what is relayed).
// ignoreBOM: a leading U+FEFF stays in the text, so JSON.parse refuses it instead of it vanishing.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Prefix `payload` with its length. Throws ERR_FRAME_TOO_LARGE above `maxBytes`. */
export function encodeFrame(payload: Uint8Array, endian: Endianness, maxBytes: number = MAX_FRAME_BYTES): Uint8Array {
  if (payload.length > maxBytes) {
    throw new CountersignError('ERR_FRAME_TOO_LARGE', `frame payload is ${payload.length} bytes; at most ${maxBytes} are allowed`);
  }
  const frame = new Uint8Array(4 + payload.length);
  new DataView(frame.buffer).setUint32(0, payload.length, endian === 'LE');
  frame.set(payload, 4);
  return frame;
}

/**
 * Serialize `value` as JSON and frame it. Throws ERR_ARGUMENT_INVALID for a value JSON cannot carry
 * (undefined, a bigint, a cycle) and ERR_FRAME_TOO_LARGE above `maxBytes`.
 */
export function encodeJsonFrame(value: unknown, endian: Endianness, maxBytes: number = MAX_FRAME_BYTES): Uint8Array {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (cause) {
    throw new CountersignError('ERR_ARGUMENT_INVALID', 'message: expected a value JSON can carry, got one JSON.stringify refuses', { cause });
  }
  if (text === undefined) throw new CountersignError('ERR_ARGUMENT_INVALID', `message: expected a value JSON can carry, got ${describeValue(value)}`);
  return encodeFrame(encoder.encode(text), endian, maxBytes);
}

export type FrameEvent =
  /**
   * A complete frame: the parsed JSON value, and the exact payload bytes it was parsed from. `bytes`
   * may be a view into the chunk passed to `push`: use it before that chunk is reused.
   */
  | { kind: 'frame'; value: unknown; bytes: Uint8Array }
  /**
   * A frame that could not be read. `fatal` means the decoder has stopped: after a length it will
   * not honour, the next frame boundary is unknown, so the stream cannot be trusted any more.
   */
  | { kind: 'error'; error: CountersignError; fatal: boolean };

export interface FrameDecoderOptions {
  endian: Endianness;
  /** Largest payload accepted, inclusive. Default MAX_FRAME_BYTES. */
  maxBytes?: number;
  /**
   * What a length above `maxBytes` does:
   * - 'skip': report ERR_FRAME_TOO_LARGE once and discard exactly that many bytes, then go on.
   *   For stdio: the browser writes the length itself, so it is truthful even when too large, and
   *   skipping it lands on the next frame.
   * - 'fatal': report ERR_FRAME_TOO_LARGE and stop. For sockets, where a non-protocol client
   *   (an HTTP request, NDJSON) produces a nonsense length and the connection is simply closed.
   */
  oversize: 'skip' | 'fatal';
}

/** Decodes a byte stream into frames. Feed it with `push`, and call `end` when the stream ends. */
export class FrameDecoder {
  private readonly littleEndian: boolean;
  /**
   * Largest payload accepted, inclusive, from the next frame on. It may change while the stream
   * runs: the bridge accepts only small frames from a connection until it is trusted.
   */
  maxBytes: number;
  private readonly oversize: 'skip' | 'fatal';
  private readonly header = new Uint8Array(4);
  private headerFill = 0;
  private payload: Uint8Array | null = null;
  private payloadFill = 0;
  private skipRemaining = 0;
  private stopped = false;

  constructor(options: FrameDecoderOptions) {
    this.littleEndian = options.endian === 'LE';
    this.maxBytes = options.maxBytes ?? MAX_FRAME_BYTES;
    this.oversize = options.oversize;
  }

  /** True after a fatal error: further input is ignored. */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** Bytes of an unfinished frame held (header, payload, or still to skip). */
  get pending(): number {
    return this.headerFill + this.payloadFill + this.skipRemaining;
  }

  push(chunk: Uint8Array): FrameEvent[] {
    const events: FrameEvent[] = [];
    let offset = 0;
    while (offset < chunk.length && !this.stopped) {
      if (this.skipRemaining > 0) {
        const n = Math.min(this.skipRemaining, chunk.length - offset);
        this.skipRemaining -= n;
        offset += n;
        continue;
      }
      if (this.payload === null) {
        // Fast path: a whole header in this chunk needs no copy.
        if (this.headerFill === 0 && chunk.length - offset >= 4) {
          const length = new DataView(chunk.buffer, chunk.byteOffset + offset, 4).getUint32(0, this.littleEndian);
          offset += 4;
          if (this.startFrame(length, events)) {
            if (chunk.length - offset >= length) {
              // Fast path: a whole payload in this chunk is read in place, without a copy.
              events.push(this.finish(chunk.subarray(offset, offset + length)));
              offset += length;
            } else {
              this.payload = new Uint8Array(length);
              this.payloadFill = 0;
            }
          }
          continue;
        }
        const n = Math.min(4 - this.headerFill, chunk.length - offset);
        this.header.set(chunk.subarray(offset, offset + n), this.headerFill);
        this.headerFill += n;
        offset += n;
        if (this.headerFill === 4) {
          this.headerFill = 0;
          const length = new DataView(this.header.buffer).getUint32(0, this.littleEndian);
          if (this.startFrame(length, events)) {
            this.payload = new Uint8Array(length);
            this.payloadFill = 0;
          }
        }
        continue;
      }
      const n = Math.min(this.payload.length - this.payloadFill, chunk.length - offset);
      this.payload.set(chunk.subarray(offset, offset + n), this.payloadFill);
      this.payloadFill += n;
      offset += n;
      if (this.payloadFill === this.payload.length) {
        const bytes = this.payload;
        this.payload = null;
        this.payloadFill = 0;
        events.push(this.finish(bytes));
      }
    }
    return events;
  }

  /** The stream ended. A frame cut short is reported (ERR_FRAME_INVALID); the decoder stops. */
  end(): FrameEvent[] {
    if (this.stopped) return [];
    this.stopped = true;
    if (this.headerFill > 0 || this.payload !== null) {
      const got = this.payload === null ? `${this.headerFill} of 4 length bytes` : `${this.payloadFill} of ${this.payload.length} payload bytes`;
      this.headerFill = 0;
      this.payload = null;
      this.payloadFill = 0;
      return [{ kind: 'error', error: new CountersignError('ERR_FRAME_INVALID', `stream ended inside a frame (${got})`), fatal: true }];
    }
    return [];
  }

  /** Check a frame's length. True when its payload should be read; false when it was refused. */
  private startFrame(length: number, events: FrameEvent[]): boolean {
    if (length === 0) {
      // An empty payload is not JSON; the next 4 bytes are the next length, so nothing is lost.
      events.push({ kind: 'error', error: new CountersignError('ERR_FRAME_INVALID', 'empty frame (length 0): expected a JSON message'), fatal: false });
      return false;
    }
    if (length > this.maxBytes) {
      const error = new CountersignError('ERR_FRAME_TOO_LARGE', `frame of ${length} bytes; at most ${this.maxBytes} are allowed`);
      if (this.oversize === 'skip') {
        this.skipRemaining = length;
        events.push({ kind: 'error', error, fatal: false });
      } else {
        this.stopped = true;
        events.push({ kind: 'error', error, fatal: true });
      }
      return false;
    }
    return true;
  }

  private finish(bytes: Uint8Array): FrameEvent {
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch (cause) {
      return { kind: 'error', error: new CountersignError('ERR_FRAME_INVALID', 'frame payload is not valid UTF-8', { cause }), fatal: false };
    }
    try {
      return { kind: 'frame', value: JSON.parse(text) as unknown, bytes };
    } catch (cause) {
      return { kind: 'error', error: new CountersignError('ERR_FRAME_INVALID', 'frame payload is not valid JSON', { cause }), fatal: false };
    }
  }
}
