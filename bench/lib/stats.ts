export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export interface TailSummary {
  p50: number;
  p99: number;
  p999: number;
  max: number;
}

/** p50, p99, p99.9 (each the ⌈q·n⌉-th smallest) and the maximum of a latency sample. */
export function tailSummary(xs: number[]): TailSummary {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? NaN;
  return { p50: at(0.5), p99: at(0.99), p999: at(0.999), max: s[s.length - 1] ?? NaN };
}

/** Runs each labelled task `repeats` times, interleaved (A B C A B C …); medians in ms, and every round's times. */
export async function interleaved<T>(
  tasks: Record<string, () => T | Promise<T>>,
  repeats: number,
): Promise<{ ms: Record<string, number>; last: Record<string, T>; samples: Record<string, number[]> }> {
  const times: Record<string, number[]> = {};
  const last: Record<string, T> = {};
  for (let r = 0; r < repeats; r++) {
    for (const [name, task] of Object.entries(tasks)) {
      const start = performance.now();
      last[name] = await task();
      (times[name] ??= []).push(performance.now() - start);
    }
  }
  return { ms: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])), last, samples: times };
}

/**
 * The median over the rounds of a's time / b's time in the same round: a load that comes and goes
 * between rounds lands on both sides of each ratio.
 */
export function pairedRatio(samples: Record<string, number[]>, a: string, b: string): number {
  return median(samples[a]!.map((x, i) => x / samples[b]![i]!));
}

export function progress(line: string): void {
  process.stdout.write(line + '\n');
}

/**
 * Throws unless two Monte Carlo estimates of one figure (other draws or another method) differ by
 * at most `z` of their combined standard error: a fast wrong engine fails before it is timed.
 */
export function agreeWithinErrors(what: string, a: number, seA: number, b: number, seB: number, z = 4): void {
  const combined = Math.hypot(seA, seB);
  if (!(combined > 0 && Math.abs(a - b) <= z * combined))
    throw new Error(`${what}: ${a} against ${b}, ${(Math.abs(a - b) / combined).toFixed(1)} combined standard errors (${combined.toPrecision(3)}) apart`);
}
