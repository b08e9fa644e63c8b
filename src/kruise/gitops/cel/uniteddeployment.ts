// Flux health expressions (CEL) of a UnitedDeployment: gitops/health.ts unitedDeploymentHealth (the
// workload verdict on the status sums, with the pods kept old = the subsets' manual partitions, each
// capped at the subset's next replicas), as lua/uniteddeployment.ts decides it for Argo CD. The next
// replicas come from status.subsetReplicas (v1beta1: subsetStatuses) or else from Kruise's allocation
// of the spec (min/max, or specified counts and percentages with the rest shared in name order).
//
// Where it differs (CEL in Flux has no fold, sum or sort; cel.test.ts shows each case):
//   - a sum over the subsets is written out term by term, for at most MAX_SUBSETS subsets;
//   - the allocation is exact when every subset has a distinct string name (Kruise's webhook rejects
//     others): a sort is replaced by counting the names after one, which needs distinct names.
// Beyond that (more than MAX_SUBSETS subsets; or, when the allocation is needed, a subset without a
// name, or repeated or non-string names) the pods kept old are not known, and the expressions count none: the
// UnitedDeployment is Current only once every pod is updated (as the gate says then too), and one
// done at its partitions stays InProgress (Failed under a ProgressDeadlineExceeded condition)
// where the gate says done. Never Current where the gate is not.
import { clamp, conditionsOf, isNum, isStr, num, str, tbl, tblField, type FluxExpressions, fluxExpressions } from './prelude';
import { workloadVerdict } from './workload';

/** How many subsets the written-out sums cover (a UnitedDeployment has one per zone or node pool: a handful). */
export const MAX_SUBSETS = 16;

const INDEXES = `[${Array.from({ length: MAX_SUBSETS }, (_, i) => i).join(', ')}]`;

/** A sum of terms as a balanced tree (shallow for cel-go's parser, whatever the count). */
function balanced(terms: readonly string[]): string {
  if (terms.length === 1) return terms[0]!;
  const mid = Math.ceil(terms.length / 2);
  return `(${balanced(terms.slice(0, mid))} + ${balanced(terms.slice(mid))})`;
}

/** The sum of a list of doubles (a bound variable) over its first MAX_SUBSETS elements, or over indexes ≤ `upTo` (an int). */
function sum(list: string, upTo?: string): string {
  return balanced(Array.from({ length: MAX_SUBSETS }, (_, j) => `(size(${list}) > ${j}${upTo ? ` && ${j} <= ${upTo}` : ''} ? ${list}[${j}] : 0.0)`));
}

const max0 = (v: string): string => `(${v} > 0.0 ? ${v} : 0.0)`;

/** Lua's `x.f ~= nil`: present and not null. */
const present = (m: string, f: string): string => `(has(${m}.${f}) && type(${m}.${f}) != null_type)`;

/** Lua's isMap: a map, or an empty list (Lua cannot tell them apart). */
const mapish = (m: string, f: string): string => `(has(${m}.${f}) && (type(${m}.${f}) == map || (type(${m}.${f}) == list && size(${m}.${f}) == 0)))`;

/** ParseSubsetReplicas: an integer ≥ 0, or "N%" (0..100) of the UD's replicas rounded half up; -1.0 when invalid (valid values are ≥ 0). */
function parseSubsetReplicas(udReplicas: string, v: string): string {
  const fromPercent = `[double(${v}.substring(0, size(${v}) - 1))].map(pc, pc > 100.0 || pc < 0.0 ? -1.0 : double(int(${udReplicas} * pc / 100.0 + 0.5)))[0]`;
  return `(type(${v}) == int || type(${v}) == double ? (double(${v}) < 0.0 ? -1.0 : double(${v})) : type(${v}) == string && ${udReplicas} >= 0.0 && ${v}.matches('^-?[0-9]+%$') ? ${fromPercent} : -1.0)`;
}

/** The allocator's sort key: the name (used only when every subset has a distinct string name). */
const sortKey = (s: string): string => `(${isStr(s, 'name')} ? ${s}.name : '')`;

// status.subsetReplicas is used when a map, as the gate reads it (the Lua also takes an empty list, which
// it cannot tell from an empty map; no controller writes one).
const STAGES: ReadonlyArray<readonly [string, string]> = [
  ['t', `{'s': ${tbl('spec')}, 'st': ${tbl('status')}, 'md': ${tbl('metadata')}}`],
  ['ut', `{'topology': ${tblField('t.s', 'topology')}, 'strategy': ${tblField('t.s', 'updateStrategy')}, 'template': ${tblField('t.s', 'template')}}`],
  [
    'ua',
    `{'subs': (has(ut.topology.subsets) && type(ut.topology.subsets) == list ? ut.topology.subsets.filter(sx, type(sx) == map) : []), 'beta': apiVersion.endsWith('/v1beta1'), 'R': ${num('t.s', 'replicas', '0.0')}, 'expected': ${num('t.s', 'replicas', '-1.0')}, 'manual': (!${present('ut.strategy', 'type')} || (${isStr('ut.strategy', 'type')} && ut.strategy.type == 'Manual')) && ${mapish('ut.strategy', 'manualUpdate')}}`,
  ],
  ['um', `{'mu': (ua.manual && type(ut.strategy.manualUpdate) == map ? ut.strategy.manualUpdate : {})}`],
  [
    'ub',
    `{'srMap': (has(t.st.subsetReplicas) && type(t.st.subsetReplicas) == map), 'parts': (has(um.mu.partitions) && type(um.mu.partitions) == map ? um.mu.partitions : {}), 'minMax': ua.subs.exists(sx, ${present('sx', 'minReplicas')} || ${present('sx', 'maxReplicas')}), 'n': double(size(ua.subs)), 'idx': ${INDEXES}.filter(ix, ix < size(ua.subs)), 'fits': size(ua.subs) <= ${MAX_SUBSETS}, ` +
      // The allocation by name is exact when every subset has a name of its own (a nameless one has no place in the name order: the gate's sort cannot order it either).
      `'distinct': ua.subs.all(sx, ${isStr('sx', 'name')} && size(ua.subs.filter(sy, ${isStr('sy', 'name')} && sy.name == sx.name)) == 1)}`,
  ],
  ['uc', `{'useSt': !ub.srMap && ua.beta && has(t.st.subsetStatuses) && type(t.st.subsetStatuses) == list && size(t.st.subsetStatuses) > 0}`],
  // Allocation with min/max: the mins in order while replicas last, then up to the maxes in order.
  [
    'ud',
    `{'mins': ua.subs.map(sx, ${present('sx', 'minReplicas')} ? [${parseSubsetReplicas('ua.R', 'sx.minReplicas')}].map(vv, vv < 0.0 ? 0.0 : vv)[0] : 0.0), 'maxs': ua.subs.map(sx, ${present('sx', 'maxReplicas')} ? [${parseSubsetReplicas('ua.R', 'sx.maxReplicas')}].map(vv, vv < 0.0 ? 0.0 : vv)[0] : 2147483647.0)}`,
  ],
  ['ue', `{'valid': ub.idx.all(ix, ud.mins[ix] <= ud.maxs[ix]), 'A': ${clamp(sum('ud.mins'), '0.0', '(ua.R > 0.0 ? ua.R : 0.0)')}, 'diffs': ub.idx.map(ix, ud.maxs[ix] - ud.mins[ix])}`],
  [
    'uf',
    // Replicas given after subset i: max(0, min(R, the mins up to i)) less the same before it; then min(R, A + the room up to i) less the same before it.
    `{'out': ub.idx.map(ix, [${sum('ud.mins', 'ix')}].map(pi, ${max0('(pi < ua.R ? pi : ua.R)')} - ${max0('(pi - ud.mins[ix] < ua.R ? pi - ud.mins[ix] : ua.R)')})[0] + (ue.A >= ua.R ? 0.0 : [${sum('ue.diffs', 'ix')}].map(qi, (ue.A + qi < ua.R ? ue.A + qi : ua.R) - (ue.A + qi - ue.diffs[ix] < ua.R ? ue.A + qi - ue.diffs[ix] : ua.R))[0]))}`,
  ],
  // Allocation by specified counts: -1.0 for a subset without a valid one.
  ['ug', `{'spec': ua.subs.map(sx, ${present('sx', 'replicas')} && ${present('sx', 'name')} ? ${parseSubsetReplicas('ua.expected', 'sx.replicas')} : -1.0)}`],
  ['uh', `{'given': ug.spec.map(vv, vv < 0.0 ? 0.0 : vv), 'count': double(size(ug.spec.filter(vv, vv >= 0.0)))}`],
  ['ui', `{'sum': ${sum('uh.given')}, 'left': ub.n - uh.count}`],
  [
    'uj',
    `{'valid': (ua.expected != -1.0 ? !(ui.sum > ua.expected) && !(ui.sum < ua.expected && uh.count == ub.n) : uh.count == ub.n), 'avg': (ui.left > 0.0 ? double(int((ua.expected - ui.sum) / ui.left)) : 0.0)}`,
  ],
  // The rest shared evenly; the remainder one each to the last unspecified subsets in name order.
  [
    'uk',
    `{'rem': (ui.left > 0.0 ? (ua.expected - ui.sum) - ui.left * uj.avg : 0.0), 'out': ub.idx.map(ix, ug.spec[ix] >= 0.0 ? ug.spec[ix] : uj.avg + (double(size(ub.idx.filter(jx, ug.spec[jx] < 0.0 && ${sortKey('ua.subs[jx]')} > ${sortKey('ua.subs[ix]')}))) < (ui.left > 0.0 ? (ua.expected - ui.sum) - ui.left * uj.avg : 0.0) ? 1.0 : 0.0))}`,
  ],
  ['ul', `{'valid': (ub.minMax ? ue.valid : uj.valid), 'out': (ub.minMax ? uf.out : uk.out)}`],
  [
    'un',
    // Each named subset's partition (a number, else 0), capped at its next replicas when known.
    `{'kept': ub.idx.map(ix, [ua.subs[ix]].map(sx, !${isStr('sx', 'name')} ? 0.0 : [(sx.name in ub.parts && (type(ub.parts[sx.name]) == int || type(ub.parts[sx.name]) == double) ? double(ub.parts[sx.name]) : 0.0)].map(pv, ` +
      `ub.srMap ? (type(t.st.subsetReplicas) == map && sx.name in t.st.subsetReplicas && (type(t.st.subsetReplicas[sx.name]) == int || type(t.st.subsetReplicas[sx.name]) == double) && pv > double(t.st.subsetReplicas[sx.name]) ? double(t.st.subsetReplicas[sx.name]) : pv) : ` +
      `uc.useSt ? [t.st.subsetStatuses.filter(ex, type(ex) == map && ${present('ex', 'name')} ? (${isStr('ex', 'name')} && ex.name == sx.name) : sx.name == '')].map(ms, size(ms) == 0 ? pv : [type(ms[size(ms) - 1]) == map && ${isNum('ms[size(ms) - 1]', 'replicas')} ? double(ms[size(ms) - 1].replicas) : 0.0].map(rv, pv > rv ? rv : pv)[0])[0] : ` +
      `(ul.valid && pv > ul.out[ix] ? ul.out[ix] : pv))[0])[0])}`,
  ],
  ['uo', `{'exact': ub.fits && (ub.srMap || uc.useSt || ub.distinct), 'kept': ${sum('un.kept')}}`],
];

// The subset kind: the first of the four templates present (Lua's isMap); CloneSet subsets count every pod not at the update revision against the partition.
const CLONESET_SUBSETS = `(!${mapish('ut.template', 'statefulSetTemplate')} && !${mapish('ut.template', 'advancedStatefulSetTemplate')} && ${mapish('ut.template', 'cloneSetTemplate')})`;

const DEADLINE = `[${conditionsOf('t.st', 'Progressing', true)}].map(l, size(l) > 0 && has(l[0].reason) && type(l[0].reason) == string && l[0].reason == 'ProgressDeadlineExceeded')[0]`;

export const UNITED_DEPLOYMENT_VERDICT_CEL = workloadVerdict(
  [...STAGES, ['ur', `{'us': ${tblField('t.st', 'updateStatus')}}`]],
  {
    desired: 'ua.R',
    // Unknown kept pods (see the head of this file) count as none: Current only when every pod is updated.
    keptBySpec: `(uo.exact ? (uo.kept < ua.R ? uo.kept : ua.R) : 0.0)`,
    statusExpectedHas: 'false',
    statusExpected: '0.0',
    replicas: num('t.st', 'replicas', '0.0'),
    ready: num('t.st', 'readyReplicas', '0.0'),
    available: num('t.st', 'readyReplicas', '0.0'),
    updated: num('t.st', 'updatedReplicas', '0.0'),
    statusUpdatedReadyHas: 'true',
    statusUpdatedReady: num('t.st', 'updatedReadyReplicas', '0.0'),
    statusUpdatedAvailableHas: 'true',
    statusUpdatedAvailable: num('t.st', 'updatedReadyReplicas', '0.0'),
    updateRevisionHas: `(${isStr('ur.us', 'updatedRevision')} || ${isStr('t.st', 'updatedRevision')})`,
    updateRevision: `(${isStr('ur.us', 'updatedRevision')} ? ur.us.updatedRevision : ${str('t.st', 'updatedRevision')})`,
    currentRevisionHas: isStr('t.st', 'currentRevision'),
    currentRevision: str('t.st', 'currentRevision'),
    minReadyZero: 'true',
    generationHas: isNum('t.md', 'generation'),
    generation: num('t.md', 'generation', '0.0'),
    observedGeneration: num('t.st', 'observedGeneration', '0.0'),
    deadlineExceeded: `(${DEADLINE})`,
    paused: 'false',
  },
  { countsOldPods: CLONESET_SUBSETS, revisionsMustSettle: false },
);

export const UNITED_DEPLOYMENT_FLUX: FluxExpressions = fluxExpressions(UNITED_DEPLOYMENT_VERDICT_CEL);
