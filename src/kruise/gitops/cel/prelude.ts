// Building blocks of the Flux health expressions (CEL, as kustomize-controller evaluates them:
// parsed, not type-checked, over the object's top-level fields as variables, with cel-go's strings
// extension). CEL has no local variables in Flux's environment (no cel.bind), so a value is named
// by a one-element comprehension (let); and no field may be read before has() says it is there,
// or the expression errors and Flux waits until its timeout. Numbers are read as double: Kubernetes
// decodes whole JSON numbers as int and others as double, and CEL refuses int/double arithmetic,
// while the Lua (and our gate) compute with one number type. The bindings are map literals with
// values of mixed types, which a type-checked environment with homogeneous literals would refuse:
// Flux parses without checking (its status evaluator cannot compile against CRDs of any shape).

/** `body` with `name` bound to `value` (any type): `[value].map(name, body)[0]`. */
export function bind(name: string, value: string, body: string): string {
  // One binding a line: the expression Flux shows in an error stays readable.
  return `[${value}].map(${name},\n${body})[0]`;
}

/** Binds several values in order (each may use the ones before). */
export function binds(pairs: ReadonlyArray<readonly [string, string]>, body: string): string {
  return pairs.reduceRight((inner, [name, value]) => bind(name, value, inner), body);
}

/** A variable that may be null or of any type, as a map ({} otherwise): Lua's tbl(). */
export function tbl(v: string): string {
  return `(type(${v}) == map ? ${v} : {})`;
}

/** The field of a map (bound variable) as a map, {} when absent or not a map. */
export function tblField(m: string, f: string): string {
  return `(has(${m}.${f}) && type(${m}.${f}) == map ? ${m}.${f} : {})`;
}

/** Whether the field of a map holds a number (int or double). */
export function isNum(m: string, f: string): string {
  return `(has(${m}.${f}) && (type(${m}.${f}) == int || type(${m}.${f}) == double))`;
}

/** The field as a double, `fallback` (a double expression) when absent or not a number. */
export function num(m: string, f: string, fallback: string): string {
  return `(${isNum(m, f)} ? double(${m}.${f}) : ${fallback})`;
}

/** Whether the field holds a string. */
export function isStr(m: string, f: string): string {
  return `(has(${m}.${f}) && type(${m}.${f}) == string)`;
}

/** The field as a string, '' when absent or not a string (compared only with non-empty literals). */
export function str(m: string, f: string): string {
  return `(${isStr(m, f)} ? ${m}.${f} : '')`;
}

/** Whether the field is the boolean true (Lua's `x == true`). */
export function isTrue(m: string, f: string): string {
  return `(has(${m}.${f}) && type(${m}.${f}) == bool && ${m}.${f})`;
}

/** A double literal. */
export function dbl(n: number): string {
  return Number.isInteger(n) ? `${n}.0` : String(n);
}

export function clamp(v: string, lo: string, hi: string): string {
  return `(${v} < ${lo} ? ${lo} : (${v} > ${hi} ? ${hi} : ${v}))`;
}

/** ceil of a double that fits an int (CEL's standard library has no ceil). */
export function ceil(v: string): string {
  return `(double(int(${v})) < ${v} ? double(int(${v})) + 1.0 : double(int(${v})))`;
}

/** Whether a double is a whole number (a partition of 1.5 is unreadable). */
export function whole(v: string): string {
  return `(${v} == double(int(${v})))`;
}

/** The list of conditions of a status map whose type is `kind`, maps only. */
export function conditionsOf(status: string, kind: string, requireStatus: boolean): string {
  const statusOk = requireStatus ? ` && has(cond.status) && type(cond.status) == string` : '';
  return `(has(${status}.conditions) && type(${status}.conditions) == list ? ${status}.conditions.filter(cond, type(cond) == map && has(cond.type) && type(cond.type) == string && cond.type == '${kind}'${statusOk}) : [])`;
}

/** A revision name <workload>-<hash> matches another with the same hash (lastIndexOf: cel-go's strings extension). */
export function revisionMatches(a: string, b: string): string {
  return `(${a} == ${b} || ${a}.substring(${a}.lastIndexOf('-') + 1) == ${b}.substring(${b}.lastIndexOf('-') + 1))`;
}

/** Kruise's percentage grammar (intstr.ts DECIMAL_PERCENT): a decimal number, then %. */
export const PERCENT_RE = '^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?%$';

/** The three expressions Flux takes, from one verdict expression that yields Healthy, Progressing, Suspended or Degraded. */
export interface FluxExpressions {
  current: string;
  inProgress: string;
  failed: string;
}

export function fluxExpressions(verdict: string): FluxExpressions {
  return {
    inProgress: `(${verdict}) in ['Progressing', 'Suspended']`,
    failed: `(${verdict}) == 'Degraded'`,
    current: `(${verdict}) == 'Healthy'`,
  };
}
