import path from 'node:path';
import { writeFileAtomic } from '../persistence/atomic-file.js';
import { FileKeyStore } from './key-store.js';
import { loadKeySecret } from './secret.js';

/** The settings a first key depends on (the service's configuration has them). */
export interface KeyPlaces {
  dataDir: string;
  secretFile: string;
  databaseUrl: string | undefined;
}

/**
 * Where a first key is left when no terminal can show it: beside the HMAC secret, mode 0600, named
 * by the key's id, so instances that share a secret directory never overwrite each other's key.
 */
export const firstKeyFile = (places: KeyPlaces, keyId: string) => path.join(path.dirname(places.secretFile), `first-api-key-${keyId}`);

/**
 * One node: creates a key when none exists and shows it once, like a reveal page. On a terminal it
 * is printed there; otherwise (a container, a pipe, a log collector) the output is a log stream, so
 * only the key's id and the path of a 0600 file holding it are written. Replicas sharing a database
 * create none (they would race): use the keys CLI.
 */
export async function ensureFirstKey(config: KeyPlaces, out: NodeJS.WriteStream): Promise<void> {
  if (config.databaseUrl) return;
  const keys = new FileKeyStore(config.dataDir, loadKeySecret(config.secretFile));
  if ((await keys.list()).length > 0) return;
  const { record, key } = await keys.create({ name: 'default' });
  const created = `\nNo API key existed, so one was created (id ${record.id}, owner ${record.owner}).\n`;
  if (out.isTTY) {
    out.write(`${created}Store it now; only its keyed hash is kept and it cannot be shown again:\n\n  ${key}\n\n`);
    return;
  }
  const file = firstKeyFile(config, record.id);
  await writeFileAtomic(file, `${key}\n`);
  out.write(`${created}It is in ${file} (mode 0600), not in this output: store it, then delete the file.\n\n`);
}
