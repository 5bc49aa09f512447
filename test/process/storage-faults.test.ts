// Storage faults: a full disk or a failing fsync fails the upload cleanly (503, temp removed),
// earlier datasets stay intact; kill -9 at any moment of an upload leaves whole datasets or none.
import t from 'tap';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
  for (const delay of [5, 40, 120, 250, 400]) {
    const base = `http://127.0.0.1:${svc.port}`;
    void upload(base, key, big).catch(() => undefined);
    await new Promise((r) => setTimeout(r, delay));
    svc.child.kill('SIGKILL');
    await svc.exited;
    svc = await spawnService(env, t);
    const files = readdirSync(datasets);
    t.notOk(
      files.some((f) => f.startsWith('.tmp-')),
      `kill after ${delay} ms: no temp file survives the restart`,
    );
    for (const f of files) {
      const id = f.replace(/\.ds$/, '');
      const r = await call(`http://127.0.0.1:${svc.port}`, 'GET', `/api/v1/risk/datasets/${id}`, { key });
      t.equal(r.status, 200, `kill after ${delay} ms: ${id} is whole and readable`);
    }
    t.equal(hash(), before, `kill after ${delay} ms: the earlier dataset verifies by its content hash`);
  }
  t.equal((await calculate(`http://127.0.0.1:${svc.port}`, key, calcBody(earlier))).status, 200);
  svc.child.kill('SIGTERM');
  t.equal(await svc.exited, 0);
});
