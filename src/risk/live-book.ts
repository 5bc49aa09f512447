import { validationError } from '../contract/errors.js';
import { MAX_POSITION, MONTE_CARLO, type CalculateRequest, type PositionEntry } from '../contract/schemas.js';
import { type CalculateResponseBody } from '../contract/responses.js';
import { reportingPrice, type LiveMarket } from './live-market.js';
import { checkPositionItems } from './request-checks.js';

type Loc = (string | number)[];

/** A symbol's holding: quantities and market values each added up, as a calculate book adds its parts. */
interface Holding {
  quantity?: number;
  marketValue?: number;
}

const invalid = (loc: Loc, msg: string) => validationError([{ loc, msg, type: 'value_error' }]);

/**
 * What a live subscription may start from (api.md §17): a calculate request drawing scenarios
 * (Monte Carlo or historical), one book, a fixed number of scenarios. The checks of calculate itself
 * (checkRequest) run when it is first priced.
 */
export function checkLiveRequest(req: CalculateRequest): void {
  if (req.method !== 'historical' && !MONTE_CARLO.has(req.method)) {
    throw invalid(['request', 'method'], `a live book keeps its scenarios: ${req.method} draws none (use a Monte Carlo method or historical)`);
  }
  if (req.what_if) throw invalid(['request', 'what_if'], 'send trades as "trades" messages on the subscription instead');
  // An option's state is its underlying's price, volatility and time: not a market value to tick.
  const optionAt = req.positions?.findIndex((p) => 'option' in p) ?? -1;
  if (optionAt >= 0) throw invalid(['request', 'positions', optionAt, 'option'], 'option positions are priced by calculate; not yet by a live subscription');
  const cashAt = req.positions?.findIndex((p) => 'cash' in p) ?? -1;
  if (cashAt >= 0) throw invalid(['request', 'positions', cashAt, 'cash'], 'cash positions are priced by calculate; not yet by a live subscription');
  // A live book's state is its positions' market values: given δ and γ have none to revalue.
  if (req.sensitivities) throw invalid(['request', 'sensitivities'], 'sensitivities are priced by calculate; not yet by a live subscription');
  if (req.method_options?.target_relative_error !== undefined) {
    throw invalid(['request', 'method_options', 'target_relative_error'], 'a live book keeps a fixed number of scenarios: give simulations');
  }
}

/**
 * A live book: holdings in the symbols of its scenario set and their current prices. Its state is
 * always the book of a calculate request (`request()`): the same request with the seed fixed and
 * the current exposures as `market_value`, so every live figure is one a calculation would give.
 */
export class LiveBook {
  private constructor(
    private readonly base: CalculateRequest,
    /** The subscribe request's symbols in order of first appearance: the scenario set, fixed. */
    readonly symbols: string[],
    private readonly holdings: Map<string, Holding>,
    /** Last prices: in the reporting currency, or with a market each symbol's local one and the FX columns' rates. */
    private readonly prices: Map<string, number>,
    private readonly market: LiveMarket | null,
  ) {}

  /**
   * The book of a subscribe request, priced as its first calculation priced it (`first`: its
   * exposures name each symbol's last price; its seed is kept so every update draws the same scenarios).
   */
  static of(req: CalculateRequest, first: CalculateResponseBody, market: LiveMarket | null = null): LiveBook {
    const prices = market ? new Map(market.prices) : new Map(first.meta.exposures.items.map((item) => [item.symbol, item.price]));
    const holdings = new Map<string, Holding>();
    if (req.portfolio) {
      for (const p of req.portfolio) holdings.set(p.symbol, { marketValue: req.portfolio_value! * p.weight });
    } else {
      // checkLiveRequest has refused cash: every position names a symbol.
      for (const p of req.positions! as PositionEntry[]) holdings.set(p.symbol, added(holdings.get(p.symbol) ?? {}, p));
    }
    const seed = first.meta.seed;
    const method_options = { ...req.method_options, ...(seed !== null ? { seed } : {}) };
    return new LiveBook({ ...req, method_options }, [...holdings.keys()], holdings, prices, market);
  }

  /**
   * New last prices: quantity positions revalue. Over a multi-currency dataset a symbol's price is
   * in its own currency and an FX column's (of the book's conversions) is its rate. All or nothing.
   */
  setPrices(prices: Record<string, number>): void {
    const next = new Map(this.prices);
    for (const [symbol, price] of Object.entries(prices)) {
      if (!next.has(symbol)) this.known(symbol, ['prices', symbol]);
      next.set(symbol, price);
    }
    this.check(this.holdings, next, ['prices']);
    for (const [symbol, price] of next) this.prices.set(symbol, price);
  }

  /** Trades added to the holdings (a quantity revalues with later prices, a market value does not). All or nothing. */
  addTrades(trades: PositionEntry[]): void {
    checkPositionItems(trades, ['trades']);
    const next = new Map(this.holdings);
    trades.forEach((t, i) => {
      this.known(t.symbol, ['trades', i, 'symbol']);
      next.set(t.symbol, added(next.get(t.symbol) ?? {}, t));
    });
    this.check(next, this.prices, ['trades']);
    for (const [symbol, h] of next) this.holdings.set(symbol, h);
  }

  /** Current exposure of each symbol of the scenario set (0 for one the book no longer holds). */
  exposures(holdings = this.holdings, prices = this.prices): number[] {
    const market = this.market;
    return this.symbols.map((s) => exposureOf(holdings.get(s) ?? {}, market ? reportingPrice(market, s, prices) : prices.get(s)!));
  }

  /** The calculate request whose figures this book's are: every symbol kept (the scenario set stays). */
  request(): CalculateRequest {
    const rest = { ...this.base };
    delete rest.portfolio;
    delete rest.positions;
    const exposures = this.exposures();
    return { ...rest, positions: this.symbols.map((symbol, i) => ({ symbol, market_value: exposures[i]! })) };
  }

  private known(symbol: string, loc: Loc): void {
    if (!this.symbols.includes(symbol))
      throw invalid(loc, `${symbol} is not in the subscription's scenario set (${this.symbols.join(', ')}): subscribe again to widen it`);
  }

  /** A state calculate would refuse is refused here, before it replaces the current one. */
  private check(holdings: Map<string, Holding>, prices: Map<string, number>, loc: Loc): void {
    const exposures = this.exposures(holdings, prices);
    if (exposures.some((e) => !(Math.abs(e) <= MAX_POSITION))) throw invalid(loc, `an exposure would leave [-${MAX_POSITION}, ${MAX_POSITION}]`);
    if (exposures.every((e) => e === 0)) throw invalid(loc, 'every exposure would be zero: the book would be empty');
  }
}

function added(h: Holding, p: PositionEntry): Holding {
  const next = { ...h };
  if (p.quantity !== undefined) next.quantity = h.quantity === undefined ? p.quantity : h.quantity + p.quantity;
  if (p.market_value !== undefined) next.marketValue = h.marketValue === undefined ? p.market_value : h.marketValue + p.market_value;
  return next;
}

/** As calculate prices a holding (books.ts): quantity × price, plus the market value where both are held. */
function exposureOf(h: Holding, price: number): number {
  if (h.quantity === undefined) return h.marketValue ?? 0;
  const e = h.quantity * price;
  return h.marketValue === undefined ? e : e + h.marketValue;
}
