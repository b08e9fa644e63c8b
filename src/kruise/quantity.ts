// Kubernetes resource quantities ("500m", "1Gi"), read as numbers: shared by `set resources` and the
// scheduler-like checks of the job kinds (BroadcastJob node fitness).

const QUANTITY = /^([+-]?[0-9]+(?:\.[0-9]*)?|[+-]?\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$/;
const SUFFIX: Record<string, number> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** Value of a Kubernetes quantity ("500m" → 0.5, "1Gi" → 1073741824); undefined when malformed. */
export function parseQuantity(text: string): number | undefined {
  const m = QUANTITY.exec(text);
  if (!m) return undefined;
  const num = Number(m[1]);
  const suffix = m[2] ?? '';
  if (!Number.isFinite(num)) return undefined;
  if (/^[eE]/.test(suffix)) return num * 10 ** Number(suffix.slice(1));
  return num * SUFFIX[suffix]!;
}
