/**
 * The median wall time of a synchronous function, after `warmups` untimed calls (the first calls
 * pay for JIT and caches, which is not what a benchmark here compares). In milliseconds.
 */
export function medianTime(fn: () => unknown, runs: number, warmups = 2): number {
  for (let i = 0; i < warmups; i += 1) fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}
