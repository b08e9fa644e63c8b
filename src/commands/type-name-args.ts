// The `TYPE NAME` / `TYPE/NAME` arguments of the commands that read one kind (get/describe rollout, pps):
// split as kubectl does, and a name checked before anything is sent (exit 2 on bad input).
import { usageError } from '../cli/exit';
import { dns1123SubdomainProblem } from '../kruise/names';

/** `TYPE NAME` or `TYPE/NAME` → the type as typed and the name (undefined when none was given). */
export function splitTypeName(type: string, name: string | undefined, verb: string): { type: string; name?: string } {
  if (!type.includes('/')) return { type, name };
  if (name !== undefined) throw usageError(`${verb}: unexpected argument "${name}"`);
  const n = type.slice(type.indexOf('/') + 1);
  if (n === '') throw usageError(`invalid resource "${type}": missing NAME in TYPE/NAME`);
  return { type: type.slice(0, type.indexOf('/')), name: n };
}

/** A name the API server would refuse (not a DNS-1123 subdomain, or with "%"): a usage error naming it. */
export function checkObjectName(name: string | undefined): void {
  if (name === undefined) return;
  const p = dns1123SubdomainProblem(name);
  if (p || name.includes('%')) throw usageError(`invalid name "${name.length > 80 ? `${name.slice(0, 80)}...` : name}": ${p ?? 'must not contain "%"'}`);
}
