import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../src/paths.js';

export interface ServiceProcess {
  child: ChildProcess;
  port: number;
  stdout: () => string;
  exited: Promise<number | null>;
}

/**
 * Runs `node dist/src/main.js` (what `npm start` serves) and waits until it listens; with
 * `npm-start`, `npm start` itself (the set-up check, then the service), as a user runs it.
 */
export async function spawnService(
  env: NodeJS.ProcessEnv,
  t?: { teardown(fn: () => void): void },
  how: 'node' | 'npm-start' = 'node',
): Promise<ServiceProcess> {
  const [command, args] = how === 'node' ? [process.execPath, [path.join(ROOT, 'dist/src/main.js')]] : ['npm', ['start', '--silent']];
  const child = spawn(command, args, { cwd: ROOT, env: { ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t?.teardown(() => child.kill('SIGKILL'));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${out}`)), 120_000);
    const check = () => {
      const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', check);
    void exited.then(() => reject(new Error(`service exited:\n${out}`)));
  });
  return { child, port, stdout: () => out, exited };
}

/**
 * The key a first start created: not in the output (a pipe is a log stream), but in the 0600 file
 * the output names. Undefined when none was created.
 */
export function firstKey(svc: ServiceProcess): string | undefined {
  const file = /It is in (\S+) \(mode 0600\)/.exec(svc.stdout())?.[1];
  return file === undefined ? undefined : readFileSync(file, 'utf8').trim();
}

/** Runs the keys CLI with the service's environment. */
export function keysCli(env: NodeJS.ProcessEnv, args: string[]): { code: number | null; stdout: string } {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'dist/src/cli/keys.js'), ...args], { env, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout + r.stderr };
}

/** `keys create … --json` through the CLI: the new key's id and key (it throws if the CLI fails). */
export function createKeyWithCli(env: NodeJS.ProcessEnv, args: string[]): { id: string; key: string } {
  const r = keysCli(env, ['create', ...args, '--json']);
  const line = r.stdout.split('\n').find((l) => l.includes('"key":"prk_'));
  if (r.code !== 0 || !line) throw new Error(`keys create failed: ${r.stdout}`);
  return JSON.parse(line) as { id: string; key: string };
}
