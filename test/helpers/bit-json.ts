// JSON text that tells −0 from 0 (JSON.stringify writes both as 0) and writes typed arrays as
// arrays: two values give the same text only if every number has the same bits (NaN aside).

const mark = (x: number): number | string => (Object.is(x, -0) ? '-0' : x);

export function bitJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'number') return mark(v);
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as unknown as ArrayLike<number>, mark);
    return v;
  });
}
