// Storage faults: a full disk or a failing fsync fails the upload cleanly (503, temp removed),
// earlier datasets stay intact; kill -9 at any moment of an upload leaves whole datasets or none.
import t from 'tap';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, watch, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generateWide461 } from '../helpers/generate-prices.js';
import { calcBody, calculate, call, upload, uploadFile } from '../helpers/http.js';
import { firstKey, spawnService } from '../helpers/process.js';
import { startTestService, tempDir, testEnv, WIDE_SAMPLE } from '../helpers/service.js';
import { syntheticCsv } from '../helpers/csv.js';

t.test('disk full and failing fsync during upload (injected)', async (t) => {
  const faultFile = path.join(tempDir('risk-storage-fault-'), 'fault');
  process.env.NODE_ENV = 'test'; // fault hooks are inert otherwise
  process.env.STORAGE_FAULT_FILE = faultFile;
  const s = await startTestService();
  t.teardown(() => s.stop());
  const dir = path.join(s.config.dataDir, 'datasets');
  const earlier = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body.dataset_id as string;
  for (const fault of ['enospc', 'eio']) {
    writeFileSync(faultFile, fault);
    const r = await upload(s.base, s.key, syntheticCsv(['A', 'B'], 50));
    t.equal(r.status, 503, `${fault}: 503`);
    t.equal(r.body.detail.code, 'SERVER_BUSY');
    t.equal(r.headers.get('retry-after'), '30');
    t.same(readdirSync(dir), [`${earlier}.ds`], `${fault}: the temp file is removed, nothing new stored`);
    t.equal((await calculate(s.base, s.key, calcBody(earlier))).status, 200, `${fault}: the earlier dataset is intact`);
  }
  t.equal((await upload(s.base, s.key, syntheticCsv(['A', 'B'], 50))).status, 200, 'uploads work again');
  t.match((await call(s.base, 'GET', '/metrics')).text, /^storage_errors_total 2$/m, 'both refusals counted as storage errors');
});

t.test('kill -9 during uploads: after restart only whole datasets, orphans swept, earlier data verified', async (t) => {
  const dir = tempDir();
  const env = testEnv(dir);
  const datasets = path.join(env.DATA_DIR!, 'datasets');
  const big = readFileSync(generateWide461());
  let svc = await spawnService(env, t);
  const key = firstKey(svc)!;
  const earlier = (await uploadFile(`http://127.0.0.1:${svc.port}`, key, WIDE_SAMPLE)).body.dataset_id as string;
  const hash = () =>
    createHash('sha256')
      .update(readFileSync(path.join(datasets, `${earlier}.ds`)))
      .digest('hex');
  const before = hash();
  const temps = () => readdirSync(datasets).filter((f) => f.startsWith('.tmp-'));

  /** Starts an upload of `big` and kills the service with SIGKILL once `moment` has come; restarts
   * it and checks what it finds. Returns the temp files (and their bytes) the dead service left. */
  async function killDuring(moment: string, come: (uploaded: Promise<unknown>) => Promise<unknown>): Promise<{ name: string; bytes: number }[]> {
    await come(upload(`http://127.0.0.1:${svc.port}`, key, big).catch(() => undefined));
    svc.child.kill('SIGKILL');
    await svc.exited;
    const left = temps().map((name) => ({ name, bytes: statSync(path.join(datasets, name)).size }));
    svc = await spawnService(env, t);
    t.same(temps(), [], `kill ${moment}: no temp file survives the restart`);
    if (left.length > 0) t.match(svc.stdout(), `"swept":${left.length}`, `kill ${moment}: the restart swept ${JSON.stringify(left)}`);
    for (const f of readdirSync(datasets).filter((f) => f.endsWith('.ds'))) {
      const id = f.replace(/\.ds$/, '');
      const r = await call(`http://127.0.0.1:${svc.port}`, 'GET', `/api/v1/risk/datasets/${id}`, { key });
      t.equal(r.status, 200, `kill ${moment}: ${id} is whole and readable`);
    }
    t.equal(hash(), before, `kill ${moment}: the earlier dataset verifies by its content hash`);
    return left;
  }

  // Kills at arbitrary moments: whatever phase this machine's speed puts them in (body, parsing,
  // writing, after), the invariants hold.
  for (const ms of [5, 120, 400]) await killDuring(`after ${ms} ms`, () => new Promise((r) => setTimeout(r, ms)));
  // Kills the moment the dataset's temp file is created, and the moment bytes are first written to
  // it (inotify), so that crashes mid-write are exercised whatever the speed. A kill that lands
  // after the rename leaves no temp file: then try again.
  const leftBy: Record<string, { name: string; bytes: number }[]> = { created: [], written: [] };
  for (const stage of ['created', 'written'] as const) {
    for (let attempt = 1; attempt <= 5 && leftBy[stage]!.length === 0; attempt++) {
      const watcher = watch(datasets);
      const came = new Promise<void>((resolve) =>
        watcher.on('change', (event, name) => String(name).startsWith('.tmp-') && (stage === 'created' || event === 'change') && resolve()),
      );
      // (or once the upload has finished, should the event be missed: then it left none)
      const left = await killDuring(`when the temp file was ${stage} (attempt ${attempt})`, (uploaded) => Promise.race([came, uploaded])).finally(() =>
        watcher.close(),
      );
      leftBy[stage]!.push(...left);
    }
  }
  const whole = await uploadFile(`http://127.0.0.1:${svc.port}`, key, generateWide461());
  t.equal(whole.status, 200, 'the same upload, not killed, is stored');
  const fullBytes = statSync(path.join(datasets, `${whole.body.dataset_id}.ds`)).size;
  const partial = leftBy.written!.filter((f) => f.bytes > 0);
  t.ok(leftBy.created!.length > 0, `a kill left the temp file just created: ${JSON.stringify(leftBy.created)}`);
  t.ok(partial.length > 0, `a kill left a written temp file: ${JSON.stringify(partial)} of ${fullBytes} bytes when whole`);
  t.equal((await calculate(`http://127.0.0.1:${svc.port}`, key, calcBody(earlier))).status, 200);
  svc.child.kill('SIGTERM');
  t.equal(await svc.exited, 0);
});
