// kruise-manager's --feature-gates for the sandbox: `Name=true|false,...`, only the gates the
// simulation honours (with their defaults in pkg/features/kruise_features.go); an unknown gate
// is an error, as it is for kruise-manager.
//   StatefulSetStartOrdinal (Alpha, off): Advanced StatefulSet honours spec.ordinals.start; with it
//   off Kruise's getStartOrdinal ignores the field (pods start at 0) and the webhook still accepts it.
//   KruisePodReadinessGate (Alpha, off): the pod webhook injects the KruisePodReady readiness gate
//   into every pod, not only into pods of Kruise workloads.
//   TemplateNoDefaults (Alpha, off): the workload webhooks (CloneSet, Advanced StatefulSet, BroadcastJob,
//   AdvancedCronJob) leave the pod and volume claim templates as written, without template defaults.
//   InPlaceWorkloadVerticalScaling (Alpha, off; in Kruise since v1.8.0): CloneSet, Advanced StatefulSet
//   and Advanced DaemonSet resize cpu/memory in place (rules/inplace-vertical.ts) instead of recreating.
//   PodUnavailableBudgetDeleteGate (Beta, on): the pod webhook guards delete and eviction by PUB.
//   PodUnavailableBudgetUpdateGate (Alpha, off): the pod webhook and Kruise's workload controllers
//   guard in-place updates (and resizes on v1.9+) by PUB.
//   InPlacePodVerticalScaling (Alpha, off): off, a PUB protecting UPDATE also protects RESIZE.

export const FEATURE_GATE_DEFAULTS: Readonly<Record<string, boolean>> = {
  StatefulSetStartOrdinal: false,
  KruisePodReadinessGate: false,
  TemplateNoDefaults: false,
  InPlaceWorkloadVerticalScaling: false,
  PodUnavailableBudgetDeleteGate: true,
  PodUnavailableBudgetUpdateGate: false,
  InPlacePodVerticalScaling: false,
};

/** Gates kruise-manager only knows from some release on (pkg/features/kruise_features.go per tag). */
const GATE_RELEASES: Readonly<Record<string, readonly string[]>> = {
  InPlaceWorkloadVerticalScaling: ['v1.8', 'v1.9', 'master'],
};

export type FeatureGates = Readonly<Record<string, boolean>>;

/** Parses `A=true,B=false` for the imitated release (default: all); throws an Error whose message names the bad item. */
export function parseFeatureGates(text: string, kruise?: string): FeatureGates {
  const gates: Record<string, boolean> = { ...FEATURE_GATE_DEFAULTS };
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const m = /^([A-Za-z0-9]+)=(.*)$/.exec(item);
    if (!m) throw new Error(`"${item}": expected Name=true or Name=false`);
    const [, name, value] = m;
    if (!(name in FEATURE_GATE_DEFAULTS)) throw new Error(`unrecognized feature gate: ${name} (known: ${Object.keys(FEATURE_GATE_DEFAULTS).join(', ')})`);
    const releases = GATE_RELEASES[name];
    if (kruise !== undefined && releases && !releases.includes(kruise)) throw new Error(`unrecognized feature gate: ${name} (Kruise ${kruise} does not have it; it came with v1.8)`);
    if (value !== 'true' && value !== 'false') throw new Error(`invalid value of ${name}: ${value}, err: strconv.ParseBool: parsing "${value}": invalid syntax`);
    gates[name] = value === 'true';
  }
  return gates;
}

/** Whether a gate is on in these settings (absent: its default). */
export function featureEnabled(gates: FeatureGates | undefined, name: keyof typeof FEATURE_GATE_DEFAULTS): boolean {
  return gates?.[name] ?? FEATURE_GATE_DEFAULTS[name] ?? false;
}
