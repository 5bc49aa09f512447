/** JSON text with every object's keys sorted: two values with the same content give the same text. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
}

/** Whether serialized text carries exactly the content of `value` (key order aside). */
export function sameContent(text: string, value: unknown): boolean {
  return canonicalJson(JSON.parse(text)) === canonicalJson(JSON.parse(JSON.stringify(value)));
}
