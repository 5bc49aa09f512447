import { FileKeyStore } from './auth/key-store.js';
import { loadKeySecret } from './auth/secret.js';
import { loadConfig, type Config } from './config.js';
import { startService } from './service.js';

/**
 * One node: creates a key when none exists and shows it once, like a reveal page. Replicas sharing
 * a database do not (they would race, and a key in a container log is a leak): use the keys CLI.
 */
async function ensureFirstKey(config: Config): Promise<void> {
  if (config.databaseUrl) return;
  const keys = new FileKeyStore(config.dataDir, loadKeySecret(config.secretFile));
  if ((await keys.list()).length > 0) return;
  const { record, key } = await keys.create({ name: 'default' });
  process.stdout.write(
    `\nNo API key existed, so one was created (id ${record.id}, owner ${record.owner}).\n` +
      `Store it now; only its keyed hash is kept and it cannot be shown again:\n\n  ${key}\n\n`,
  );
}

/** `npm start`: serve with the environment over embedded defaults; SIGTERM drains and exits 0. */
async function main(): Promise<void> {
  const config = loadConfig();
  await ensureFirstKey(config);
  const service = await startService(config);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.log.info({ signal }, 'draining');
    service.shutdown().then(
      () => process.exit(0),
      (e: unknown) => {
        service.log.error({ err: e }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((e: unknown) => {
  process.stderr.write(`failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
