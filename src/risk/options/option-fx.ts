import { type SensitivityEntry } from '../../contract/option-schemas.js';
import { type Dataset } from '../../datasets/dataset.js';
import { pricesAt } from '../books.js';
import { planFor } from '../fx/fx-figures.js';
import { CASH_PREFIX, currencyOfColumn, LOCAL_PREFIX, ratesAt, type FxPlan } from '../fx/fx-plan.js';
import { type PreparedModel } from '../model-setup.js';
import { type PricedOption } from './option-columns.js';
import { refuseAt, type StatedOption } from './option-positions.js';

/**
 * The FX plan of a book with options over a multi-currency dataset (api.md §14–15), else null (a
 * single-currency dataset, which prices as it always has; cash there is refused). Each foreign
 * underlying's currency gains a cash column, held or not: its kept unit e^{F} − 1 converts the
 * option's value; each foreign symbol a plain column (its local return), which the option is
 * revalued on. Given sensitivities on a foreign symbol are refused at their symbol: their δ and γ
 * are per move of the local price, and which currency they are in is not stated.
 */
export function optionFxPlan(
  dataset: Dataset,
  symbols: string[],
  cash: string[],
  underlyings: string[],
  given: SensitivityEntry[],
  givenOrder: number[],
  reporting: string,
): FxPlan | null {
  const c = dataset.currencies;
  if (c) {
    given.forEach((g, j) => {
      if (currencyOfColumn(c, g.symbol) !== reporting) {
        throw refuseAt(
          ['body', 'sensitivities', givenOrder[j]!, 'symbol'],
          `${g.symbol} is not quoted in ${reporting}: sensitivities are taken on symbols in the reporting currency only`,
        );
      }
    });
  }
  const foreign = c ? underlyings.map((u) => currencyOfColumn(c, u)).filter((ccy) => ccy !== reporting) : [];
  return planFor(dataset, symbols, [...new Set([...cash, ...foreign])], reporting, true);
}

/**
 * Each option as the engine reads it over the model's columns: in the reporting currency its
 * underlying's column and last price; foreign, the plain column of its underlying (local return R),
 * its local last price, its currency's cash column (e^{F} − 1), the converted column (R + F) and the
 * last rate.
 */
export function pricedOptions(options: StatedOption[], taus: number[], model: PreparedModel, plan: FxPlan | null): PricedOption[] {
  const column = new Map(model.symbols.map((sym, i) => [sym, i]));
  const row = model.est.lastDate;
  const rates = plan ? ratesAt(plan, model.dataset, row) : new Map<string, number>();
  return options.map((o, i) => {
    const symbol = o.entry.option.underlying;
    const converted = column.get(symbol)!;
    const currency = plan ? currencyOfColumn(model.dataset.currencies!, symbol) : null;
    const rate = currency === null ? undefined : rates.get(currency);
    if (rate === undefined) return { stated: o, underlying: converted, spot: model.prices[converted]!, tau: taus[i]! };
    return {
      stated: o,
      underlying: column.get(LOCAL_PREFIX + symbol)!,
      spot: pricesAt(model.dataset, [symbol], row)[0]!,
      tau: taus[i]!,
      fx: { unit: column.get(CASH_PREFIX + currency)!, converted, rate },
    };
  });
}
