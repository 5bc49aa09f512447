import { ensureFirstKey } from './auth/first-key.js';
import { loadConfig } from './config.js';
import { checkServingRuntime, startService } from './service.js';

/** `npm start`: serve with the environment over embedded defaults; SIGTERM drains and exits 0. */
async function main(): Promise<void> {
  const config = loadConfig();
  checkServingRuntime(); // before anything is created: a runtime that cannot serve stops here
  await ensureFirstKey(config, process.stdout);
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
