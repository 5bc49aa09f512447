import { type StressScenarioInput } from '../../contract/stress-schemas.js';
import { ABI } from '../../engine/abi.js';
import { parametricCovariance, type Estimation } from '../../engine/codec.js';
import { type EngineExecutor, type EngineReply } from '../../engine/ops.js';
import { samplesThroughLoadings } from '../../engine/sampling-rule.js';
import { decodeConditional, decodeWorstWindow, encodeConditional, encodeWorstWindow, type ConditionalOutcome } from '../../engine/stress-codec.js';
import { type PriceHistory } from '../price-history.js';
import { addPhase, type PhaseTiming } from '../phase-timing.js';

type Conditional = Extract<StressScenarioInput, { type: 'conditional' }>;

/** Extra cost of a worst-window term (a division, then a multiply-add) against one work unit. */
const DIVISION_WEIGHT = 4;

/** The same for identical scenarios, whatever the order their shocks were listed in. */
function conditionalKey(s: Conditional): string {
  const shocks = Object.entries(s.shocks).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([s.horizon, shocks]);
}

/** A request's distinct engine solves, found once per request: each conditional scenario and worst-window horizon once. */
export interface StressPlan {
  /** The distinct conditional scenarios, in the order first listed. */
  conditionals: Conditional[];
  /** Each conditional scenario of the request → the index of its distinct one in `conditionals`. */
  conditionalOf: Map<Conditional, number>;
  horizons: number[];
}

export function planStress(scenarios: StressScenarioInput[]): StressPlan {
  const byKey = new Map<string, number>();
  const plan: StressPlan = { conditionals: [], conditionalOf: new Map(), horizons: [] };
  for (const s of scenarios) {
    if (s.type !== 'conditional') continue;
    const key = conditionalKey(s);
    let k = byKey.get(key);
    if (k === undefined) byKey.set(key, (k = plan.conditionals.push(s) - 1));
    plan.conditionalOf.set(s, k);
  }
  plan.horizons = [...new Set(scenarios.flatMap((s) => (s.type === 'historical_worst' ? [s.horizon] : [])))];
  return plan;
}

/** The estimation window's returns m, and whether the model is drawn through its n×m loadings. */
function modelWindow(modelAssets: number, dates: number): { window: number; loadings: boolean } {
  const window = Math.max(1, dates - 1);
  return { window, loadings: samplesThroughLoadings(window, modelAssets) };
}

/**
 * Work units (see admission.ts: about one multiply-add each) of a stress request's engine solves,
 * identical scenarios once: per conditional scenario of s shocks, Σ_ss (s² entries) and its factor
 * (s³/6), then per other book symbol its s cross entries and a triangular solve (s²/2); an entry
 * costs the window's m returns through loadings, else 1. Per worst-window horizon, one P&L per
 * start row.
 */
export function stressUnits(plan: StressPlan, own: number, modelAssets: number, dates: number): number {
  const { window, loadings } = modelWindow(modelAssets, dates);
  const entry = loadings ? window : 1;
  let units = 0;
  for (const s of plan.conditionals) {
    const k = Object.keys(s.shocks).length;
    units += (k * k * entry) / 2 + k ** 3 / 6 + own * (k * entry + (k * k) / 2 + k);
  }
  return units + plan.horizons.length * dates * own * DIVISION_WEIGHT;
}

/**
 * Peak bytes of a stress request's engine solves: the model's Σ or loadings and each distinct
 * conditional scenario's two values per book symbol; the book's price rows for a worst window.
 */
export function stressBytes(plan: StressPlan, own: number, modelAssets: number, dates: number): number {
  const { window, loadings } = modelWindow(modelAssets, dates);
  const model = modelAssets * (loadings ? window : modelAssets);
  const solved = plan.conditionals.length * 2 * own;
  const rows = plan.horizons.length > 0 ? dates * own : 0;
  return 8 * (model + solved + rows);
}

/** What the engine solved for a request's scenarios, looked up per scenario. */
export interface StressSolutions {
  conditional(s: Conditional): ConditionalOutcome;
  /** The worst window's start row in the history, or null when it spans fewer days. */
  worstStart(horizon: number): number | null;
}

/** The engine's part of a stress calculation and its clock. */
export interface StressSolve {
  exec: EngineExecutor;
  /** The model over `symbols`, the book's symbols first (`own` of them). */
  est: Estimation;
  symbols: string[];
  own: number;
  exposures: Float64Array;
  /** The book's complete price rows, asked for only when a worst window needs them. */
  history: () => PriceHistory;
  deadline: number;
  signal: AbortSignal;
  timing: PhaseTiming;
}

async function solveConditionals(unique: Conditional[], p: StressSolve, budget: () => number): Promise<ConditionalOutcome[]> {
  if (unique.length === 0) return [];
  const index = new Map(p.symbols.map((s, i) => [s, i]));
  const scenarios = unique.map((s) => {
    const shocked = Object.keys(s.shocks)
      .map((symbol) => index.get(symbol)!)
      .sort((a, b) => a - b);
    return { horizon: s.horizon, shocked, logShocks: shocked.map((i) => Math.log1p(s.shocks[p.symbols[i]!]!)) };
  });
  const covariance = parametricCovariance(p.est);
  // A dense Σ is the estimate before its repair: the jitter adds it back; loadings need none.
  const jitter = covariance.covarianceColumns === ABI.COVARIANCE_DENSE ? p.est.jitter : 0;
  const input = encodeConditional({ own: p.own, mean: p.est.mean, ...covariance, jitter, scenarios }, budget());
  const reply = await p.exec.run(ABI.OP_CONDITIONAL, input, p.signal);
  addPhase(p.timing, [reply]);
  return decodeConditional(reply.output);
}

async function solveWorstWindows(horizons: number[], p: StressSolve, budget: () => number): Promise<(number | null)[]> {
  if (horizons.length === 0) return [];
  const rows = p.history().prices;
  const prices = new Float64Array(rows.length * p.own);
  rows.forEach((row, r) => prices.set(row, r * p.own));
  const reply: EngineReply = await p.exec.run(ABI.OP_WORST_WINDOW, encodeWorstWindow({ exposures: p.exposures, prices, horizons }, budget()), p.signal);
  addPhase(p.timing, [reply]);
  return decodeWorstWindow(reply.output);
}

/**
 * Solves a request's conditional scenarios and worst windows in the engine (two tasks, run side
 * by side), each distinct scenario once; the cheap kinds are revalued by the caller.
 */
export async function solveStress(plan: StressPlan, p: StressSolve): Promise<StressSolutions> {
  const budget = () => Math.max(1, p.deadline - Date.now());
  const [outcomes, starts] = await Promise.all([solveConditionals(plan.conditionals, p, budget), solveWorstWindows(plan.horizons, p, budget)]);
  const byHorizon = new Map(plan.horizons.map((h, i) => [h, starts[i]!]));
  return {
    conditional: (s) => outcomes[plan.conditionalOf.get(s)!]!,
    worstStart: (h) => byHorizon.get(h) ?? null,
  };
}
