import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HeldCalls } from '../../src/gateway/held-calls';

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('HeldCalls', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs identical calls once and gives both the result', async () => {
    const held = new HeldCalls<string>(5000);
    const work = deferred<string>();
    const start = vi.fn(() => work.promise);
    const a = held.run('k', Date.now() + 60_000, start, new AbortController().signal);
    const b = held.run('k', Date.now() + 60_000, start, new AbortController().signal);
    await vi.advanceTimersByTimeAsync(0);
    work.resolve('ran');
    await expect(a).resolves.toBe('ran');
    await expect(b).resolves.toBe('ran');
    expect(start).toHaveBeenCalledTimes(1);
    expect(held.size).toBe(0);
  });

  it('starts new work for a call after a delivered result (calling again asks again)', async () => {
    const held = new HeldCalls<number>(5000);
    let n = 0;
    const start = vi.fn(async () => ++n);
    await expect(held.run('k', Date.now() + 60_000, start, new AbortController().signal)).resolves.toBe(1);
    await expect(held.run('k', Date.now() + 60_000, start, new AbortController().signal)).resolves.toBe(2);
  });

  it('a caller who leaves is rejected; the work is aborted after the grace when nobody is left', async () => {
    const held = new HeldCalls<string>(5000);
    let workSignal: AbortSignal | undefined;
    const start = (signal: AbortSignal) => {
      workSignal = signal;
      return new Promise<string>(() => undefined);
    };
    const caller = new AbortController();
    const a = held.run('k', Date.now() + 60_000, start, caller.signal);
    await vi.advanceTimersByTimeAsync(0);
    caller.abort(new Error('client cancelled'));
    await expect(a).rejects.toThrow('client cancelled');
    await vi.advanceTimersByTimeAsync(4999);
    expect(workSignal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(workSignal?.aborted).toBe(true);
    expect(held.size).toBe(0);
  });

  it('an identical retry within the grace joins the same work (one prompt), and gets its result', async () => {
    const held = new HeldCalls<string>(5000);
    const work = deferred<string>();
    const start = vi.fn((_signal: AbortSignal) => work.promise);
    const first = new AbortController();
    const a = held.run('k', Date.now() + 60_000, start, first.signal);
    a.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(0);
    first.abort(new Error('timed out'));
    await vi.advanceTimersByTimeAsync(3000);
    const b = held.run('k', Date.now() + 60_000, start, new AbortController().signal);
    await vi.advanceTimersByTimeAsync(10_000);
    work.resolve('ran once');
    await expect(b).resolves.toBe('ran once');
    expect(start).toHaveBeenCalledTimes(1);
    expect(start.mock.calls[0]![0].aborted).toBe(false);
  });

  it('a result that finished while nobody waited goes to the next identical call, without running again', async () => {
    const held = new HeldCalls<string>(5000);
    const work = deferred<string>();
    const start = vi.fn(() => work.promise);
    const first = new AbortController();
    const a = held.run('k', Date.now() + 60_000, start, first.signal);
    a.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(0);
    first.abort(new Error('timed out'));
    work.resolve('approved in the grace, ran');
    await vi.advanceTimersByTimeAsync(30_000);
    await expect(held.run('k', Date.now() + 60_000, start, new AbortController().signal)).resolves.toBe('approved in the grace, ran');
    expect(start).toHaveBeenCalledTimes(1);
  });

  it('a kept result is forgotten at the expiry: the call after that is new work', async () => {
    const held = new HeldCalls<string>(5000);
    const start = vi.fn(async (_signal: AbortSignal) => 'r');
    const first = new AbortController();
    const expires = Date.now() + 20_000;
    const a = held.run('k', expires, async (s) => {
      first.abort(new Error('gone'));
      return start(s);
    }, first.signal);
    a.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(21_000);
    expect(held.size).toBe(0);
    await held.run('k', Date.now() + 20_000, start, new AbortController().signal);
    expect(start).toHaveBeenCalledTimes(2);
  });

  it('different arguments are different work', async () => {
    const held = new HeldCalls<string>(5000);
    const start = vi.fn(async () => 'r');
    await Promise.all([held.run('a', Date.now() + 1000, start, new AbortController().signal), held.run('b', Date.now() + 1000, start, new AbortController().signal)]);
    expect(start).toHaveBeenCalledTimes(2);
  });

  it('a failure reaches every waiter and is not kept', async () => {
    const held = new HeldCalls<string>(5000);
    const start = vi.fn(async () => {
      throw new Error('upstream broke');
    });
    await expect(held.run('k', Date.now() + 1000, start, new AbortController().signal)).rejects.toThrow('upstream broke');
    expect(held.size).toBe(0);
  });

  it('refuses a caller whose signal is already aborted, without starting work', () => {
    const held = new HeldCalls<string>(5000);
    const start = vi.fn(async () => 'r');
    const c = new AbortController();
    c.abort(new Error('already'));
    expect(() => held.run('k', Date.now() + 1000, start, c.signal)).toThrow('already');
    expect(start).not.toHaveBeenCalled();
  });
});
