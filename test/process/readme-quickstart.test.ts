// The README's quick start, run as pasted against `npm start`'s service: it works and prints what
// the README says it prints.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ROOT } from '../../src/paths.js';
import { spawnService } from '../helpers/process.js';
import { tempDir, testEnv } from '../helpers/service.js';

const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const quickStart = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1));
const blocks = [...quickStart.matchAll(/```(\w*)\n([^]*?)```/g)].map((m) => ({ lang: m[1]!, text: m[2]! }));

t.test('the quick start runs as pasted and prints what the README shows', async (t) => {
  const [serve, paste, printed] = blocks;
  t.match(serve?.text, /^npm start\b/, 'first block: npm start');
  t.equal(paste?.lang, 'sh', 'second block: the shell to paste');
  t.ok(printed && printed.lang === '', 'third block: what it prints');
  // The service the first block starts, on a free port instead of 8080, with its own DATA_DIR.
  const env = testEnv(tempDir());
  const svc = await spawnService(env, t);
  const script = paste!.text.replaceAll('http://localhost:8080', `http://127.0.0.1:${svc.port}`);
  t.not(script, paste!.text, 'the block talks to localhost:8080, as npm start serves');
  const r = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: ROOT, env, encoding: 'utf8', timeout: 300_000 });
  t.equal(r.status, 0, `the block exits 0${r.status === 0 ? '' : `: ${r.stderr}`}`);
  t.equal(r.stdout, printed!.text, 'and prints exactly the README output');
});
