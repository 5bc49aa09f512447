/** Whether two answers hold the same doubles, bit for bit (−0 and +0 differ; every NaN is alike). */
export const sameBits = (a: Float64Array, b: Float64Array): boolean => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
