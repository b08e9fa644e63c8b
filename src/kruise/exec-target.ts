// Which container of a pod `exec` runs in, pure. Without -S, kubectl's rules (pkg/cmd/exec/exec.go,
// pkg/cmd/util/podcmd/podcmd.go): -c must name a container, init or ephemeral container of the pod;
// without -c, the kubectl.kubernetes.io/default-container annotation, else the first container.
// With -S, -c names a sidecar of a SidecarSet injected into the pod (kruise.io/sidecarset-hash's
// sidecarList), and a hot-upgrade sidecar is the pair NAME-1/NAME-2 of which the pod's annotation
// kruise.io/sidecarset-working-hotupgrade-container names the working one (Kruise v1.9.0
// pkg/control/sidecarcontrol/util_hotupgrade.go GetPodHotUpgradeInfoInAnnotations; kruise-tools
// pkg/cmd/exec/exec.go enters that one). Kruise itself takes NAME-2 when the annotation is silent
// (GetPodHotUpgradeContainers); we refuse instead: guessing could land in the empty twin.
import { hotUpgradeNames, readHashAnnotation, SIDECARSET_HASH_ANNOTATION, SIDECARSET_WORKING_HOTUPGRADE_ANNOTATION } from './rules/sidecarset';
import type { Container, ContainerStatus, Pod } from './types';
import { jsonObjectOf } from './workloads/access';

export const DEFAULT_CONTAINER_ANNOTATION = 'kubectl.kubernetes.io/default-container';

/** A SidecarSet sidecar as a pod carries it. */
export interface PodSidecar {
  /** The SidecarSet that injected it ("" when only the working-container annotation names the sidecar). */
  sidecarSet: string;
  /** The container's name in the SidecarSet (a hot pair is NAME-1/NAME-2 in the pod). */
  name: string;
  /** Hot upgrade: the pair and the working container the annotation names (raw, possibly wrong). */
  hot?: { pair: [string, string]; working?: string };
}

export type ExecTarget =
  | { ok: true; container: string; /** A line for stderr (kubectl's "Defaulted container ..."), unless -q. */ notice?: string }
  | {
      ok: false;
      /** Bad input (exit 2: nothing was run); otherwise the pod's state is the problem (exit 1). */
      input: boolean;
      message: string;
      hint?: string;
    };

type EphemeralContainer = { name: string };
const ephemeral = (pod: Pod): EphemeralContainer[] => (Array.isArray(pod.spec.ephemeralContainers) ? (pod.spec.ephemeralContainers as EphemeralContainer[]) : []);

/** podcmd.AllContainerNames: "a, b, dbg (ephem), init (init)". */
export function allContainerNames(pod: Pod): string {
  return [
    ...pod.spec.containers.map((c) => c.name),
    ...ephemeral(pod).map((c) => `${c.name} (ephem)`),
    ...(pod.spec.initContainers ?? []).map((c) => `${c.name} (init)`),
  ].join(', ');
}

function findContainer(pod: Pod, name: string): Container | EphemeralContainer | undefined {
  return pod.spec.containers.find((c) => c.name === name) ?? pod.spec.initContainers?.find((c) => c.name === name) ?? ephemeral(pod).find((c) => c.name === name);
}

const podName = (pod: Pod): string => pod.metadata.name ?? '';

/** exec.go Run: a Succeeded or Failed pod has nothing left to exec into. */
export function completedPodProblem(pod: Pod): string | undefined {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return `cannot exec into a container in a completed pod; current phase is ${phase}`;
  return undefined;
}

function statusOf(pod: Pod, name: string): ContainerStatus | undefined {
  const all = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? []), ...((pod.status as { ephemeralContainerStatuses?: ContainerStatus[] } | undefined)?.ephemeralContainerStatuses ?? [])];
  return all.find((s) => s.name === name);
}

/**
 * Why the kubelet would refuse to exec into the container now, from its last reported status:
 * "waiting: ContainerCreating", "terminated: Completed". Undefined when it runs, or when the
 * kubelet has not reported it yet (the server then decides).
 */
export function containerNotRunning(pod: Pod, name: string): string | undefined {
  const st = statusOf(pod, name);
  if (!st?.state || st.state.running) return undefined;
  if (st.state.waiting) return `waiting: ${st.state.waiting.reason ?? 'unknown reason'}`;
  if (st.state.terminated) return `terminated: ${st.state.terminated.reason ?? `exit code ${st.state.terminated.exitCode ?? '?'}`}`;
  return undefined;
}

/** kubectl's choice: -c must exist; else the default-container annotation, else the first container (said on stderr when there are others). */
export function plainExecTarget(pod: Pod, requested: string | undefined): ExecTarget {
  if (requested) {
    if (!findContainer(pod, requested)) return { ok: false, input: true, message: `container ${requested} is not valid for pod ${podName(pod)} out of: ${allContainerNames(pod)}` };
    return { ok: true, container: requested };
  }
  if (pod.spec.containers.length === 0) return { ok: false, input: false, message: `pod ${pod.metadata.namespace}/${podName(pod)} does not have any containers` };
  const annotated = pod.metadata.annotations?.[DEFAULT_CONTAINER_ANNOTATION];
  if (annotated && findContainer(pod, annotated)) return { ok: true, container: annotated };
  const first = pod.spec.containers[0]!.name;
  const others = pod.spec.containers.length > 1 || (pod.spec.initContainers?.length ?? 0) > 0 || ephemeral(pod).length > 0;
  return { ok: true, container: first, notice: others ? `Defaulted container "${first}" out of: ${allContainerNames(pod)}` : undefined };
}

/** The working-container annotation: sidecar → container, or why it cannot be read. */
function workingAnnotation(pod: Pod): { map: Record<string, unknown>; problem?: string } {
  const text = pod.metadata.annotations?.[SIDECARSET_WORKING_HOTUPGRADE_ANNOTATION];
  if (text === undefined) return { map: {} };
  const map = jsonObjectOf(text);
  if (map) return { map };
  return { map: {}, problem: `its annotation ${SIDECARSET_WORKING_HOTUPGRADE_ANNOTATION} is not a JSON object (${JSON.stringify(text.slice(0, 80))})` };
}

/**
 * The SidecarSet sidecars of a pod, in SidecarSet then sidecar order, from the pod's annotations
 * alone: kruise.io/sidecarset-hash lists each SidecarSet's sidecars (sidecarList); a sidecar whose
 * name the working-container annotation holds, or whose NAME-1 and NAME-2 the pod runs, is a hot pair.
 */
export function podSidecars(pod: Pod): PodSidecar[] {
  const hashes = readHashAnnotation(pod, SIDECARSET_HASH_ANNOTATION);
  const { map } = workingAnnotation(pod);
  const has = (n: string): boolean => pod.spec.containers.some((c) => c.name === n);
  const out: PodSidecar[] = [];
  for (const sidecarSet of Object.keys(hashes).sort()) {
    for (const name of [...(hashes[sidecarSet]!.sidecarList ?? [])].sort()) {
      const pair = hotUpgradeNames(name);
      const working = typeof map[name] === 'string' ? (map[name] as string) : undefined;
      const hot = name in map || (!has(name) && pair.every(has));
      out.push(hot ? { sidecarSet, name, hot: { pair, working } } : { sidecarSet, name });
    }
  }
  // A hot sidecar the working annotation names but no sidecarList does (hash annotations of old Kruise
  // releases, and kruise-tools' own fixture): the annotation alone says it is a SidecarSet's.
  for (const name of Object.keys(map).sort()) {
    if (out.some((s) => s.name === name)) continue;
    out.push({ sidecarSet: '', name, hot: { pair: hotUpgradeNames(name), working: typeof map[name] === 'string' ? (map[name] as string) : undefined } });
  }
  return out;
}

const ofSet = (s: PodSidecar): string => (s.sidecarSet ? `sidecarset ${s.sidecarSet}` : 'a SidecarSet');
const describeSidecar = (s: PodSidecar): string => `${s.name} (${ofSet(s)}${s.hot ? ', hot upgrade' : ''})`;

/**
 * -S: the container serving the SidecarSet sidecar `requested` (or the pod's only sidecar). A hot
 * pair resolves to the working container the annotation names, which must be one of the pair and
 * exist; a missing or inconsistent annotation is an error, never a guess.
 */
export function sidecarExecTarget(pod: Pod, requested: string | undefined): ExecTarget {
  const name = podName(pod);
  const sidecars = podSidecars(pod);
  if (sidecars.length === 0) {
    const why = pod.metadata.annotations?.[SIDECARSET_HASH_ANNOTATION] ? 'its kruise.io/sidecarset-hash annotation lists no sidecars' : 'no SidecarSet injected it (no kruise.io/sidecarset-hash annotation)';
    return { ok: false, input: true, message: `pod "${name}" has no SidecarSet sidecars: ${why}`, hint: `hint: without -S, -c takes any of its containers: ${allContainerNames(pod)}` };
  }
  let sidecar: PodSidecar | undefined;
  if (!requested) {
    const names = [...new Set(sidecars.map((s) => s.name))];
    if (names.length > 1) return { ok: false, input: true, message: `pod "${name}" has several SidecarSet sidecars: choose one with -c (${sidecars.map(describeSidecar).join(', ')})` };
    sidecar = sidecars[0]!;
  } else {
    const matching = sidecars.filter((s) => s.name === requested);
    if (matching.length > 1) {
      return { ok: false, input: false, message: `pod "${name}" lists sidecar "${requested}" under several SidecarSets (${matching.map((s) => s.sidecarSet).join(', ')}): its annotation kruise.io/sidecarset-hash is inconsistent` };
    }
    sidecar = matching[0];
    if (!sidecar) {
      const pairOf = sidecars.find((s) => s.hot?.pair.includes(requested));
      if (pairOf) {
        const now = pairOf.hot!.working && pairOf.hot!.pair.includes(pairOf.hot!.working) ? ` (working now: ${pairOf.hot!.working})` : '';
        return {
          ok: false,
          input: true,
          message: `container "${requested}" is one of the hot-upgrade pair of sidecar "${pairOf.name}" (${ofSet(pairOf)}) in pod "${name}": -S takes the sidecar's name`,
          hint: `hint: -S -c ${pairOf.name} enters the working container${now}; without -S, -c ${requested} enters this one whether it works or not`,
        };
      }
      return { ok: false, input: true, message: `container "${requested}" is not a sidecar of any SidecarSet on pod "${name}" (its sidecars: ${sidecars.map(describeSidecar).join(', ')})` };
    }
  }
  const has = (n: string): boolean => !!findContainer(pod, n);
  if (!sidecar.hot) {
    if (!has(sidecar.name)) return { ok: false, input: false, message: `pod "${name}" has no container "${sidecar.name}", though sidecarset ${sidecar.sidecarSet} is recorded as injected with it (kruise.io/sidecarset-hash)` };
    return { ok: true, container: sidecar.name };
  }
  const [c1, c2] = sidecar.hot.pair;
  const annotation = workingAnnotation(pod);
  if (annotation.problem) return { ok: false, input: false, message: `pod "${name}" runs the hot-upgrade pair ${c1}/${c2} of sidecar "${sidecar.name}" but ${annotation.problem}`, hint: pairHint(c1, c2) };
  const working = sidecar.hot.working;
  if (working === undefined) {
    return {
      ok: false,
      input: false,
      message: `pod "${name}" runs the hot-upgrade pair ${c1}/${c2} of sidecar "${sidecar.name}" (${ofSet(sidecar)}) but its annotation ${SIDECARSET_WORKING_HOTUPGRADE_ANNOTATION} does not say which one is working`,
      hint: pairHint(c1, c2),
    };
  }
  if (working !== c1 && working !== c2) {
    return { ok: false, input: false, message: `pod "${name}": annotation ${SIDECARSET_WORKING_HOTUPGRADE_ANNOTATION} names "${working}" as the working container of sidecar "${sidecar.name}", which is not one of its pair ${c1}/${c2}`, hint: pairHint(c1, c2) };
  }
  if (!has(working)) {
    return { ok: false, input: false, message: `pod "${name}": annotation ${SIDECARSET_WORKING_HOTUPGRADE_ANNOTATION} names "${working}" as the working container of sidecar "${sidecar.name}", but the pod has no container "${working}"`, hint: has(working === c1 ? c2 : c1) ? pairHint(c1, c2) : undefined };
  }
  const idle = working === c1 ? c2 : c1;
  const notRunning = containerNotRunning(pod, working);
  if (notRunning) {
    const twinRuns = has(idle) && !containerNotRunning(pod, idle) && !!statusOf(pod, idle);
    return {
      ok: false,
      input: false,
      message: `the working container "${working}" of hot-upgrade sidecar "${sidecar.name}" in pod "${name}" is not running (${notRunning})`,
      hint: twinRuns ? `hint: a hot upgrade may be under way and "${idle}" still runs: exec into it with -c ${idle}, without -S` : undefined,
    };
  }
  return { ok: true, container: working, notice: `Using container "${working}", the working one of hot-upgrade sidecar "${sidecar.name}" (${ofSet(sidecar)})` };
}

const pairHint = (c1: string, c2: string): string => `hint: exec into one of the pair by name, without -S: -c ${c1} or -c ${c2}`;
