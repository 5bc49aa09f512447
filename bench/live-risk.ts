// `npm run bench:live [-- --positions 100 --scenarios 100000 --ticks 50 --calcs 10]`: live risk
// against a full calculate of the same book, in one run on one service (bench/lib/live-bench.ts).
import { parseArgs } from 'node:util';
import { benchLive } from './lib/live-bench.js';

const { values } = parseArgs({
  options: {
    positions: { type: 'string', default: '100' },
    scenarios: { type: 'string', default: '100000' },
    ticks: { type: 'string', default: '50' },
    calcs: { type: 'string', default: '10' },
  },
});
const figures = await benchLive({
  positions: Number(values.positions),
  scenarios: Number(values.scenarios),
  ticks: Number(values.ticks),
  calcs: Number(values.calcs),
  ...(process.env.WORKERS ? { workers: process.env.WORKERS } : {}),
});
console.log(JSON.stringify(figures, null, 2));
