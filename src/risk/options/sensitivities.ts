import { validationError } from '../../contract/errors.js';
import { type SensitivityEntry, type ValuationMode } from '../../contract/option-schemas.js';
import { ABI } from '../../engine/abi.js';
import { type SymbolRef } from '../model-setup.js';

/** A sensitivity as the engine reads it: its symbol's column (api.md §15 "bring your own Greeks"). */
export interface PricedSensitivity {
  entry: SensitivityEntry;
  /** Its index in `sensitivities`. */
  index: number;
  underlying: number;
}

/** Where each sensitivity names its symbol. */
export function sensitivityRefs(list: SensitivityEntry[] | undefined): SymbolRef[] {
  return (list ?? []).map((s, i) => ({ symbol: s.symbol, loc: ['body', 'sensitivities', i, 'symbol'] }));
}

/** Parametric methods are linear: a sensitivity with a gamma is refused at that gamma. */
export function checkSensitivities(method: string, list: SensitivityEntry[]): void {
  if (method !== 'parametric_normal') return;
  const i = list.findIndex((s) => (s.gamma ?? 0) !== 0);
  if (i >= 0) {
    throw validationError([
      { loc: ['body', 'sensitivities', i, 'gamma'], msg: 'parametric methods take a sensitivity’s delta only: give gamma 0', type: 'value_error' },
    ]);
  }
}

/** Whether a sensitivity's column is its symbol's unit x, priced at exposure δ (exactly a stock position of market value δ). */
export const isLinear = (s: SensitivityEntry, valuation: ValuationMode) => valuation === 'delta' || (s.gamma ?? 0) === 0;

/**
 * The engine's words of a sensitivity's column (ABI.OPTION_FIELDS): linear, the symbol's unit
 * (VALUATION_DELTA of a placeholder option the engine validates but does not price); else
 * δ·x + ½γ·x² (VALUATION_GIVEN) at exposure 1.
 */
export function sensitivityFields(s: PricedSensitivity, valuation: ValuationMode): number[] {
  if (isLinear(s.entry, valuation)) return [s.underlying, ABI.VALUATION_DELTA, ABI.OPTION_CALL, ABI.MODEL_BLACK_SCHOLES, 1, 1, 1, 0, 0, 0, ABI.OPTION_NO_FX];
  return [s.underlying, ABI.VALUATION_GIVEN, 0, 0, s.entry.delta, s.entry.gamma ?? 0, 0, 0, 0, 0, ABI.OPTION_NO_FX];
}

/** The exposure its column is priced at. */
export const sensitivityExposure = (s: SensitivityEntry, valuation: ValuationMode) => (isLinear(s, valuation) ? s.delta : 1);

/** A readable name for a sensitivity's row in `contributions`. */
export const sensitivityLabel = (s: SensitivityEntry) => `${s.symbol} sensitivity`;
