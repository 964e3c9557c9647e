import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FrameDecoder, MAX_FRAME_BYTES, encodeFrame, encodeJsonFrame, nativeEndianness, type FrameEvent } from '../../src/protocol/bridge-framing';
import { isCountersignError } from '../../src/protocol/errors';

const enc = new TextEncoder();

function header(length: number, endian: 'LE' | 'BE'): Uint8Array {
  const h = new Uint8Array(4);
  new DataView(h.buffer).setUint32(0, length, endian === 'LE');
  return h;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function feed(decoder: FrameDecoder, bytes: Uint8Array, chunkSizes: number[] = [bytes.length]): FrameEvent[] {
  const events: FrameEvent[] = [];
  let o = 0;
  let i = 0;
  while (o < bytes.length) {
    const n = Math.max(1, chunkSizes[i++ % chunkSizes.length] ?? 1);
    events.push(...decoder.push(bytes.subarray(o, o + n)));
    o += n;
  }
  return events;
}

const values = (events: FrameEvent[]) => events.map((e) => (e.kind === 'frame' ? e.value : { error: e.error.code, fatal: e.fatal }));

describe('encodeFrame', () => {
  it('writes the length in the requested byte order', () => {
    const payload = enc.encode('{"a":1}');
    expect([...encodeFrame(payload, 'LE').subarray(0, 4)]).toEqual([7, 0, 0, 0]);
    expect([...encodeFrame(payload, 'BE').subarray(0, 4)]).toEqual([0, 0, 0, 7]);
  });

  it('accepts exactly 1 MiB and refuses one byte more', () => {
    expect(encodeFrame(new Uint8Array(MAX_FRAME_BYTES), 'LE').length).toBe(MAX_FRAME_BYTES + 4);
    expect(() => encodeFrame(new Uint8Array(MAX_FRAME_BYTES + 1), 'LE')).toThrow(expect.objectContaining({ code: 'ERR_FRAME_TOO_LARGE' }));
  });

  it('refuses values JSON cannot carry with ERR_ARGUMENT_INVALID', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    for (const bad of [undefined, 10n, cyclic]) {
      let caught: unknown;
      try {
        encodeJsonFrame(bad, 'BE');
      } catch (e) {
        caught = e;
      }
      expect(isCountersignError(caught, 'ERR_ARGUMENT_INVALID')).toBe(true);
    }
  });

  it('knows this machine is little-endian (x86, ARM)', () => {
    expect(nativeEndianness()).toBe('LE');
  });
});

describe('FrameDecoder', () => {
  for (const endian of ['LE', 'BE'] as const) {
    it(`reads many frames from one chunk and one frame split byte by byte (${endian})`, () => {
      const frames = [{ a: 1 }, [1, 2, 3], 'text', { nested: { é: '✓' } }];
      const bytes = concat(...frames.map((f) => encodeJsonFrame(f, endian)));
      expect(values(feed(new FrameDecoder({ endian, oversize: 'fatal' }), bytes))).toEqual(frames);
      expect(values(feed(new FrameDecoder({ endian, oversize: 'fatal' }), bytes, [1]))).toEqual(frames);
      expect(values(feed(new FrameDecoder({ endian, oversize: 'fatal' }), bytes, [3, 5, 2, 7]))).toEqual(frames);
    });
  }

  it('returns the exact payload bytes of each frame', () => {
    const payload = enc.encode(' { "b" : 2 } ');
    const [event] = new FrameDecoder({ endian: 'BE', oversize: 'fatal' }).push(encodeFrame(payload, 'BE'));
    expect(event?.kind === 'frame' && [...event.bytes]).toEqual([...payload]);
  });

  it('accepts a payload of exactly 1 MiB', () => {
    const text = `"${'x'.repeat(MAX_FRAME_BYTES - 2)}"`;
    const events = feed(new FrameDecoder({ endian: 'LE', oversize: 'fatal' }), encodeFrame(enc.encode(text), 'LE'), [65536]);
    expect(events).toHaveLength(1);
    expect(events[0]?.kind === 'frame' && (events[0].value as string).length).toBe(MAX_FRAME_BYTES - 2);
  });

  it('skips a frame of 1 MiB + 1 (stdio) and reads the next one', () => {
    const big = concat(header(MAX_FRAME_BYTES + 1, 'LE'), new Uint8Array(MAX_FRAME_BYTES + 1).fill(0x7b));
    const bytes = concat(big, encodeJsonFrame({ after: true }, 'LE'));
    const decoder = new FrameDecoder({ endian: 'LE', oversize: 'skip' });
    expect(values(feed(decoder, bytes, [4096, 1, 70000]))).toEqual([{ error: 'ERR_FRAME_TOO_LARGE', fatal: false }, { after: true }]);
    expect(decoder.pending).toBe(0);
  });

  it('stops at a frame of 1 MiB + 1 (socket) and ignores what follows', () => {
    const decoder = new FrameDecoder({ endian: 'BE', oversize: 'fatal' });
    const bytes = concat(header(MAX_FRAME_BYTES + 1, 'BE'), encodeJsonFrame({ after: true }, 'BE'));
    expect(values(feed(decoder, bytes))).toEqual([{ error: 'ERR_FRAME_TOO_LARGE', fatal: true }]);
    expect(decoder.isStopped).toBe(true);
    expect(decoder.push(encodeJsonFrame({ more: 1 }, 'BE'))).toEqual([]);
  });

  it('treats garbage lengths as too large: 0xFFFFFFFF, "GET ", "{\\"ty"', () => {
    for (const garbage of [new Uint8Array([0xff, 0xff, 0xff, 0xff]), enc.encode('GET '), enc.encode('{"ty')]) {
      const events = new FrameDecoder({ endian: 'BE', oversize: 'fatal' }).push(garbage);
      expect(values(events)).toEqual([{ error: 'ERR_FRAME_TOO_LARGE', fatal: true }]);
    }
  });

  it('reports an empty frame and carries on', () => {
    const bytes = concat(header(0, 'LE'), encodeJsonFrame(1, 'LE'));
    expect(values(feed(new FrameDecoder({ endian: 'LE', oversize: 'skip' }), bytes))).toEqual([{ error: 'ERR_FRAME_INVALID', fatal: false }, 1]);
  });

  it('refuses invalid UTF-8 (never replaced by U+FFFD) and carries on', () => {
    const bad = [
      [0xc3, 0x28], // bad continuation
      [0x80], // lone continuation
      [0xc0, 0xaf], // overlong "/"
      [0xed, 0xa0, 0x80], // an encoded surrogate (CESU-8)
      [0x22, 0xf4, 0x90, 0x80, 0x80, 0x22], // above U+10FFFF, inside a JSON string
      [0x22, 0xe2, 0x82, 0x22], // truncated sequence
    ];
    for (const b of bad) {
      const bytes = concat(encodeFrame(new Uint8Array(b), 'LE'), encodeJsonFrame('ok', 'LE'));
      expect(values(feed(new FrameDecoder({ endian: 'LE', oversize: 'skip' }), bytes))).toEqual([{ error: 'ERR_FRAME_INVALID', fatal: false }, 'ok']);
    }
  });

  it('refuses invalid JSON, including a byte-order mark, and carries on', () => {
    for (const text of ['{', '{"a":1,}', "{'a':1}", 'NaN', '\uFEFF{}', '{"a":1} {"b":2}', '']) {
      const payload = enc.encode(text);
      const bytes = concat(payload.length === 0 ? header(0, 'LE') : encodeFrame(payload, 'LE'), encodeJsonFrame('ok', 'LE'));
      expect(values(feed(new FrameDecoder({ endian: 'LE', oversize: 'skip' }), bytes))).toEqual([{ error: 'ERR_FRAME_INVALID', fatal: false }, 'ok']);
    }
  });

  it('reports a stream that ends inside a frame', () => {
    for (const cut of [2, 4, 9]) {
      const decoder = new FrameDecoder({ endian: 'LE', oversize: 'skip' });
      expect(decoder.push(encodeJsonFrame({ abc: 1 }, 'LE').subarray(0, cut))).toEqual([]);
      expect(values(decoder.end())).toEqual([{ error: 'ERR_FRAME_INVALID', fatal: true }]);
    }
    expect(new FrameDecoder({ endian: 'LE', oversize: 'skip' }).end()).toEqual([]);
  });

  it('property: any chunking of any frames decodes to the same values', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue(), { minLength: 1, maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 10 }),
        fc.constantFrom<'LE' | 'BE'>('LE', 'BE'),
        (frames, chunks, endian) => {
          const bytes = concat(...frames.map((f) => encodeJsonFrame(f, endian)));
          const decoded = values(feed(new FrameDecoder({ endian, oversize: 'fatal' }), bytes, chunks));
          // JSON round trip: -0 becomes 0, like any JSON peer would see it.
          expect(decoded).toEqual(frames.map((f) => JSON.parse(JSON.stringify(f)) as unknown));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('property: random bytes never throw; every event is a frame or a typed error', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 5 }), (bytes, chunks) => {
        const decoder = new FrameDecoder({ endian: 'LE', oversize: 'skip', maxBytes: 64 });
        for (const e of [...feed(decoder, bytes, chunks), ...decoder.end()]) {
          if (e.kind === 'error') expect(['ERR_FRAME_INVALID', 'ERR_FRAME_TOO_LARGE']).toContain(e.error.code);
        }
      }),
      { numRuns: 500 },
    );
  });
});
