// Evaluates the Flux health expressions we generate with a conformant CEL implementation
// (@bufbuild/cel, a dev dependency only), the way kustomize-controller does (fluxcd/pkg runtime/cel,
// read for its behaviour, not copied): the object's top-level fields are the variables; whole JSON
// numbers are ints and the others doubles (Kubernetes' unstructured decoding); cel-go's strings
// extension is on; first a status.observedGeneration that differs from metadata.generation is
// InProgress, then inProgress, failed, current in that order, the first true one wins, and none
// true is InProgress. An evaluation error (or a non-boolean) is 'Error': Flux keeps polling until
// its timeout.
import { celEnv, isCelError, parse, plan, type CelInput } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';

export type FluxStatus = 'Current' | 'InProgress' | 'Failed' | 'Error';

export interface FluxExprs {
  current: string;
  inProgress?: string;
  failed?: string;
}

const env = celEnv({ funcs: strings });

/** A JSON value as the CEL input Kubernetes would decode it to: whole numbers as int (bigint). */
export function celInput(value: unknown): CelInput {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(celInput);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [k, celInput(v)])) as CelInput;
  }
  return value as CelInput;
}

type Program = (bindings: Record<string, CelInput>) => unknown;
const programs = new Map<string, Program>();

function program(expr: string): Program {
  let p = programs.get(expr);
  if (!p) {
    p = plan(env, parse(expr)) as Program;
    programs.set(expr, p);
  }
  return p;
}

/** One expression over an object: true, false, or the error / non-boolean as a string. */
export function evalBool(expr: string, obj: unknown): boolean | string {
  const bindings = celInput(obj) as Record<string, CelInput>;
  let out: unknown;
  try {
    out = program(expr)(bindings);
  } catch (err) {
    return `throws: ${err instanceof Error ? err.message : String(err)}`;
  }
  if (isCelError(out)) return `error: ${out.message}`;
  if (typeof out !== 'boolean') return `not a boolean: ${String(out)}`;
  return out;
}

/** Flux's status for the object from the expressions alone (no generation pre-check). */
export function exprStatus(e: FluxExprs, obj: unknown): FluxStatus {
  for (const [expr, status] of [[e.inProgress, 'InProgress'], [e.failed, 'Failed'], [e.current, 'Current']] as const) {
    if (expr === undefined) continue;
    const r = evalBool(expr, obj);
    if (typeof r === 'string') return 'Error';
    if (r) return status;
  }
  return 'InProgress';
}

/** Whether Flux decides InProgress before reading the expressions: observedGeneration ≠ generation (both integers). */
export function generationPrecheck(obj: unknown): boolean {
  const o = obj as { metadata?: { generation?: unknown }; status?: { observedGeneration?: unknown } } | null;
  const observed = o?.status?.observedGeneration;
  const generation = o?.metadata?.generation;
  return Number.isInteger(observed) && Number.isInteger(generation) && observed !== generation;
}

/** Flux's status for the object, as kustomize-controller decides it. */
export function fluxStatus(e: FluxExprs, obj: unknown): FluxStatus {
  return generationPrecheck(obj) ? 'InProgress' : exprStatus(e, obj);
}

/** The Flux status our gate's health maps to: Healthy → Current, Degraded → Failed, the rest InProgress. */
export function fluxStatusOfHealth(health: string): FluxStatus {
  return health === 'Healthy' ? 'Current' : health === 'Degraded' ? 'Failed' : 'InProgress';
}
