import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

/**
 * Fault injection for the tests, in one place. Inert unless the process runs under test
 * (NODE_ENV=test) and a fault is armed: a test writes the fault's name into the file that
 * ENGINE_FAULT_FILE or STORAGE_FAULT_FILE names, and the next engine task or atomic write consumes
 * it. A production process never fails on purpose, whatever its environment holds otherwise.
 */
function takeFault(variable: 'ENGINE_FAULT_FILE' | 'STORAGE_FAULT_FILE'): string | null {
  if (process.env.NODE_ENV !== 'test') return null;
  const file = process.env[variable];
  if (!file) return null;
  try {
    const fault = readFileSync(file, 'utf8').trim();
    rmSync(file);
    return fault;
  } catch {
    return null; // none armed (or another thread took it)
  }
}

/**
 * "hold": the task waits, before it runs, until the test lets it go. It writes `<file>.held` when it
 * starts waiting and runs once `<file>.release` exists (which it removes), so a test can act while
 * a task is known to be in flight: an ordering, never a timing.
 */
function holdUntilReleased(file: string): void {
  const release = `${file}.release`;
  const nap = new Int32Array(new SharedArrayBuffer(4));
  writeFileSync(`${file}.held`, '');
  while (!existsSync(release)) Atomics.wait(nap, 0, 0, 5);
  rmSync(release);
  rmSync(`${file}.held`);
}

/** Engine workers: "throw", "exit", "oom" or "hold" in the next task. */
export function injectEngineFault(): void {
  const fault = takeFault('ENGINE_FAULT_FILE');
  if (fault === 'hold') holdUntilReleased(process.env.ENGINE_FAULT_FILE!);
  if (fault === 'throw') throw new Error('injected fault');
  if (fault === 'exit') process.exit(3);
  if (fault === 'oom') {
    const hoard: number[][] = [];
    for (;;) hoard.push(new Array<number>(1 << 20).fill(1));
  }
}

/** Atomic writes: "enospc" (the write fails part-way) or "eio" (fsync fails), or null. */
export function takeStorageFault(): 'enospc' | 'eio' | null {
  const fault = takeFault('STORAGE_FAULT_FILE');
  return fault === 'enospc' || fault === 'eio' ? fault : null;
}
