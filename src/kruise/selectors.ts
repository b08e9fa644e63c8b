// metav1.LabelSelector (the struct form in workload specs) in pure form: matching a label set,
// and the two string forms we write. One implementation so that the CLI, the engines and the
// simulated Kruise controllers agree on which pods a selector picks.

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/**
 * Whether a label set is picked by a selector (matchLabels + In/NotIn/Exists/DoesNotExist).
 * A missing selector picks nothing, as in kube. An operator outside that set constrains nothing
 * here (kube would refuse the selector); the callers have always behaved so and tests rely on it.
 */
export function labelSelectorMatches(sel: LabelSelector | undefined, labels: Record<string, string> | undefined): boolean {
  if (!sel) return false;
  const l = labels ?? {};
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(l, e.key);
    const vals = e.values ?? [];
    if (e.operator === 'In' && !(has && vals.includes(l[e.key]!))) return false;
    if (e.operator === 'NotIn' && has && vals.includes(l[e.key]!)) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

/** A LabelSelector as a `?labelSelector=` value, in the order written (the server does not care). */
export function labelSelectorString(sel: LabelSelector | undefined): string {
  return joinSelector(sel, false);
}

/**
 * metav1.FormatLabelSelector: `a=b,c in (d,e)` with keys and values sorted bytewise, as Kruise
 * writes status.labelSelector (so the value is stable whatever order the spec lists them in).
 */
export function formatLabelSelector(sel: LabelSelector | undefined): string {
  return joinSelector(sel, true);
}

function joinSelector(sel: LabelSelector | undefined, sorted: boolean): string {
  if (!sel) return '';
  const labels = Object.entries(sel.matchLabels ?? {});
  if (sorted) labels.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const parts = labels.map(([k, v]) => `${k}=${v}`);
  for (const e of sel.matchExpressions ?? []) {
    const values = (e.values ?? []).slice();
    if (sorted) values.sort();
    const vals = values.join(',');
    switch (e.operator) {
      case 'In':
        parts.push(`${e.key} in (${vals})`);
        break;
      case 'NotIn':
        parts.push(`${e.key} notin (${vals})`);
        break;
      case 'Exists':
        parts.push(e.key);
        break;
      case 'DoesNotExist':
        parts.push(`!${e.key}`);
        break;
    }
  }
  return parts.join(',');
}
