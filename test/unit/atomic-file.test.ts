// Atomic writes: the new content (and mode) or the old, never a mix, and never a temp file left
// behind, including when a fault is injected part-way; plus the temp sweep and durable removal.
import t, { type Test } from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TEMP_PREFIX, removeFileDurably, sweepTempFiles, writeFileAtomic } from '../../src/persistence/atomic-file.js';

function tempDir(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atomic-file-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}
const temps = (dir: string) => fs.readdirSync(dir).filter((n) => n.startsWith(TEMP_PREFIX));
const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

/** Arms the storage fault hook for this test only: NODE_ENV and STORAGE_FAULT_FILE are restored. */
function armFaults(t: Test, dir: string, env = 'test'): (fault: string) => string {
  const saved = { NODE_ENV: process.env.NODE_ENV, STORAGE_FAULT_FILE: process.env.STORAGE_FAULT_FILE };
  const faultFile = path.join(dir, 'fault');
  process.env.NODE_ENV = env;
  process.env.STORAGE_FAULT_FILE = faultFile;
  t.teardown(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
  return (fault) => {
    fs.writeFileSync(faultFile, fault);
    return faultFile;
  };
}

t.test('TEMP_PREFIX is the hidden prefix the sweep relies on', async (t) => {
  t.equal(TEMP_PREFIX, '.tmp-');
});

t.test('writes the content with the default mode 0600', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'keys.json');
  await writeFileAtomic(file, '{"a":1}\n');
  t.equal(fs.readFileSync(file, 'utf8'), '{"a":1}\n');
  t.equal(modeOf(file), 0o600, 'owner read-write only: keys and datasets are private');
  t.same(temps(dir), [], 'no temp file left');
});

t.test('writes buffers, empty data and large data exactly', async (t) => {
  const dir = tempDir(t);
  const bin = Buffer.from([0, 255, 1, 254, 0x0a, 0x0d]);
  await writeFileAtomic(path.join(dir, 'bin'), bin);
  t.same(fs.readFileSync(path.join(dir, 'bin')), bin, 'binary bytes');
  await writeFileAtomic(path.join(dir, 'empty'), '');
  t.equal(fs.statSync(path.join(dir, 'empty')).size, 0, 'empty file');
  const big = Buffer.alloc(8 * 1024 * 1024 + 3, 0xab);
  await writeFileAtomic(path.join(dir, 'big'), big);
  t.ok(fs.readFileSync(path.join(dir, 'big')).equals(big), '8 MiB + 3 bytes');
  await writeFileAtomic(path.join(dir, 'utf8'), 'Ä日本');
  t.equal(fs.readFileSync(path.join(dir, 'utf8'), 'utf8'), 'Ä日本', 'strings are written as UTF-8');
  t.same(temps(dir), []);
});

t.test('applies the requested mode', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'ro');
  await writeFileAtomic(file, 'x', 0o400);
  t.equal(modeOf(file), 0o400, 'owner read-only');
  // Replacing a read-only file works: the rename swaps the directory entry, the old file is not opened.
  await writeFileAtomic(file, 'y', 0o600);
  t.equal(fs.readFileSync(file, 'utf8'), 'y');
  t.equal(modeOf(file), 0o600, 'the new mode replaces the old one');
});

t.test('overwrites by replacing the file, not by writing into it', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'data');
  await writeFileAtomic(file, 'old content, longer than the new');
  const held = fs.openSync(file, 'r'); // a reader that opened the old file
  t.teardown(() => fs.closeSync(held));
  const inode = fs.statSync(file).ino;
  await writeFileAtomic(file, 'new');
  t.equal(fs.readFileSync(file, 'utf8'), 'new', 'no tail of the old content');
  t.not(fs.statSync(file).ino, inode, 'a new inode took the name');
  const buf = Buffer.alloc(100);
  t.equal(buf.toString('utf8', 0, fs.readSync(held, buf, 0, 100, 0)), 'old content, longer than the new', 'the reader still sees the whole old file');
  t.same(temps(dir), []);
});

t.test('concurrent writers: the last rename wins whole, no temp left', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'race');
  const contents = Array.from({ length: 25 }, (_, i) => `writer ${i} `.repeat(1000 + i));
  await Promise.all(contents.map((c) => writeFileAtomic(file, c)));
  t.ok(contents.includes(fs.readFileSync(file, 'utf8')), 'exactly one writer’s content, never a mix');
  t.same(fs.readdirSync(dir), ['race'], 'only the target remains');
});

t.test('failures without faults leave nothing behind', async (t) => {
  const dir = tempDir(t);
  await t.rejects(writeFileAtomic(path.join(dir, 'missing', 'f'), 'x'), { code: 'ENOENT' }, 'missing directory');
  t.same(fs.readdirSync(dir), []);
  fs.mkdirSync(path.join(dir, 'adir'));
  fs.writeFileSync(path.join(dir, 'adir', 'inside'), 'kept');
  await t.rejects(writeFileAtomic(path.join(dir, 'adir'), 'x'), 'cannot replace a non-empty directory');
  t.same(temps(dir), [], 'the temp file is removed after the failed rename');
  t.equal(fs.readFileSync(path.join(dir, 'adir', 'inside'), 'utf8'), 'kept');
});

for (const [fault, code, syscall] of [
  ['enospc', 'ENOSPC', 'write'],
  ['eio', 'EIO', 'fsync'],
] as const) {
  t.test(`an injected ${fault} fails the write and keeps the old content`, async (t) => {
    const dir = tempDir(t);
    const arm = armFaults(t, dir);
    const file = path.join(dir, 'target');
    const old = 'old '.repeat(100);
    await writeFileAtomic(file, old);
    const faultFile = arm(fault);
    await t.rejects(writeFileAtomic(file, 'new '.repeat(1000)), { code, syscall }, `${code} from ${syscall}`);
    t.equal(fs.readFileSync(file, 'utf8'), old, 'old content intact');
    t.equal(modeOf(file), 0o600);
    t.same(temps(dir), [], 'no temp file left');
    t.notOk(fs.existsSync(faultFile), 'the fault is consumed');
    await writeFileAtomic(file, 'after');
    t.equal(fs.readFileSync(file, 'utf8'), 'after', 'the next write succeeds: one fault, one failure');
  });

  t.test(`an injected ${fault} on a new file creates nothing`, async (t) => {
    const dir = tempDir(t);
    const arm = armFaults(t, dir);
    arm(`${fault}\n`); // surrounding whitespace is trimmed
    await t.rejects(writeFileAtomic(path.join(dir, 'fresh'), 'data'), { code });
    t.same(fs.readdirSync(dir), [], 'neither the target nor a temp file');
  });
}

t.test('faults are inert outside NODE_ENV=test and unknown ones are ignored', async (t) => {
  const dir = tempDir(t);
  const arm = armFaults(t, dir, 'production');
  const faultFile = arm('eio');
  await writeFileAtomic(path.join(dir, 'prod'), 'ok');
  t.equal(fs.readFileSync(path.join(dir, 'prod'), 'utf8'), 'ok', 'a production process never fails on purpose');
  t.ok(fs.existsSync(faultFile), 'and does not consume the fault');
  process.env.NODE_ENV = 'test';
  arm('throw');
  await writeFileAtomic(path.join(dir, 'other'), 'ok');
  t.equal(fs.readFileSync(path.join(dir, 'other'), 'utf8'), 'ok', 'an engine fault name does nothing here');
  t.notOk(fs.existsSync(faultFile), 'but is consumed');
});

t.test('sweepTempFiles removes only names with the prefix', async (t) => {
  const dir = tempDir(t);
  const names = ['.tmp-keys.json-0a1b2c3d4e5f', '.tmp-', '.tmp-x', 'keep', 'x.tmp-y', '.tmp', 'tmp-z', '.TMP-upper'];
  for (const n of names) fs.writeFileSync(path.join(dir, n), n);
  t.equal(await sweepTempFiles(dir), 3);
  t.same(fs.readdirSync(dir).sort(), ['.TMP-upper', '.tmp', 'keep', 'tmp-z', 'x.tmp-y'].sort());
  t.equal(await sweepTempFiles(dir), 0, 'a second sweep finds nothing');
  t.equal(await sweepTempFiles(tempDir(t)), 0, 'an empty dir');
  await t.rejects(sweepTempFiles(path.join(dir, 'nope')), { code: 'ENOENT' }, 'a missing dir is an error');
});

t.test('sweepTempFiles cleans what a crashed write would leave', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'data');
  await writeFileAtomic(file, 'v1');
  fs.writeFileSync(path.join(dir, `${TEMP_PREFIX}data-deadbeef0000`), 'partial');
  t.equal(await sweepTempFiles(dir), 1);
  t.same(fs.readdirSync(dir), ['data']);
  t.equal(fs.readFileSync(file, 'utf8'), 'v1', 'the target is untouched');
});

t.test('removeFileDurably', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'f');
  fs.writeFileSync(file, 'x');
  t.equal(await removeFileDurably(file), true, 'removed');
  t.notOk(fs.existsSync(file));
  t.equal(await removeFileDurably(file), false, 'already gone is false, not an error');
  t.equal(await removeFileDurably(path.join(dir, 'never')), false);
  fs.mkdirSync(path.join(dir, 'd'));
  await t.rejects(removeFileDurably(path.join(dir, 'd')), 'a directory is not removed');
  t.ok(fs.existsSync(path.join(dir, 'd')));
  t.equal(await removeFileDurably(path.join(dir, 'missing-dir', 'f')), false, 'a missing parent is ENOENT too');
});
