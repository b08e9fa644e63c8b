// Kubernetes' own int-or-percent checks as Kruise's webhooks call them (k8s.io/kubernetes
// pkg/apis/apps/validation, k8s.io/apimachinery util/intstr + util/validation), pure:
// - `isValidPercent(s)`: the `^[0-9]+%$` rule (so "12.5%" is not a percent).
// - `validatePositiveIntOrPercent(field, v)`: strings must be integer percents, ints ≥ 0.
// - `isNotMoreThan100Percent(field, v)`.
// - `intOrPercentValue(v)`: Kruise's daemonset getIntOrPercentValue (a bad string counts as 0).
// - `valueFromIntOrPercent(v, total, roundUp)`: intstr.GetValueFromIntOrPercent (integer percents only).
import type { FieldError } from './cloneset-webhook';

const PERCENT_DETAIL = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

export function isValidPercent(s: string): boolean {
  return /^[0-9]+%$/.test(s);
}

/** appsvalidation.ValidatePositiveIntOrPercent. */
export function validatePositiveIntOrPercent(field: string, v: unknown): FieldError[] {
  if (typeof v === 'string') {
    return isValidPercent(v) ? [] : [{ type: 'Invalid', field, value: v, detail: PERCENT_DETAIL }];
  }
  if (typeof v === 'number') return v < 0 ? [{ type: 'Invalid', field, value: v, detail: 'must be greater than or equal to 0' }] : [];
  return [{ type: 'Invalid', field, value: v, detail: "must be an integer or percentage (e.g '5%')" }];
}

/** appsvalidation.IsNotMoreThan100Percent. */
export function isNotMoreThan100Percent(field: string, v: unknown): FieldError[] {
  if (typeof v !== 'string' || !isValidPercent(v) || Number(v.slice(0, -1)) <= 100) return [];
  return [{ type: 'Invalid', field, value: v, detail: 'must not be greater than 100%' }];
}

/** getIntOrPercentValue of pkg/webhook/daemonset/validating: percent → its number, int → itself, else Atoi or 0. */
export function intOrPercentValue(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return 0;
  if (isValidPercent(v)) return Number(v.slice(0, -1));
  return /^[+-]?\d+$/.test(v) ? Number(v) : 0;
}

/** intstr.GetValueFromIntOrPercent: an error text for strings that are not integer percents. */
export function valueFromIntOrPercent(v: unknown, total: number, roundUp: boolean): { value: number } | { error: string } {
  if (typeof v === 'number') return { value: v };
  if (typeof v !== 'string') return { error: 'invalid value for IntOrString: invalid type: neither int nor percentage' };
  if (!v.endsWith('%')) return { error: `invalid type: string is not a percentage` };
  const num = v.slice(0, -1);
  if (!/^[+-]?\d+$/.test(num)) return { error: `invalid value "${v}": strconv.Atoi: parsing "${num}": invalid syntax` };
  const scaled = (Number(num) * total) / 100;
  return { value: roundUp ? Math.ceil(scaled) : Math.floor(scaled) };
}
