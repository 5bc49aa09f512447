/**
 * The sum of `xs` correctly rounded (Shewchuk's exact partials, as Python's math.fsum): it depends
 * only on the exact sum, never on the order of the terms or on how an amount was split into parts
 * that add up exactly, so a book's amounts give the same exposure however they are listed
 * (api.md §13). Two terms give a + b itself.
 */
export function exactSum(xs: readonly number[]): number {
  const partials: number[] = [];
  for (const value of xs) {
    let x = value;
    let i = 0;
    for (const p of partials) {
      let y = p;
      if (Math.abs(x) < Math.abs(y)) [x, y] = [y, x];
      const hi = x + y;
      const lo = y - (hi - x);
      if (lo !== 0) partials[i++] = lo;
      x = hi;
    }
    partials.length = i;
    partials.push(x);
  }
  let n = partials.length;
  if (n === 0) return 0;
  let hi = partials[--n]!;
  let lo = 0;
  while (n > 0) {
    const x = hi;
    const y = partials[--n]!;
    hi = x + y;
    lo = y - (hi - x);
    if (lo !== 0) break;
  }
  // Round half-even across the partials left below: the last bit as exact rounding gives it.
  if (n > 0 && ((lo < 0 && partials[n - 1]! < 0) || (lo > 0 && partials[n - 1]! > 0))) {
    const y = lo * 2;
    const x = hi + y;
    if (y === x - hi) hi = x;
  }
  return hi;
}
