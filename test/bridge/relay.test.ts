import { statSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_FRAME_BYTES, encodeFrame } from '../../src/protocol/bridge-framing';
import { FakeAgent, NONCE, OPERATION, THUMBPRINT, approvalRequest, sleep, startInProcessBridge, type InProcessBridge } from './helpers';

// The relay, in process: a BridgeHost on PassThrough "stdio" with a real Unix socket.

let bridge: InProcessBridge | undefined;
const agents: FakeAgent[] = [];

/** An agent the fake extension has welcomed as paired: everything it sends is relayed (docs/bridge-protocol.md section 5). */
async function agent(): Promise<FakeAgent> {
  const a = await FakeAgent.connect(bridge!.socketPath);
  agents.push(a);
  return a.trusted(bridge!.extension);
}

afterEach(async () => {
  for (const a of agents.splice(0)) a.destroy();
  await bridge?.stop();
  bridge = undefined;
});

describe('bridge_hello', () => {
  it('opens the socket named after the thumbprint: folder 0700, socket 0600', async () => {
    bridge = await startInProcessBridge({ hello: false });
    const ready = await bridge.extension.hello();
    expect(ready).toMatchObject({ type: 'bridge_ready', v: 2, protocol_versions: [2], socket_path: bridge.socketPath });
    expect(statSync(path.dirname(bridge.socketPath)).mode & 0o777).toBe(0o700);
    const st = statSync(bridge.socketPath);
    expect(st.isSocket()).toBe(true);
    expect(st.mode & 0o777).toBe(0o600);
    expect(bridge.host.snapshot()).toMatchObject({ state: 'ready', thumbprint: THUMBPRINT });
  });

  it('refuses relays before bridge_hello, with no state change', async () => {
    bridge = await startInProcessBridge({ hello: false });
    bridge.extension.relay('c_x', { type: 'withdrawn', v: 2, operation_id: 'a', revision: 'b' });
    expect(await bridge.extension.frames.nextOfType('bridge_error')).toMatchObject({ code: 'ERR_BRIDGE_MESSAGE_INVALID', conn: 'c_x' });
    expect(bridge.host.snapshot().state).toBe('waiting');
    expect(existsSync(bridge.socketPath)).toBe(false);
  });

  it('answers a repeated bridge_hello again, and refuses another key', async () => {
    bridge = await startInProcessBridge();
    expect(await bridge.extension.hello()).toMatchObject({ type: 'bridge_ready' });
    const other = await bridge.extension.hello('NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs');
    expect(other).toMatchObject({ type: 'bridge_error', code: 'ERR_BRIDGE_MESSAGE_INVALID' });
    expect(bridge.host.snapshot().thumbprint).toBe(THUMBPRINT);
  });

  it('refuses a thumbprint that is not canonical base64url of 32 bytes', async () => {
    bridge = await startInProcessBridge({ hello: false });
    // Same bytes as a valid thumbprint but with non-zero unused bits: a second spelling, refused.
    const reply = await bridge.extension.hello(`${THUMBPRINT.slice(0, 42)}l`);
    expect(reply).toMatchObject({ type: 'bridge_error', code: 'ERR_BRIDGE_MESSAGE_INVALID' });
    expect(bridge.host.snapshot().state).toBe('waiting');
  });
});

describe('relay', () => {
  it('routes three agents at once by connection id, byte for byte', async () => {
    bridge = await startInProcessBridge();
    const [a, b, c] = await Promise.all([agent(), agent(), agent()]);
    const conns = [a.conn, b.conn, c.conn];
    expect(new Set(conns).size).toBe(3);
    // Each was announced with its first message (its hello).
    for (const conn of conns) {
      expect(await bridge.extension.frames.next((m) => m['type'] === 'agent_connected' && m['conn'] === conn)).toMatchObject({ v: 2 });
    }
    // Each agent asks; an unknown member travels on untouched (forward compatibility).
    const all = [a, b, c];
    all.forEach((x, i) => x.send({ ...approvalRequest(`req_${i}`), x_future: { keep: true } }));
    for (const [i, x] of all.entries()) {
      const relay = await bridge.extension.frames.next((m) => m['type'] === 'relay' && m['conn'] === x.conn);
      expect(relay['message']).toEqual({ ...approvalRequest(`req_${i}`), x_future: { keep: true } });
    }
    // Replies are routed by conn: each agent gets only its own.
    for (const [i, x] of [...all.entries()].reverse()) {
      bridge.extension.relay(x.conn, { type: 'decision', v: 2, id: `req_${i}`, status: 'expired' });
    }
    for (const [i, x] of all.entries()) {
      expect(await x.frames.nextOfType('decision')).toEqual({ type: 'decision', v: 2, id: `req_${i}`, status: 'expired' });
    }
    await sleep(50);
    for (const x of all) expect(x.frames.received).toEqual([]);
  });

  it('tells the agent its conn and the extension key in bridge_info', async () => {
    bridge = await startInProcessBridge();
    const socket = await import('node:net').then((net) => net.connect(bridge!.socketPath));
    const { FrameQueue } = await import('./helpers');
    const q = new FrameQueue(socket, 'BE');
    const info = await q.nextOfType('bridge_info');
    expect(info).toMatchObject({ v: 2, extension_key_thumbprint: THUMBPRINT, protocol_versions: [2], browser: 'chromium' });
    expect(String(info['conn'])).toMatch(/^c_[A-Za-z0-9_-]{16}$/);
    socket.destroy();
  });

  it('reports an agent that disconnects mid-request, and refuses replies to it', async () => {
    bridge = await startInProcessBridge();
    const a = await agent();
    a.send(approvalRequest('req_gone'));
    await bridge.extension.frames.next((m) => m['type'] === 'relay' && m['conn'] === a.conn);
    await a.close();
    expect(await bridge.extension.frames.nextOfType('agent_disconnected')).toEqual({ type: 'agent_disconnected', v: 2, conn: a.conn, reason: 'closed' });
    bridge.extension.relay(a.conn, { type: 'decision', v: 2, id: 'req_gone', status: 'expired' });
    expect(await bridge.extension.frames.nextOfType('bridge_error')).toMatchObject({ code: 'ERR_CONNECTION_UNKNOWN', conn: a.conn, id: 'req_gone' });
    expect(bridge.host.snapshot().conns).toEqual([]);
  });

  it('closes an agent the extension asks to close (agent_close)', async () => {
    bridge = await startInProcessBridge();
    const a = await agent();
    const b = await agent();
    bridge.extension.relay(a.conn, { type: 'error', v: 2, code: 'ERR_AUTH_FAILED', message: 'signature does not verify' });
    bridge.extension.send({ type: 'agent_close', v: 2, conn: a.conn });
    expect(await a.frames.nextOfType('error')).toMatchObject({ code: 'ERR_AUTH_FAILED' });
    await a.waitClosed();
    expect(await bridge.extension.frames.nextOfType('agent_disconnected')).toMatchObject({ conn: a.conn, reason: 'agent_close' });
    b.send({ type: 'version_query', v: 2, id: 'q1' });
    expect(await bridge.extension.frames.next((m) => m['type'] === 'relay' && m['conn'] === b.conn)).toBeTruthy();
  });

  it('answers an invalid agent message with a typed error naming the request, and keeps relaying', async () => {
    bridge = await startInProcessBridge();
    const a = await agent();
    a.send({ ...approvalRequest('req_bad'), operation: { ...OPERATION, revision: 'not valid!' } });
    expect(await a.frames.nextOfType('error')).toMatchObject({ v: 2, id: 'req_bad', code: 'ERR_OPERATION_INVALID', source: 'bridge' });
    a.send({ type: 'hello', v: 1, versions: [1] }); // a protocol v1 agent
    expect(await a.frames.nextOfType('error')).toMatchObject({ code: 'ERR_PROTOCOL_VERSION', source: 'bridge', supported_versions: [2] });
    a.send({ type: 'decision', v: 2, id: 'x', status: 'approved', jws: 'a.b.c' });
    expect(await a.frames.nextOfType('error')).toMatchObject({ code: 'ERR_BRIDGE_MESSAGE_INVALID', id: 'x' });
    a.sendPayload(new Uint8Array([0xc3, 0x28]));
    expect(await a.frames.nextOfType('error')).toMatchObject({ code: 'ERR_FRAME_INVALID' });
    a.sendPayload(new TextEncoder().encode('{"type":'));
    expect(await a.frames.nextOfType('error')).toMatchObject({ code: 'ERR_FRAME_INVALID' });
    a.send(approvalRequest('req_ok'));
    const relay = await bridge.extension.frames.nextOfType('relay');
    expect(relay).toMatchObject({ conn: a.conn, message: { id: 'req_ok', nonce: NONCE } });
    await sleep(20);
    // Nothing invalid reached the extension.
    expect(bridge.extension.frames.received.filter((m) => m['type'] === 'relay')).toEqual([]);
  });

  it('drops an agent that sends a length over 1 MiB, and only that agent', async () => {
    bridge = await startInProcessBridge();
    const a = await agent();
    const b = await agent();
    const header = new Uint8Array(4);
    new DataView(header.buffer).setUint32(0, MAX_FRAME_BYTES + 1, false);
    a.sendRaw(header);
    expect(await a.frames.nextOfType('error')).toMatchObject({ code: 'ERR_FRAME_TOO_LARGE', source: 'bridge' });
    await a.waitClosed();
    expect(await bridge.extension.frames.next((m) => m['type'] === 'agent_disconnected' && m['conn'] === a.conn)).toMatchObject({ reason: 'frame_error' });
    b.send({ type: 'version_query', v: 2, id: 'still' });
    expect(await bridge.extension.frames.nextOfType('relay')).toMatchObject({ conn: b.conn });
  });

  it('drops a non-protocol client (an HTTP request) with a typed error', async () => {
    bridge = await startInProcessBridge();
    const a = await agent();
    a.sendRaw(new TextEncoder().encode('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    expect(await a.frames.nextOfType('error')).toMatchObject({ code: 'ERR_FRAME_TOO_LARGE' });
    await a.waitClosed();
  });

  it('relays a message whose envelope is exactly 1 MiB, and refuses one byte more', async () => {
    bridge = await startInProcessBridge();
    const a = await agent();
    const prefix = `{"type":"relay","v":1,"conn":"${a.conn}","message":`;
    const base = JSON.stringify({ type: 'outcome', v: 2, id: 'o1', operation_id: 'op', revision: 'r', outcome: 'failed', detail: '' });
    // Pad with JSON whitespace (valid, and kept verbatim by the relay) to hit the limit exactly.
    const room = MAX_FRAME_BYTES - prefix.length - 1 - base.length;
    const fits = new TextEncoder().encode(base + ' '.repeat(room));
    a.sendPayload(fits);
    const relay = await bridge.extension.frames.nextOfType('relay', 10_000);
    expect(relay['message']).toMatchObject({ type: 'outcome', operation_id: 'op' });
    a.sendPayload(new TextEncoder().encode(base + ' '.repeat(room + 1)));
    expect(await a.frames.nextOfType('error', 10_000)).toMatchObject({ code: 'ERR_FRAME_TOO_LARGE' });
  });

  it('refuses agents above the connection limit with ERR_THROTTLED', async () => {
    bridge = await startInProcessBridge({ maxAgents: 2 });
    await agent();
    await agent();
    const net = await import('node:net');
    const { FrameQueue } = await import('./helpers');
    const socket = net.connect(bridge.socketPath);
    const q = new FrameQueue(socket, 'BE');
    expect(await q.nextOfType('error')).toMatchObject({ code: 'ERR_THROTTLED' });
    expect(bridge.host.snapshot().conns.length).toBe(2);
    socket.destroy();
  });
});

describe('shutdown', () => {
  it('tells every agent "companion unavailable" when stdin ends, removes the socket and exits 0', async () => {
    bridge = await startInProcessBridge();
    const all = await Promise.all([agent(), agent(), agent()]);
    bridge.extension.end();
    for (const a of all) {
      expect(await a.frames.nextOfType('companion_unavailable')).toEqual({ type: 'companion_unavailable', v: 2 });
      await a.waitClosed();
    }
    expect(await bridge.exited).toBe(0);
    expect(existsSync(bridge.socketPath)).toBe(false);
    expect(bridge.host.snapshot().state).toBe('closed');
  });

  it('frees the socket for the next bridge of the same key', async () => {
    bridge = await startInProcessBridge();
    await bridge.stop();
    bridge = await startInProcessBridge();
    // A different runtime dir each time, so check the bridge really is listening.
    const a = await agent();
    expect(a.conn).toMatch(/^c_/);
  });
});

it('sends frames to the extension in native byte order with nothing else on stdout', async () => {
  bridge = await startInProcessBridge();
  const a = await agent();
  a.send({ type: 'version_query', v: 2, id: 'q' });
  await bridge.extension.frames.nextOfType('relay');
  expect(bridge.extension.frames.errors).toEqual([]);
  expect(encodeFrame(new Uint8Array([1]), 'LE')[0]).toBe(1);
});
