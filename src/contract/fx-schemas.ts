import { Type } from '@sinclair/typebox';

// The multi-currency parts of a calculate answer (api.md §14): meta.fx and meta.currency_breakdown.

const Money = (description: string) => Type.Number({ description: `${description} In \`currency\`.` });
const Text = (description: string) => Type.String({ description });

const FxPair = Type.Object({
  pair: Text('The conversion, local then reporting currency (EURUSD: euros into dollars).'),
  columns: Type.Array(Type.String(), { description: 'The FX columns it uses, in order: the pair itself, its inverse, or two legs of a cross.' }),
  inverted: Type.Boolean({ description: 'Whether a column is used inverted (USDEUR for EUR → USD).' }),
  via: Type.Union([Type.String(), Type.Null()], { description: 'The currency a cross goes through, else null.' }),
  last_rate: Type.Number({ description: 'Units of the reporting currency per unit of the local one on the estimation’s last date.' }),
});

export const FxFigures = Type.Object(
  {
    reporting_currency: Text('The reporting currency (`currency`).'),
    pairs: Type.Array(FxPair, { description: 'Each foreign currency of the book and how it converts, alphabetical.' }),
    var_without_fx: Money(
      'VaR of the same book on the same scenarios with every FX return set to 0 (a foreign option revalued on its local price, converted at the last rate).',
    ),
    es_without_fx: Money('ES of the same book on the same scenarios with every FX return set to 0.'),
    fx_effect_var: Money('VaR − var_without_fx (common random numbers).'),
    fx_effect_es: Money('ES − es_without_fx (common random numbers).'),
    fx_effect_var_standard_error: Money('Standard error of fx_effect_var (of the difference, on the same scenarios).'),
    fx_effect_es_standard_error: Money('Standard error of fx_effect_es (of the difference, on the same scenarios).'),
  },
  {
    description: 'Multi-currency datasets only (api.md §14): FX as a risk factor. With a what-if, the figures of the book before the trades.',
  },
);

export const CurrencyBreakdown = Type.Array(
  Type.Object({
    currency: Text('A local currency of the book.'),
    gross: Money('Gross exposure of its positions (options and sensitivities at their money delta; an option in its underlying’s currency).'),
    net: Money('Net exposure of its positions (options and sensitivities at their money delta).'),
    component_es: Money('Sum of its positions’ component ES: the rows add up to ES.'),
  }),
  { description: 'Multi-currency datasets only: per local currency (alphabetical), its exposures and share of ES.' },
);
