export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Runs each labelled task `repeats` times, interleaved (A B C A B C …); medians in ms. */
export async function interleaved<T>(
  tasks: Record<string, () => T | Promise<T>>,
  repeats: number,
): Promise<{ ms: Record<string, number>; last: Record<string, T> }> {
  const times: Record<string, number[]> = {};
  const last: Record<string, T> = {};
  for (let r = 0; r < repeats; r++) {
    for (const [name, task] of Object.entries(tasks)) {
      const start = performance.now();
      last[name] = await task();
      (times[name] ??= []).push(performance.now() - start);
    }
  }
  return { ms: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])), last };
}

export function progress(line: string): void {
  process.stdout.write(line + '\n');
}
