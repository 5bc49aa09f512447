// The first key's file is named by the key's id (review L4): two instances whose secrets share a
// directory (one SECRET_FILE, two DATA_DIRs) each leave their own key, 0600, and neither overwrites
// the other's.
import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureFirstKey, firstKeyFile } from '../../src/auth/first-key.js';
import { FileKeyStore, hashKey } from '../../src/auth/key-store.js';
import { loadKeySecret } from '../../src/auth/secret.js';

/** What ensureFirstKey writes when its output is not a terminal (a log stream). */
function logStream(): { out: NodeJS.WriteStream; text: () => string } {
  let text = '';
  const out = {
    isTTY: false,
    write: (s: string) => {
      text += s;
      return true;
    },
  } as unknown as NodeJS.WriteStream;
  return { out, text: () => text };
}

t.test('two instances sharing a secret directory each keep their own first-key file', async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'first-key-'));
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  const secretFile = path.join(root, 'secrets', 'api-key-hmac');
  const made = [];
  for (const name of ['a', 'b']) {
    const places = { dataDir: path.join(root, name), secretFile, databaseUrl: undefined };
    const log = logStream();
    await ensureFirstKey(places, log.out);
    const file = /It is in (\S+) \(mode 0600\)/.exec(log.text())?.[1];
    t.ok(file, `${name}: the output names the file`);
    t.notMatch(log.text(), /prk_live_/, `${name}: the key is not in the output`);
    made.push({ places, file: file! });
  }
  t.not(made[0]!.file, made[1]!.file, 'two files');
  const secret = loadKeySecret(secretFile);
  for (const { places, file } of made) {
    const key = fs.readFileSync(file, 'utf8').trim(); // read once both have started
    const [record] = await new FileKeyStore(places.dataDir, secret).list();
    t.equal(file, firstKeyFile(places, record!.id), 'named by the key id, beside the secret');
    t.equal(path.dirname(file), path.dirname(secretFile));
    t.equal(fs.statSync(file).mode & 0o777, 0o600, 'mode 0600');
    t.equal(hashKey(secret, key), record!.hash, "the file still holds its own instance's key");
  }
});
