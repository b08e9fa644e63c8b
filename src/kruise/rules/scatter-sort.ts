// Kruise's scatter sorter (pkg/util/updatesort/scatter_sort.go), used by CloneSet's
// updateStrategy.scatterStrategy: pods carrying a term's label are spread evenly through the update
// order instead of being updated together. Works on indexes into the whole pod list, as Kruise's
// does: the density of matching pods is judged on all pods, the order only moves the waiting ones.

export interface ScatterTerm {
  key: string;
  value: string;
}

type Labels = Record<string, string> | undefined;

/** Sorts `indexes` (into `pods`, whose entries may be undefined) by every scatter term in turn. */
export function scatterSort(terms: readonly ScatterTerm[], pods: readonly Labels[], indexes: number[]): number[] {
  if (terms.length === 0 || indexes.length <= 1) return indexes;
  let out = indexes;
  for (const term of scatterTerms(terms, pods, indexes)) out = scatterByTerm(term, pods, out);
  return out;
}

/** With several terms, the ones present on the waiting pods, most frequent first (ties in strategy order). */
function scatterTerms(terms: readonly ScatterTerm[], pods: readonly Labels[], indexes: number[]): ScatterTerm[] {
  if (terms.length === 1) return [...terms];
  const counts = new Map<string, { term: ScatterTerm; count: number; order: number }>();
  for (const term of terms) {
    for (const i of indexes) {
      if (pods[i]?.[term.key] !== term.value) continue;
      const id = `${term.key}:${term.value}`;
      const seen = counts.get(id);
      if (seen) seen.count++;
      else counts.set(id, { term: { key: term.key, value: term.value }, count: 1, order: counts.size });
    }
  }
  return [...counts.values()].sort((a, b) => b.count - a.count || a.order - b.order).map((e) => e.term);
}

interface ScatterGroup {
  groupNum: number;
  matchedGroupSize: number;
  unmatchedGroupSize: number;
  unmatchedRemainder: number;
}

/** Go's math.Round: halves away from zero (the values here are never negative). */
const roundHalfUp = (x: number) => Math.floor(x + 0.5);
/** Go's integer division of non-negative ints. */
const div = (a: number, b: number) => Math.trunc(a / b);

function newGroup(matched: number, unmatched: number): ScatterGroup {
  const groupNum = Math.min(matched, unmatched);
  return { groupNum, matchedGroupSize: roundHalfUp(matched / groupNum), unmatchedGroupSize: roundHalfUp(unmatched / groupNum), unmatchedRemainder: 0 };
}

function groupByDensity(totalMatched: number, totalUnmatched: number, updateMatched: number, updateUnmatched: number): ScatterGroup {
  const total = newGroup(totalMatched, totalUnmatched);
  const update = newGroup(updateMatched, updateUnmatched);
  // float32 in Go; the ratios of small pod counts compare the same in float64
  if (totalUnmatched / totalMatched >= updateUnmatched / updateMatched) return update;
  const g: ScatterGroup = { groupNum: 0, matchedGroupSize: total.matchedGroupSize, unmatchedGroupSize: total.unmatchedGroupSize, unmatchedRemainder: 0 };
  g.groupNum = Math.min(div(updateMatched, g.matchedGroupSize), div(updateUnmatched, g.unmatchedGroupSize));
  g.unmatchedRemainder = updateUnmatched - g.groupNum * g.unmatchedGroupSize;
  return g;
}

/** Kruise's scatterPodsByRule: interleaves matching and other waiting pods, the last matching one at the end. */
export function scatterByTerm(term: ScatterTerm, pods: readonly Labels[], indexes: number[]): number[] {
  const matches = (l: Labels) => (l?.[term.key] ?? '') === term.value;
  let matched = indexes.filter((i) => matches(pods[i]));
  let unmatched = indexes.filter((i) => !matches(pods[i]));
  if (matched.length <= 1 || unmatched.length <= 1) return indexes;
  let totalMatched = 0;
  let totalUnmatched = 0;
  for (const l of pods) {
    if (!l) continue;
    if (matches(l)) totalMatched++;
    else totalUnmatched++;
  }
  const last = matched[matched.length - 1];
  matched = matched.slice(0, -1);
  totalMatched--;

  const group = groupByDensity(totalMatched, totalUnmatched, matched.length, unmatched.length);
  const out: number[] = [];
  if (group.unmatchedRemainder > 0) {
    out.push(...unmatched.slice(0, group.unmatchedRemainder));
    unmatched = unmatched.slice(group.unmatchedRemainder);
  }
  const migrate = (src: number[], size: number): number[] => {
    if (src.length === 0) return src;
    if (src.length < size) {
      out.push(...src);
      return [];
    }
    out.push(...src.slice(0, size));
    return src.slice(size);
  };
  for (let i = 0; i < group.groupNum; i++) {
    matched = migrate(matched, group.matchedGroupSize);
    unmatched = migrate(unmatched, group.unmatchedGroupSize);
  }
  out.push(...matched, ...unmatched, last);
  return out;
}
