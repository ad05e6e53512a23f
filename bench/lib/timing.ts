/** Latency sampling for the benchmarks: warm-up, repetitions, percentiles. */

export type Timing = {
  name: string;
  runs: number;
  p50: number;
  p95: number;
  max: number;
  mean: number;
};

/**
 * Runs `fn` `warmup` times unmeasured, then `runs` times measured, one after
 * another (no concurrency: this is the latency of one query, not throughput).
 * `fn` gets the run number, so a case can vary its input (random pages).
 */
export async function measure(
  name: string,
  fn: (run: number) => Promise<unknown>,
  options: { warmup: number; runs: number },
): Promise<Timing> {
  for (let i = 0; i < options.warmup; i++) await fn(-1 - i);
  const samples: number[] = [];
  for (let i = 0; i < options.runs; i++) {
    const started = performance.now();
    await fn(i);
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) =>
    samples[Math.min(samples.length - 1, Math.ceil(q * samples.length) - 1)]!;
  return {
    name,
    runs: samples.length,
    p50: at(0.5),
    p95: at(0.95),
    max: samples[samples.length - 1]!,
    mean: samples.reduce((a, b) => a + b, 0) / samples.length,
  };
}

export function timingTable(timings: readonly Timing[]): string {
  const ms = (n: number) => n.toFixed(2);
  const rows = timings.map((t) => [
    t.name,
    ms(t.p50),
    ms(t.p95),
    ms(t.max),
    ms(t.mean),
    String(t.runs),
  ]);
  const headers = ['query', 'p50 ms', 'p95 ms', 'max ms', 'mean ms', 'runs'];
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** A small seeded PRNG so "random" benchmark inputs are the same on every run. */
export function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}
