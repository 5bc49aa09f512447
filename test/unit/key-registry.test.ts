// The service's key registry over a real FileKeyStore in a temp dir: keys created after start work
// at once (a miss rereads the store), malformed keys never touch the store, revocations take effect
// on the next reload, a burst of misses shares rereads, and stop() clears the reload timer.
import t, { type Test } from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { KeyRegistry } from '../../src/auth/key-registry.js';
import { FileKeyStore } from '../../src/auth/key-store.js';
import { KEY_PREFIX, newApiKey } from '../../src/ids.js';

const NEVER = 1e9; // a reload interval no test outlives: only misses reload

/** A real file store that counts stamp() calls (each is one reread) and how many overlap. */
class CountingStore extends FileKeyStore {
  stamps = 0;
  inFlight = 0;
  maxInFlight = 0;
  failStamp = false;
  override async stamp(): Promise<string> {
    this.stamps++;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.failStamp) throw new Error('store down');
      return await super.stamp();
    } finally {
      this.inFlight--;
    }
  }
}

function setup(t: Test): { store: CountingStore; reg: KeyRegistry } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'key-registry-'));
  const secret = randomBytes(32);
  const store = new CountingStore(dir, secret);
  const reg = new KeyRegistry(store, secret);
  t.teardown(() => {
    reg.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { store, reg };
}

t.test('start() loads the existing keys', async (t) => {
  const { store, reg } = setup(t);
  const a = await store.create({ name: 'alice' });
  const b = await store.create({ name: 'bob', owner: 'team', calculateLimit: 5 });
  await store.revoke((await store.create({ name: 'old' })).record.id);
  await reg.start(NEVER);
  t.equal(reg.size, 2, 'active keys only');
  const before = store.stamps;
  t.same(await reg.lookup(a.key), a.record);
  t.match(await reg.lookup(b.key), { id: b.record.id, owner: 'team', calculate_limit: 5 });
  t.equal(store.stamps, before, 'known keys are served from memory');
});

t.test('start() on an empty data dir gives an empty registry', async (t) => {
  const { store, reg } = setup(t);
  await reg.start(NEVER);
  t.equal(reg.size, 0);
  t.equal(await store.stamp(), 'none', 'no keys file yet');
  t.equal(await reg.lookup(newApiKey()), null);
});

t.test('a key created after start works for the very next lookup', async (t) => {
  const { store, reg } = setup(t);
  await reg.start(NEVER);
  const created = await store.create({ name: 'new' });
  const before = store.stamps;
  t.same(await reg.lookup(created.key), created.record, 'found on the first try');
  t.equal(store.stamps, before + 1, 'by exactly one reread');
  t.equal(reg.size, 1);
  t.same(await reg.lookup(created.key), created.record, 'and then from memory');
  t.equal(store.stamps, before + 1);
});

t.test('malformed keys are null without touching the store', async (t) => {
  const { store, reg } = setup(t);
  const real = await store.create({ name: 'x' });
  await reg.start(NEVER);
  const before = store.stamps;
  const body = real.key.slice(KEY_PREFIX.length);
  for (const k of [
    '',
    'x',
    body,
    KEY_PREFIX,
    KEY_PREFIX + body.slice(1),
    real.key + 'A',
    real.key + '\n',
    ' ' + real.key,
    real.key.toUpperCase(),
    KEY_PREFIX + body.slice(1) + '-',
    KEY_PREFIX + body.slice(1) + 'é',
    'prk_test_' + body,
  ]) {
    t.equal(await reg.lookup(k), null, JSON.stringify(k));
  }
  t.equal(store.stamps, before, 'no reread for any of them');
});

t.test('an unknown well-formed key is null after one reread', async (t) => {
  const { store, reg } = setup(t);
  await store.create({ name: 'x' });
  await reg.start(NEVER);
  const before = store.stamps;
  t.equal(await reg.lookup(newApiKey()), null);
  t.equal(store.stamps, before + 1, 'one reread per sequential miss');
  t.equal(await reg.lookup(KEY_PREFIX + '0'.repeat(32)), null);
  t.equal(store.stamps, before + 2);
  t.equal(reg.size, 1, 'the known key stays');
});

t.test('a key hashed under another secret is unknown', async (t) => {
  const { store, reg } = setup(t);
  const other = new FileKeyStore(path.dirname(store.file), randomBytes(32));
  const foreign = await other.create({ name: 'foreign' });
  await reg.start(NEVER);
  t.equal(reg.size, 1, 'the record is loaded');
  t.equal(await reg.lookup(foreign.key), null, 'but its key does not match under this secret');
});

t.test('a revoked key is null after a reload', async (t) => {
  const { store, reg } = setup(t);
  const keep = await store.create({ name: 'keep' });
  const gone = await store.create({ name: 'gone' });
  await reg.start(NEVER);
  t.ok(await reg.lookup(gone.key), 'live before revocation');
  t.equal(await store.revoke(gone.record.id), true);
  t.equal(await store.revoke(gone.record.id), false, 'revoking twice finds no active key');
  await reg.lookup(newApiKey()); // any miss reloads
  t.equal(await reg.lookup(gone.key), null, 'refused once reloaded');
  t.same(await reg.lookup(keep.key), keep.record, 'the other key is untouched');
  t.equal(reg.size, 1);
});

t.test('a burst of unknown keys shares rereads: at most one running and one queued', async (t) => {
  const { store, reg } = setup(t);
  await reg.start(NEVER);
  const created = await store.create({ name: 'late' });
  const before = store.stamps;
  store.maxInFlight = 0;
  const unknown = Array.from({ length: 200 }, () => reg.lookup(newApiKey()));
  const known = reg.lookup(created.key);
  const results = await Promise.all(unknown);
  t.ok(
    results.every((r) => r === null),
    '200 unknown keys refused',
  );
  t.same(await known, created.record, 'a key created before the burst is found within it');
  t.equal(store.stamps - before, 2, '201 misses, 2 rereads');
  t.equal(store.maxInFlight, 1, 'never two rereads at once');
  await Promise.all(Array.from({ length: 50 }, () => reg.lookup(newApiKey())));
  t.equal(store.stamps - before, 4, 'a later burst rereads again (nothing is cached negatively)');
});

t.test('a key created while a reread may be running is found by the next miss', async (t) => {
  const { store, reg } = setup(t);
  await reg.start(NEVER);
  const first = reg.lookup(newApiKey()); // starts a reread now
  const created = await store.create({ name: 'during' });
  t.same(await reg.lookup(created.key), created.record, 'the reread that starts after the write sees it');
  t.equal(await first, null);
});

t.test('when the store cannot be read, the last keys stay in force', async (t) => {
  const { store, reg } = setup(t);
  const a = await store.create({ name: 'a' });
  await reg.start(NEVER);
  store.failStamp = true;
  t.equal(await reg.lookup(newApiKey()), null, 'a miss with the store down is null, not an error');
  t.same(await reg.lookup(a.key), a.record, 'known keys still work');
  store.failStamp = false;
  fs.writeFileSync(store.file, '{ not json');
  t.equal(await reg.lookup(newApiKey()), null, 'a corrupt keys file is not an error either');
  t.same(await reg.lookup(a.key), a.record, 'and keeps the keys read before');
  t.equal(reg.size, 1);
});

t.test('start() fails if the first load fails', async (t) => {
  const { store, reg } = setup(t);
  store.failStamp = true;
  await t.rejects(reg.start(NEVER), /store down/);
});

t.test('start() sets an unref’d reload timer and stop() clears it', async (t) => {
  const { store, reg } = setup(t);
  const realSet = globalThis.setInterval;
  const realClear = globalThis.clearInterval;
  const set: { fn: () => void; ms: number | undefined; handle: NodeJS.Timeout }[] = [];
  const cleared: unknown[] = [];
  globalThis.setInterval = ((fn: () => void, ms?: number) => {
    const handle = realSet(() => undefined, NEVER);
    set.push({ fn, ms, handle });
    return handle;
  }) as typeof setInterval;
  globalThis.clearInterval = ((h: NodeJS.Timeout) => {
    cleared.push(h);
    realClear(h);
  }) as typeof clearInterval;
  t.teardown(() => {
    globalThis.setInterval = realSet;
    globalThis.clearInterval = realClear;
    for (const s of set) realClear(s.handle);
  });

  await reg.start(12_345);
  t.equal(set.length, 1, 'one timer');
  t.equal(set[0]!.ms, 12_345, 'at the given interval');
  t.equal(set[0]!.handle.hasRef(), false, 'unref’d: it never holds the process open');
  const before = store.stamps;
  set[0]!.fn();
  t.equal(store.stamps, before + 1, 'each tick rereads the stamp');
  reg.stop();
  t.same(cleared, [set[0]!.handle], 'stop() clears that timer');
  t.doesNotThrow(() => reg.stop(), 'stopping twice is harmless');
  await reg.lookup(newApiKey()); // waits out the tick's reread before the temp dir goes
  t.doesNotThrow(() => new KeyRegistry(store, randomBytes(32)).stop(), 'stop() before start() is a no-op');
});
