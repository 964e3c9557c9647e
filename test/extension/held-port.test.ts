import { describe, expect, it, vi } from 'vitest';

vi.mock('wxt/browser', () => ({ browser: { runtime: {} } }));
const { holdPort } = await import('../../src/extension/held-port');

interface FakePort {
  error: { message: string } | undefined;
  onMessage: { addListener(l: (m: unknown) => void): void };
  onDisconnect: { addListener(l: (p: FakePort) => void): void };
  receive(m: unknown): void;
  close(message?: string): void;
}

/** A runtime.Port stand-in whose events the test fires, as the browser would, one at a time. */
function fakePort(): FakePort {
  const onMessage: Array<(m: unknown) => void> = [];
  const onDisconnect: Array<(p: FakePort) => void> = [];
  const port: FakePort = {
    error: undefined,
    onMessage: { addListener: (l) => void onMessage.push(l) },
    onDisconnect: { addListener: (l) => void onDisconnect.push(l) },
    receive: (m) => onMessage.forEach((l) => l(m)),
    close: (message) => {
      port.error = message === undefined ? undefined : { message };
      onDisconnect.forEach((l) => l(port));
      // The browser's reason is only there during the event.
      port.error = undefined;
    },
  };
  return port;
}
const reasonOf = (p: FakePort) => p.error?.message ?? 'bridge closed';

function recorder() {
  const seen: string[] = [];
  return { seen, listeners: { message: (raw: unknown) => seen.push(`message ${JSON.stringify(raw)}`), disconnect: (reason: string) => seen.push(`disconnect ${reason}`) } };
}

describe('holdPort: a port opened before its owner listens (the worker opens the bridge first)', () => {
  it('delivers the messages that arrived before listen, in order, then the later ones as they come', () => {
    const port = fakePort();
    const opened = holdPort(() => port, reasonOf);
    if (!opened.ok) throw new Error(opened.error);
    port.receive({ type: 'bridge_ready', n: 1 });
    port.receive({ type: 'bridge_error', n: 2 });
    const { seen, listeners } = recorder();
    expect(seen).toEqual([]);
    opened.held.listen(listeners);
    expect(seen).toEqual(['message {"type":"bridge_ready","n":1}', 'message {"type":"bridge_error","n":2}']);
    port.receive({ n: 3 });
    expect(seen.at(-1)).toBe('message {"n":3}');
    expect(opened.held.port).toBe(port);
  });

  it('keeps the reason of a close that came before listen, read while the browser still gave it', () => {
    const port = fakePort();
    const opened = holdPort(() => port, reasonOf);
    if (!opened.ok) throw new Error(opened.error);
    port.receive({ n: 1 });
    port.close('Specified native messaging host not found.');
    const { seen, listeners } = recorder();
    opened.held.listen(listeners);
    expect(seen).toEqual(['message {"n":1}', 'disconnect Specified native messaging host not found.']);
  });

  it('passes events straight through once listened to', () => {
    const port = fakePort();
    const opened = holdPort(() => port, reasonOf);
    if (!opened.ok) throw new Error(opened.error);
    const { seen, listeners } = recorder();
    opened.held.listen(listeners);
    port.close();
    expect(seen).toEqual(['disconnect bridge closed']);
  });

  it('says why when the browser refuses to open the port, and opens nothing', () => {
    const opened = holdPort<FakePort>(() => {
      throw new Error('Access to the specified native messaging host is forbidden.');
    }, reasonOf);
    expect(opened).toEqual({ ok: false, error: 'Access to the specified native messaging host is forbidden.' });
  });

  it('takes one set of listeners: a second would split the events between two owners', () => {
    const opened = holdPort(() => fakePort(), reasonOf);
    if (!opened.ok) throw new Error(opened.error);
    opened.held.listen(recorder().listeners);
    expect(() => opened.held.listen(recorder().listeners)).toThrow(/already has its listeners/);
  });
});
