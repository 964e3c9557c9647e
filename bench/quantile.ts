/** The `q` quantile (0 to 1) of `xs`, nearest rank from below: what every benchmark here reports as p50, p90, p99. */
export function quantile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Milliseconds as the benchmarks print them: two decimals below 10 ms, one above. */
export function formatMs(ms: number): string {
  return `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
}
