import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ExtensionOutbox, OUTBOX_LIMITS, type RelayOrigin } from '../../src/bridge/extension-outbox';
import { MAX_FRAME_BYTES } from '../../src/protocol/bridge-framing';

// The queue toward the extension (docs/bridge-protocol.md section 5, "When the extension does not
// read"), on a stdout stand-in that reads only when the test says so.

/** A stream that takes one write and then waits until `read()`: a browser that does not read. */
function stalledOutput(): { output: Writable; written: string[]; read(): Promise<void> } {
  const written: string[] = [];
  let pending: (() => void)[] = [];
  const output = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString('utf8'));
      pending.push(done);
    },
  });
  return {
    output,
    written,
    async read() {
      while (pending.length > 0) {
        const now = pending;
        pending = [];
        for (const done of now) done();
        await new Promise((r) => setImmediate(r));
      }
    },
  };
}

const bytes = (text: string) => new TextEncoder().encode(text);
const from = (conn: string, id: string, trusted: boolean): RelayOrigin => ({ conn, id, trusted });

describe('ExtensionOutbox', () => {
  it('the defaults: 8 MiB waiting, of which 64 KiB for connections not trusted yet', () => {
    expect(OUTBOX_LIMITS).toEqual({ maxQueuedBytes: 8 * MAX_FRAME_BYTES, maxUntrustedQueuedBytes: 65_536 });
  });

  it('writes straight through while the extension reads, and queues in order while it does not', async () => {
    const out = stalledOutput();
    const box = new ExtensionOutbox(out.output, {}, () => undefined);
    box.control(bytes('A'));
    expect(out.written).toEqual(['A']);
    expect(box.relay(bytes('B'), from('c1', 'b', true))).toBe(true);
    box.control(bytes('C'));
    expect(box.queued).toBe(2);
    await out.read();
    expect(out.written.join('')).toBe('ABC');
    expect(box.queued).toBe(0);
  });

  it('drops the oldest untrusted message first and names it; a trusted one is never dropped, and refused when nothing else makes room', async () => {
    const out = stalledOutput();
    const dropped: RelayOrigin[] = [];
    const box = new ExtensionOutbox(out.output, { maxQueuedBytes: 10, maxUntrustedQueuedBytes: 4 }, (o) => dropped.push(o));
    box.control(bytes('0'));
    expect(box.relay(bytes('uu'), from('u1', 'first', false))).toBe(true);
    expect(box.relay(bytes('vv'), from('u2', 'second', false))).toBe(true);
    // The untrusted share is full: the oldest untrusted goes.
    expect(box.relay(bytes('ww'), from('u3', 'third', false))).toBe(true);
    expect(dropped).toEqual([from('u1', 'first', false)]);
    expect(box.relay(bytes('TTTT'), from('t1', 't1', true))).toBe(true);
    // 8 of 10 bytes queued: a trusted 4 fits once the oldest untrusted one is gone.
    expect(box.relay(bytes('SSSS'), from('t1', 't2', true))).toBe(true);
    expect(dropped.map((o) => o.id)).toEqual(['first', 'second']);
    // Trusted messages fill what untrusted ones may not give back: another one is refused, and nothing is dropped for it.
    expect(box.relay(bytes('RRRR'), from('t1', 't3', true))).toBe(false);
    expect(dropped.map((o) => o.id)).toEqual(['first', 'second']);
    // A newer untrusted message makes the older one go.
    expect(box.relay(bytes('x'), from('u4', 'late', false))).toBe(true);
    box.control(bytes('!'));
    await out.read();
    expect(out.written.join('')).toBe('0TTTTSSSSx!');
    expect(dropped.map((o) => o.id)).toEqual(['first', 'second', 'third']);
  });

  it('an untrusted message larger than its share is refused at once', () => {
    const out = stalledOutput();
    const box = new ExtensionOutbox(out.output, { maxQueuedBytes: 100, maxUntrustedQueuedBytes: 4 }, () => undefined);
    box.control(bytes('0'));
    expect(box.relay(bytes('12345'), from('u1', 'big', false))).toBe(false);
    expect(box.queued).toBe(0);
  });
});
