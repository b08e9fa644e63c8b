// Taints and tolerations as the scheduler's predicates read them: k8s.io/api core/v1 toleration.go
// (ToleratesTaint) and component-helpers scheduling/corev1/helpers.go (TolerationsTolerateTaint,
// FindMatchingUntoleratedTaint). Used by the BroadcastJob node fitness check.

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

/** Toleration.ToleratesTaint: an empty effect or key matches any; Exists ignores the value. */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? '') {
    case '':
    case 'Equal':
      return (t.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

export function tolerationsTolerateTaint(tolerations: readonly Toleration[] | undefined, taint: Taint): boolean {
  return (tolerations ?? []).some((t) => toleratesTaint(t, taint));
}

/** The first taint passing `filter` that no toleration tolerates (FindMatchingUntoleratedTaint). */
export function findUntoleratedTaint(taints: readonly Taint[] | undefined, tolerations: readonly Toleration[] | undefined, filter: (t: Taint) => boolean): Taint | undefined {
  return (taints ?? []).find((taint) => filter(taint) && !tolerationsTolerateTaint(tolerations, taint));
}
