/**
 * Polls `probe` until it returns a value other than undefined, or throws after a generous
 * `timeoutMs`: tests wait for a condition, never for a fixed time, so a slow machine only makes them
 * slower. Returns the value and how long it took (for comments, never for assertions).
 */
export async function waitFor<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  what: string,
  timeoutMs = 20_000,
  intervalMs = 20,
): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined) return { value, ms: performance.now() - started };
    if (performance.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
export async function processCpuSeconds(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at state; utime and stime are 14, 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
