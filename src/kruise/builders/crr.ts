// ContainerRecreateRequest objects as the CLI sends them (kruise-semantics §4). Names are
// deterministic so that a retried POST or a rerun of an interrupted restart finds the
// request it already made (409 AlreadyExists) instead of restarting a pod twice.
import type { KubeObject, Pod } from '../types';
import { LABEL_VALUE_MAX } from '../names';
import { hashSuffixedName, shortHash } from './hash';

/** Labels that tie a CRR to one `restart` run and to the workload it restarts. */
export const RESTART_RUN_LABEL = 'kubectl-kruise/restart-id';
export const RESTART_WORKLOAD_KIND_LABEL = 'kubectl-kruise/workload-kind';
export const RESTART_WORKLOAD_NAME_LABEL = 'kubectl-kruise/workload-name';
/** How many pods the run planned to restart: a rerun resumes a run that has fewer CRRs. */
export const RESTART_TOTAL_ANNOTATION = 'kubectl-kruise/restart-total';
/** The containers the run restarts (comma-separated, empty = all of each pod's containers). */
export const RESTART_CONTAINERS_ANNOTATION = 'kubectl-kruise/restart-containers';
/** The workload as the user named it ("CloneSet/web"), untruncated. */
export const RESTART_WORKLOAD_ANNOTATION = 'kubectl-kruise/workload';

/**
 * ttlSecondsAfterFinished of the CRRs the CLI creates unless told otherwise. Kruise has no default:
 * without the field a finished CRR stays until someone deletes it (crr_controller.go deletes only
 * when it is set; containerrecreaterequest_types.go "the TTL duration after this
 * ContainerRecreateRequest has completed"), so every restart of a 100-pod workload would leave 100
 * more. Five minutes: the run has already waited for each CRR and printed its outcome, the CRRs stay
 * long enough to be inspected (`kubectl get crr`) or found by a prompt rerun, and a rerun of an
 * interrupted run does not need them (its Lease record counts a CRR deleted since as done).
 */
export const DEFAULT_CRR_TTL_SECONDS = 300;

export interface CrrStrategy {
  failurePolicy?: 'Fail' | 'Ignore';
  orderedRecreate?: boolean;
  /** Only known to Kruise ≥ v1.8 CRDs; sent only when requested. */
  forceRecreate?: boolean;
  unreadyGracePeriodSeconds?: number;
  minStartedSeconds?: number;
}

export interface CrrRunInfo {
  runId: string;
  workloadKind: string;
  workloadName: string;
  /** Pods the run planned to restart. */
  total: number;
  /** Containers named with -c (empty: all containers of each pod). */
  requestedContainers: string[];
}

export interface CrrBuildInput {
  /** apps.kruise.io/v1alpha1, or v1beta1 where served (main branch). */
  apiVersion: string;
  pod: Pod;
  /** Containers to recreate in this pod, already validated against it. */
  containers: string[];
  run: CrrRunInfo;
  strategy?: CrrStrategy;
  activeDeadlineSeconds?: number;
  /** Undefined: DEFAULT_CRR_TTL_SECONDS; null: none (kept until deleted). */
  ttlSecondsAfterFinished?: number | null;
}


/**
 * `<pod>-<hash of pod uid, containers and run id>`: stable for one run, different for the
 * next run on the same pod, at most 253 characters.
 */
export function crrName(podName: string, podUid: string, containers: readonly string[], runId: string): string {
  return hashSuffixedName(podName, shortHash(`${podUid}\n${[...containers].sort().join(',')}\n${runId}`));
}

/** A label value for any name: the name itself when it fits, else a prefix plus a hash. */
export function labelValueFor(name: string): string {
  if (name.length <= LABEL_VALUE_MAX) return name;
  const hash = shortHash(name);
  return `${name.slice(0, LABEL_VALUE_MAX - hash.length - 1).replace(/[-._]+$/, '')}-${hash}`;
}

export function restartRunLabels(run: Pick<CrrRunInfo, 'runId' | 'workloadKind' | 'workloadName'>): Record<string, string> {
  return {
    [RESTART_RUN_LABEL]: run.runId,
    [RESTART_WORKLOAD_KIND_LABEL]: run.workloadKind.toLowerCase(),
    [RESTART_WORKLOAD_NAME_LABEL]: labelValueFor(run.workloadName),
  };
}

/** Label selector of every CRR this CLI made for a workload (any run). */
export function workloadCrrSelector(workloadKind: string, workloadName: string): string {
  return `${RESTART_WORKLOAD_KIND_LABEL}=${workloadKind.toLowerCase()},${RESTART_WORKLOAD_NAME_LABEL}=${labelValueFor(workloadName)}`;
}

/** Builds one CRR; never sets preStop/ports/statusContext (the webhook fills them). */
export function buildCrr(input: CrrBuildInput): KubeObject {
  const { pod, run } = input;
  const podName = pod.metadata.name ?? '';
  const strategy: Record<string, unknown> = {};
  const s = input.strategy ?? {};
  if (s.failurePolicy !== undefined) strategy.failurePolicy = s.failurePolicy;
  if (s.orderedRecreate) strategy.orderedRecreate = true;
  if (s.forceRecreate) strategy.forceRecreate = true;
  if (s.unreadyGracePeriodSeconds !== undefined) strategy.unreadyGracePeriodSeconds = s.unreadyGracePeriodSeconds;
  if (s.minStartedSeconds !== undefined) strategy.minStartedSeconds = s.minStartedSeconds;
  const spec: Record<string, unknown> = {
    podName,
    containers: input.containers.map((name) => ({ name })),
  };
  if (Object.keys(strategy).length > 0) spec.strategy = strategy;
  if (input.activeDeadlineSeconds !== undefined) spec.activeDeadlineSeconds = input.activeDeadlineSeconds;
  const ttl = input.ttlSecondsAfterFinished === undefined ? DEFAULT_CRR_TTL_SECONDS : input.ttlSecondsAfterFinished;
  if (ttl !== null) spec.ttlSecondsAfterFinished = ttl;
  return {
    apiVersion: input.apiVersion,
    kind: 'ContainerRecreateRequest',
    metadata: {
      name: crrName(podName, pod.metadata.uid ?? '', input.containers, run.runId),
      namespace: pod.metadata.namespace,
      labels: restartRunLabels(run),
      annotations: {
        [RESTART_TOTAL_ANNOTATION]: String(run.total),
        [RESTART_CONTAINERS_ANNOTATION]: run.requestedContainers.join(','),
        [RESTART_WORKLOAD_ANNOTATION]: `${run.workloadKind}/${run.workloadName}`,
      },
    },
    spec,
  };
}
