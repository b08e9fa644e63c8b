// Equality of JSON values as canonical JSON sees it (keys in any order, a key whose value is
// undefined is absent), without building strings: the sandbox's store compares every update with
// the stored object, and most differ early, so a walk that stops at the first difference is far
// cheaper than serializing both sides. The one deep equality of the project: revisions and
// templates (kruise/), JSON patch `test` and strategic merge (lib/json-patch, the sandbox), overrides.

export function jsonEqual(a: unknown, b: unknown, skipKeys?: ReadonlySet<string>): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    // Primitives as JSON renders them (undefined and null alike only inside arrays, as JSON.stringify does).
    return JSON.stringify(a) === JSON.stringify(b);
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i] ?? null, bb[i] ?? null)) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let countA = 0;
  for (const k in ao) {
    if (ao[k] === undefined || skipKeys?.has(k)) continue;
    countA++;
    if (!jsonEqual(ao[k], bo[k])) return false;
  }
  let countB = 0;
  for (const k in bo) if (bo[k] !== undefined && !skipKeys?.has(k)) countB++;
  return countA === countB;
}
