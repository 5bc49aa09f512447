import { readFileSync, rmSync } from 'node:fs';

/**
 * Test-only faults: when ENGINE_FAULT_FILE is set and that file exists, the next task of any
 * worker consumes it and fails as it says: "throw", "exit" or "oom". Without the variable this is
 * a no-op, so production workers never fail on purpose.
 */
export function injectFault(): void {
  const file = process.env.ENGINE_FAULT_FILE;
  if (!file) return;
  let fault: string;
  try {
    fault = readFileSync(file, 'utf8').trim();
    rmSync(file);
  } catch {
    return; // no fault armed (or another worker took it)
  }
  if (fault === 'throw') throw new Error('injected fault');
  if (fault === 'exit') process.exit(3);
  if (fault === 'oom') {
    const hoard: number[][] = [];
    for (;;) hoard.push(new Array<number>(1 << 20).fill(1));
  }
}
