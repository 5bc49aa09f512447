// The model written the way a Node developer would, without the engine: arrays of numbers,
// Math.exp, Box–Muller normals and a full sort. Used as the speed baseline and as a slow,
// independent oracle for the engine's VaR.

import { mulberry32 as prng } from '../test/helpers/mulberry32.js';

export interface PlainModel {
  mean: number[];
  cholesky: number[]; // n×n, row-major, lower
  weights: number[];
  portfolioValue: number;
  horizon: number;
  simulations: number;
  confidence: number;
  rebalanced: boolean;
  studentDof: number | null;
  seed: number;
}

export function plainVarEs(m: PlainModel): { valueAtRisk: number; expectedShortfall: number } {
  const rand = prng(m.seed);
  let spare: number | null = null;
  const normal = () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    const r = Math.sqrt(-2 * Math.log(1 - rand()));
    const a = 2 * Math.PI * rand();
    spare = r * Math.sin(a);
    return r * Math.cos(a);
  };
  const chiSquare = (dof: number) => {
    let s = 0;
    for (let i = 0; i < dof; i++) s += normal() ** 2;
    return s;
  };
  const n = m.weights.length;
  const pnl: number[] = [];
  const z = new Array<number>(n);
  const steps = m.rebalanced || m.studentDof !== null ? m.horizon : 1;
  const scale = steps === 1 ? Math.sqrt(m.horizon) : 1;
  const drift = steps === 1 ? m.horizon : 1;
  for (let s = 0; s < m.simulations; s++) {
    const total = new Array<number>(n).fill(0);
    let gross = 1;
    for (let t = 0; t < steps; t++) {
      for (let j = 0; j < n; j++) z[j] = normal();
      const tScale = m.studentDof === null ? 1 : Math.sqrt((m.studentDof - 2) / m.studentDof) / Math.sqrt(chiSquare(m.studentDof) / m.studentDof);
      let growth = 0;
      for (let i = 0; i < n; i++) {
        let x = 0;
        for (let j = 0; j <= i; j++) x += m.cholesky[i * n + j]! * z[j]!;
        const r = drift * m.mean[i]! + scale * tScale * x;
        if (m.rebalanced) growth += m.weights[i]! * (Math.exp(r) - 1);
        else total[i]! += r;
      }
      gross *= 1 + growth;
    }
    if (m.rebalanced) pnl.push(m.portfolioValue * (gross - 1));
    else pnl.push(m.portfolioValue * total.reduce((a, r, i) => a + m.weights[i]! * (Math.exp(r) - 1), 0));
  }
  pnl.sort((a, b) => a - b);
  const k = Math.max(1, Math.ceil((1 - m.confidence) * m.simulations - 1e-9));
  const tail = pnl.slice(0, k);
  return { valueAtRisk: -pnl[k - 1]!, expectedShortfall: -tail.reduce((a, b) => a + b, 0) / k };
}
