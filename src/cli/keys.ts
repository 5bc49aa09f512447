import { parseArgs } from 'node:util';
import { destination, pino } from 'pino';
import { type KeyStore } from '../auth/key-store.js';
import { loadKeySecret } from '../auth/secret.js';
import { openKeyStore } from '../backends.js';
import { loadConfig } from '../config.js';

const USAGE = `usage:
  npm run keys -- create --name NAME [--owner OWNER] [--upload-limit N] [--calculate-limit N] [--json]
  npm run keys -- list [--json]
  npm run keys -- revoke ID`;

function positiveInt(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
  return n;
}

/** Key management on the service's own store: the key file, or PostgreSQL when DATABASE_URL is set. */
export async function runKeysCli(argv: string[], out: (line: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      owner: { type: 'string' },
      'upload-limit': { type: 'string' },
      'calculate-limit': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const config = loadConfig();
  const { keys: store, close } = await openKeyStore(config, loadKeySecret(config.secretFile), pino({ level: 'warn' }, destination(2)));
  try {
    return await runCommand(store, positionals, values, out);
  } finally {
    await close();
  }
}

async function runCommand(
  store: KeyStore,
  positionals: string[],
  values: { name?: string; owner?: string; 'upload-limit'?: string; 'calculate-limit'?: string; json?: boolean },
  out: (line: string) => void,
): Promise<number> {
  const [command, arg] = positionals;
  if (command === 'create') {
    if (!values.name) throw new Error('create needs --name');
    const { record, key } = await store.create({
      name: values.name,
      ...(values.owner !== undefined ? { owner: values.owner } : {}),
      ...(values['upload-limit'] !== undefined ? { uploadLimit: positiveInt('upload-limit', values['upload-limit'])! } : {}),
      ...(values['calculate-limit'] !== undefined ? { calculateLimit: positiveInt('calculate-limit', values['calculate-limit'])! } : {}),
    });
    if (values.json) {
      out(JSON.stringify({ id: record.id, name: record.name, owner: record.owner, key, created_at: record.created_at }));
    } else {
      out(`Created key ${record.id} (name ${record.name}, owner ${record.owner}).`);
      out('Store it now; it is shown only this once:');
      out(key);
    }
    return 0;
  }
  if (command === 'list') {
    for (const k of await store.list()) {
      const view = { id: k.id, name: k.name, owner: k.owner, created_at: k.created_at, revoked: k.revoked };
      out(values.json ? JSON.stringify(view) : `${k.id}\t${k.name}\t${k.owner}\t${k.created_at}\t${k.revoked ? 'revoked' : 'active'}`);
    }
    return 0;
  }
  if (command === 'revoke' && arg) {
    if (!(await store.revoke(arg))) {
      out(`No active key ${arg}.`);
      return 1;
    }
    out(`Revoked ${arg}.`);
    return 0;
  }
  out(USAGE);
  return 2;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runKeysCli(process.argv.slice(2), (line) => process.stdout.write(line + '\n')).then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n${USAGE}\n`);
      process.exit(2);
    },
  );
}
