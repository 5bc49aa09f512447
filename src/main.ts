import { loadConfig } from './config.js';
import { startService } from './service.js';

/** `npm start`: serve with the environment over embedded defaults; SIGTERM drains and exits 0. */
async function main(): Promise<void> {
  const config = loadConfig();
  const service = await startService(config);
  if ((await service.keys.list()).length === 0) {
    const { record, key } = await service.keys.create({ name: 'default' });
    // Shown once, like a reveal page: only its keyed hash is stored.
    process.stdout.write(
      `\nNo API key existed, so one was created (id ${record.id}, owner ${record.owner}).\n` +
        `Store it now; it cannot be shown again:\n\n  ${key}\n\n` +
        `Try: curl -H "X-API-Key: ${key}" -F file=@../shared/data/prices_wide_sample.csv http://localhost:${service.port}/api/v1/risk/datasets/upload\n\n`,
    );
  }
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
