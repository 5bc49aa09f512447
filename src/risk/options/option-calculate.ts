import { type CalculateResponseBody } from '../../contract/responses.js';
import { type EngineBook } from '../../engine/codec.js';
import { type EngineResults } from '../../engine/results-codec.js';
import { ABI } from '../../engine/abi.js';
import { canonicalSymbols, symbolsOf, unionOf, type PricedBook } from '../books.js';
import { loadDataset, prepareModel, type SymbolRef } from '../model-setup.js';
import { underDeadline } from '../deadline.js';
import { requestShape, workBytes, workUnits } from '../work-cost.js';
import { buildResponse } from '../response-builder.js';
import { keepScenarios, runKept } from '../kept-scenarios.js';
import { calculationOf, modelInputOf, type CalculatorDeps } from '../calculation-setup.js';
import { cashAsPositions } from '../fx/cash.js';
import { canonicalIndices, canonicalOptions, optionLabel, refuseAt, timesToExpiry, type StatedOption, type StockRequest } from './option-positions.js';
import { duplicatedEstimation, optionGreeks, paddedEstimation, withOptionColumns, type PricedOption } from './option-columns.js';
import { runModel } from '../engine-run.js';
import { priceOptionBook } from './option-capital.js';
import { replayFor } from '../model-replay.js';
import { checkSensitivities, sensitivityExposure, sensitivityLabel, type PricedSensitivity } from './sensitivities.js';
import { optionFxPlan, pricedOptions } from './option-fx.js';

/** The methods an option book takes, in calculate and in backtests. */
const OPTION_METHODS = ['monte_carlo_normal', 'monte_carlo_student_t', 'historical', 'parametric_normal', 'historical_filtered'];

/**
 * What the options path does not take (api.md §15), each refused at its field (calculate's and
 * backtest's). Cornish–Fisher expands the moments of a linear book's window P&L, which an option
 * does not have: it is refused.
 */
export function checkSupported(req: Pick<StockRequest, 'method' | 'portfolio_mode' | 'method_options'> & { what_if?: unknown }, hasOptions = true): void {
  const o = req.method_options ?? {};
  // Sensitivities alone need no valuation there: a non-zero gamma is refused at its field instead.
  if (req.method === 'parametric_normal' && hasOptions && (o.valuation ?? 'full') !== 'delta') {
    throw refuseAt(['body', 'method_options', 'valuation'], 'parametric methods value options at their delta only: set valuation "delta"');
  }
  if (!OPTION_METHODS.includes(req.method)) throw refuseAt(['body', 'method'], `options take ${OPTION_METHODS.join(', ')} (parametric_normal at delta)`);
  if (req.portfolio_mode === 'rebalanced') throw refuseAt(['body', 'portfolio_mode'], 'a book with options is held, not rebalanced');
  if (req.what_if) throw refuseAt(['body', 'what_if'], 'what_if is not taken with options');
  if (o.variance_reduction === 'importance_sampling')
    throw refuseAt(['body', 'method_options', 'variance_reduction'], 'importance sampling is not taken with options');
  if (o.target_relative_error !== undefined)
    throw refuseAt(['body', 'method_options', 'target_relative_error'], 'target_relative_error is not taken with options');
}

/**
 * A book with European options (api.md §15). The stock part's scenarios are drawn and kept
 * (OP_UNITS), the engine appends one column per option revalued on each scenario and one at its
 * delta (OP_OPTION_UNITS), and two books priced on them (OP_SIMULATE_KEPT, what-if comparison):
 * the options at their delta, then as asked — the difference is the nonlinearity, with its error.
 */
export async function calculateWithOptions(
  req: StockRequest,
  statedOptions: StatedOption[],
  /** Where each symbol is stated in `positions` (optionBookRefs): stock positions at their own index. */
  refs: SymbolRef[],
  owner: string,
  deps: CalculatorDeps,
  clientSignal?: AbortSignal,
): Promise<CalculateResponseBody> {
  checkSupported(req, statedOptions.length > 0);
  checkSensitivities(req.method, req.sensitivities ?? []);
  // Columns in a canonical order, whatever the listing; rows listed as stated (api.md §13).
  const options = canonicalOptions(statedOptions);
  const givenOrder = canonicalIndices(req.sensitivities ?? [], (g) => [g.symbol, g.delta, g.gamma ?? 0]);
  const given = givenOrder.map((i) => req.sensitivities![i]!);
  // The engine revalues each option (and sensitivity) twice, as asked and at its delta: its columns
  // are bounded by engine/core/src/limits.rs's MAX_OPTIONS, so half as many positions.
  const most = Math.floor(ABI.MAX_OPTIONS / 2);
  if (options.length > most) throw refuseAt(['body', 'positions'], `at most ${most} option positions`);
  if (options.length + given.length > most) throw refuseAt(['body', 'sensitivities'], `at most ${most} options and sensitivities together`);
  if (2 * (options.length + given.length) * (req.simulations ?? 0) > ABI.MAX_OPTION_SCENARIOS) {
    throw refuseAt(['body', 'simulations'], `2 × (options + sensitivities) × simulations must be at most ${ABI.MAX_OPTION_SCENARIOS}`);
  }
  const valuation = req.method_options?.valuation ?? (options.length === 0 && req.method === 'parametric_normal' ? 'delta' : 'full');
  const { book: stated, cash } = cashAsPositions(req);
  const underlyings = options.map((o) => o.entry.option.underlying);
  const dataset = await loadDataset(deps.datasets, req.dataset_id, owner, refs);
  const taus = timesToExpiry(options, dataset.dates[dataset.dates.length - 1]!);
  const listed = unionOf([symbolsOf(stated)]);
  const symbols = canonicalSymbols(dataset, [listed, underlyings, given.map((g) => g.symbol)]);
  // Multi-currency (api.md §14): columns are instruments; a foreign option converts at its cash column.
  const fx = optionFxPlan(dataset, symbols, cash, underlyings, given, givenOrder, req.currency);
  const shape = requestShape(req, (fx ? fx.instruments.length : symbols.length) + 2 * (options.length + given.length), 2, dataset.dates.length);
  return underDeadline(
    deps,
    clientSignal,
    async (s) => {
      const model = await prepareModel(req, dataset, symbols, deps, s.signal, fx);
      const n = model.symbols.length;
      const column = new Map(model.symbols.map((sym, i) => [sym, i]));
      const priced: PricedOption[] = pricedOptions(options, taus, model, fx);
      const sens: PricedSensitivity[] = given.map((entry, j) => ({ entry, index: givenOrder[j]!, underlying: column.get(entry.symbol)! }));
      // Each option and sensitivity row, in the order stated: its column among the option-like ones.
      const rowColumns = [...canonicalIndices(options, (o) => [o.index]), ...canonicalIndices(sens, (g) => [g.index]).map((j) => options.length + j)];
      const greeks = priced.length > 0 ? await optionGreeks(deps.executor, priced, s.signal) : [];
      // Into the reporting currency: a foreign option's values are in its own, at the last rate.
      const rate = priced.map((p) => p.fx?.rate ?? 1);
      const size = options.map((o, i) => o.entry.quantity * (o.entry.multiplier ?? 1) * rate[i]!);
      const deltaMoney = greeks.map((g, i) => size[i]! * g[1]! * priced[i]!.spot);
      // The stock part and the capital: the options and sensitivities count at their money delta.
      const stock = priceOptionBook(
        stated,
        model.symbols,
        model.prices,
        req.portfolio_value,
        [...deltaMoney, ...given.map((g) => g.delta)],
        'every exposure (stock, options and sensitivities at their delta) is zero: give portfolio_value',
      );
      const { capital } = stock;
      const stockExposure = (i: number) => stock.exposures[i]!;
      // Option-like columns: the options, then the sensitivities (api.md §15).
      const m = options.length + given.length;
      // Columns: assets, the options and sensitivities as asked (size, or the money delta), then each at its delta.
      const asked = [...(valuation === 'delta' ? deltaMoney : size), ...given.map((g) => sensitivityExposure(g, valuation))];
      const atDelta = [...deltaMoney, ...given.map((g) => g.delta)];
      const exposures = Float64Array.from({ length: n + 2 * m }, (_, i) => (i < n ? stockExposure(i) : i < n + m ? asked[i - n]! : 0));
      const deltaTwin = Float64Array.from({ length: n + 2 * m }, (_, i) => (i < n ? stockExposure(i) : i < n + m ? 0 : atDelta[i - n - m]!));
      const engineOf = (e: Float64Array): EngineBook => ({ capital, weights: e.map((x) => x / capital) });
      // Filtered history (api.md §16): the scenarios are the filtered rows, or T > 1 bootstrap paths
      // replayed as one-day rows; the options still age by the request's horizon.
      const replay = await replayFor(req, model, deps.executor, deps.maxBatches, s);
      const est = replay.est;
      const base = {
        ...modelInputOf(req, model, [engineOf(exposures.subarray(0, n))], 'none', req.simulations ?? 0),
        horizon: replay.horizon ?? req.time_horizon,
      };
      const policy = { maxBatches: deps.maxBatches, deadline: s.deadline };
      const respond = (results: EngineResults): CalculateResponseBody => {
        const labels = [...options.map((o) => optionLabel(o.entry)), ...given.map(sensitivityLabel)];
        // meta.estimation and meta.filter list the underlyings too: their σ moves the options.
        const factors = unionOf([listed, underlyings, given.map((g) => g.symbol)]);
        const calc = calculationOf(req, model, factors, deps, s, { precision: null, extras: { filter: replay.state, cornishFisher: null } });
        const own = Array.from({ length: n + 2 * m }, (_, i) => (i < n ? stock.own[i]! : i < n + m));
        const book: PricedBook = {
          own,
          listed: [...stock.listed, ...rowColumns.map((k) => n + k)],
          capital,
          exposures,
          quantities: [
            ...Array.from({ length: n }, (_, i) => stock.quantities[i]!),
            ...options.map((o) => o.entry.quantity),
            ...given.map(() => null),
            ...labels.map(() => null),
          ],
          engine: engineOf(exposures),
        };
        const unitPrices = greeks.map((g, i) => g[0]! * rate[i]!);
        const wideCalc = {
          ...calc,
          symbols: [...model.symbols, ...labels, ...labels],
          // A sensitivity's column is priced per unit of its exposure: a price of 1.
          prices: Float64Array.from([...model.prices, ...unitPrices, ...given.map(() => 1), ...unitPrices, ...given.map(() => 1)]),
        };
        const figures = results.books[1]!;
        const answer = buildResponse(wideCalc, [book], { books: [figures], whatIf: null });
        const w = results.whatIf!;
        const contributions = answer.meta.contributions.map((c, row) => {
          const r = row - stock.listed.length;
          if (r < 0) return c;
          const k = rowColumns[r]!;
          if (k >= options.length) {
            const j = k - options.length;
            return { ...c, sensitivity: sens[j]!.index, delta: given[j]!.delta, gamma: given[j]!.gamma ?? 0 };
          }
          const g = greeks[k]!;
          const z = size[k]!;
          const spot = priced[k]!.spot;
          return {
            ...c,
            option: options[k]!.index,
            price: z * g[0]!,
            delta: deltaMoney[k]!,
            gamma: z * g[2]! * spot * spot,
            vega: z * g[3]!,
            theta: z * g[4]!,
          };
        });
        return {
          ...answer,
          meta: {
            ...answer.meta,
            contributions,
            valuation: {
              mode: valuation,
              options: options.length,
              ...(given.length > 0 ? { sensitivities: given.length } : {}),
              nonlinearity_var: w.incrementalVar,
              nonlinearity_es: w.incrementalEs,
              nonlinearity_var_standard_error: w.incrementalVarStandardError,
              nonlinearity_es_standard_error: w.incrementalEsStandardError,
              sticky: 'strike' as const,
            },
          },
        };
      };
      const input = { ...base, books: [engineOf(deltaTwin), engineOf(exposures)], comparison: 'what_if' as const };
      const sources = [...priced.map((o) => o.fx?.converted ?? o.underlying), ...sens.map((g) => g.underlying)];
      sources.push(...sources);
      // Parametric takes delta only: each option column moves as its underlying, so the closed form prices it.
      if (req.method === 'parametric_normal')
        return respond(await runModel(deps.executor, input, duplicatedEstimation(est, sources), policy, s.signal, s.timing));
      const kept = await keepScenarios(deps.executor, base, est, policy, s.signal);
      const columns = await withOptionColumns(deps.executor, kept, n, req.time_horizon, valuation, priced, s.signal, true, sens);
      const wide = paddedEstimation(est, 2 * m);
      return respond(await runKept(deps.executor, input, wide, columns, policy, s.signal, s.timing));
    },
    { units: workUnits(shape), teaches: false, owner, bytes: workBytes(shape) },
  );
}
