import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** A free loopback port (the OS picks one; it stays free long enough for the server to bind it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface Teardown {
  teardown(fn: () => void | Promise<void>): void;
}

export interface RedisServer {
  url: string;
  port: number;
  /** Kills the server (no persistence: a restart comes back empty, script cache included). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** SIGSTOP / SIGCONT: a server that accepts nothing and answers nothing (hung, not down). */
  freeze(): void;
  thaw(): void;
}

/** A real redis-server on its own loopback port, without persistence. */
export async function startRedis(t: Teardown): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'risk-redis-'));
  let child: ChildProcess | null = null;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = proc;
      let out = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${out}`)), 10_000);
      proc.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.on('exit', () => reject(new Error(`redis-server exited:\n${out}`)));
    });
  const stop = async () => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await exited;
  };
  await start();
  t.teardown(async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const signal = (sig: NodeJS.Signals) => () => void (child as ChildProcess | null)?.kill(sig);
  return { url: `redis://127.0.0.1:${port}`, port, stop, start, freeze: signal('SIGSTOP'), thaw: signal('SIGCONT') };
}

export interface PostgresServer {
  url: string;
  /** pg_ctl stop: "fast" ends sessions, "immediate" is a crash. */
  stop(mode?: 'fast' | 'immediate'): void;
  start(): void;
}

/** The newest installed PostgreSQL's bin directory, or null. */
function findPostgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(path.join(root, v, 'bin/initdb'))) : [];
  return versions.length === 0 ? null : path.join(root, versions.sort((a, b) => Number(b) - Number(a))[0]!, 'bin');
}

function postgresBin(): string {
  const bin = findPostgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed (scripts/test.sh installs it from apt)');
  return bin;
}

/** Whether redis-server and PostgreSQL are installed (scripts/test.sh installs them). */
export function backingServersInstalled(): boolean {
  return findPostgresBin() !== null && spawnSync('redis-server', ['--version']).status === 0;
}

/** PostgreSQL refuses to run as root; as root, run its tools as the postgres user apt created. */
function pgTool(bin: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const r = asRoot
    ? spawnSync('runuser', ['-u', 'postgres', '--', path.join(bin, args[0]!), ...args.slice(1)], { encoding: 'utf8' })
    : spawnSync(path.join(bin, args[0]!), args.slice(1), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args[0]} failed (${r.status}): ${r.stdout}${r.stderr}`);
}

/** A real PostgreSQL cluster in a temp directory, on its own loopback port, trust auth for user "risk". */
export async function startPostgres(t: Teardown): Promise<PostgresServer> {
  const bin = postgresBin();
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'risk-pg-'));
  if (process.getuid?.() === 0) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, uid, gid);
  }
  const data = path.join(dir, 'data');
  pgTool(bin, ['initdb', '-D', data, '-U', 'risk', '-A', 'trust', '-E', 'UTF8', '--no-instructions']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`;
  const start = () => pgTool(bin, ['pg_ctl', '-D', data, '-l', path.join(dir, 'log'), '-w', '-t', '30', '-o', options, 'start']);
  const stop = (mode: 'fast' | 'immediate' = 'fast') => pgTool(bin, ['pg_ctl', '-D', data, '-m', mode, '-w', 'stop']);
  start();
  t.teardown(() => {
    try {
      stop('immediate');
    } catch {
      // already stopped
    }
    rmSync(dir, { recursive: true, force: true });
  });
  return { url: `postgres://risk@127.0.0.1:${port}/postgres`, stop, start };
}
