// One canonical JSON form for the whole sandbox: the store's "did this write change anything"
// test, the controllers' "did status change" test and the template hashes must all agree on
// when two objects are equal (key order and undefined-valued keys never count).

/** JSON with object keys sorted and undefined-valued keys dropped, so equal values always compare and hash equally. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const o = value as Record<string, unknown>;
  const entries = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`);
  return `{${entries.join(',')}}`;
}
