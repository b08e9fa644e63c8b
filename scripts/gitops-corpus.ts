// Generates test/fixtures/gitops/corpus/: every distinct state the sandbox's watch delivers of
// CloneSets (v1alpha1 and v1beta1), Advanced StatefulSets, Advanced DaemonSets and Kruise Rollouts
// (v1beta1 canary and blue-green on the v0.6.2 CRDs, v1alpha1 on v0.4.4) while real rollouts run:
// partition, in place, surge, failing pods, paused, undone, Rollout steps approved and cancelled.
// test/unit/kruise/gitops/corpus.test.ts runs the generated Argo CD Lua over them against our gate.
//
//   npm run build && npx tsx scripts/gitops-corpus.ts
//
// Watches rather than polls, so no state a controller wrote is skipped; states are deduplicated by
// the fields the health rules read (healthKey), so a controller rewriting the same counts adds nothing.
// At settled points (the object unchanged across the read) the CLI's own verdict,
// `rollout status --watch=false`, is recorded in the snapshot's header: the test checks the oracle
// against it there.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { kubectl, REPO_ROOT, runCli } from '../test/helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../test/helpers/sandbox';
import { KRUISE_CRDS, ROLLOUT_CRDS, ROLLOUT_FIXTURES } from '../test/e2e/rollout-kruise-helpers';

const OUT = join(REPO_ROOT, 'test', 'fixtures', 'gitops', 'corpus');
const READY_DELAY = '150ms';

type Obj = Record<string, any>;

const TIMES = new Set(['lastTransitionTime', 'lastUpdateTime', 'lastProbeTime', 'lastHeartbeatTime']);

/** The object without what no rule reads and what differs run to run (uids, versions, managers, times). */
function stripped(obj: Obj): Obj {
  const o = structuredClone(obj);
  const md = o.metadata ?? {};
  for (const k of ['uid', 'resourceVersion', 'creationTimestamp', 'managedFields', 'selfLink', 'deletionTimestamp']) delete md[k];
  if (md.annotations) {
    delete md.annotations['kubectl.kubernetes.io/last-applied-configuration'];
    if (Object.keys(md.annotations).length === 0) delete md.annotations;
  }
  for (const ref of md.ownerReferences ?? []) delete ref.uid;
  for (const c of o.status?.conditions ?? []) for (const t of TIMES) delete c[t];
  // rollout/gate.ts reads the sub-status's lastUpdateTime (when a timed pause ends): kept there only.
  return o;
}

/**
 * What the health verdicts read (workloads/<kind>.ts adapters, rollout/read.ts + gate.ts, and the Lua):
 * two states equal here get one file. Messages, replica counts of a Rollout's sub-status and revision
 * names are left out (no verdict depends on them, only on whether the revisions are the same).
 */
function healthKey(o: Obj): string {
  const s = o.status ?? {};
  const conditions = (s.conditions ?? []).map((c: Obj) => [c.type, c.status, c.reason]);
  const common = [o.apiVersion, o.metadata?.name, o.metadata?.generation, o.metadata?.deletionTimestamp !== undefined, s.observedGeneration, conditions];
  if (o.kind === 'Rollout') {
    const sub = s.canaryStatus ?? s.blueGreenStatus;
    const subKey = sub && [sub.currentStepIndex, sub.currentStepState, sub.nextStepIndex, sub.finalisingStep, sub.observedWorkloadGeneration];
    return JSON.stringify([...common, o.spec?.strategy, o.spec?.disabled, s.phase, s.phase === 'Initial' ? s.message : undefined, s.currentStepIndex, s.currentStepState, s.canaryStatus ? 'canary' : s.blueGreenStatus ? 'blueGreen' : '-', subKey]);
  }
  const counts = ['replicas', 'readyReplicas', 'availableReplicas', 'updatedReplicas', 'updatedReadyReplicas', 'updatedAvailableReplicas', 'expectedUpdatedReplicas', 'desiredNumberScheduled', 'currentNumberScheduled', 'numberReady', 'numberAvailable', 'updatedNumberScheduled'].map((k) => s[k]);
  const updateRevision = s.updateRevision ?? s.daemonSetHash;
  return JSON.stringify([...common, o.spec?.replicas, o.spec?.minReadySeconds, o.spec?.updateStrategy, counts, updateRevision !== undefined, s.currentRevision !== undefined, s.currentRevision === s.updateRevision]);
}

const KIND_DIRS: Record<string, string> = { CloneSet: 'cloneset', StatefulSet: 'statefulset', DaemonSet: 'daemonset', Rollout: 'rollout' };

class Corpus {
  scenario = 'setup';
  step = 'created';
  private seen = new Map<string, Set<string>>();
  private counts = new Map<string, number>();
  /** key of the latest state of each object → its file, for the CLI's verdict. */
  private latest = new Map<string, { key: string; file: string; header: string[]; body: string }>();
  total = 0;

  record(obj: Obj): void {
    const dir = KIND_DIRS[obj.kind];
    if (!dir || this.scenario === 'setup') return;
    const id = `${obj.kind}/${obj.apiVersion}/${obj.metadata.namespace}/${obj.metadata.name}`;
    const key = healthKey(obj);
    const scope = `${dir}/${this.scenario}`;
    let seen = this.seen.get(scope);
    if (!seen) this.seen.set(scope, (seen = new Set()));
    if (seen.has(key)) {
      this.latest.set(id, { ...this.latest.get(id)!, key });
      return;
    }
    seen.add(key);
    const n = (this.counts.get(scope) ?? 0) + 1;
    this.counts.set(scope, n);
    const file = join(OUT, dir, `${this.scenario}-${n}.yaml`);
    const header = [
      `# scenario: ${this.scenario}`,
      `# step: ${this.step}`,
      `# ${obj.apiVersion} ${obj.kind} ${obj.metadata.namespace}/${obj.metadata.name}, state ${n} of this scenario as the sandbox's watch delivered it`,
      '# (generated by scripts/gitops-corpus.ts; managedFields, uids, resourceVersions and condition times left out)',
    ];
    const body = stringify(stripped(obj));
    mkdirSync(join(OUT, dir), { recursive: true });
    writeFileSync(file, `${header.join('\n')}\n${body}`);
    this.latest.set(id, { key, file, header, body });
    this.total++;
  }

  /** The CLI's verdict on the latest state of `obj`, when that state is still the one the CLI read. */
  async cliVerdict(sb: Sandbox, path: string, target: string): Promise<void> {
    const before = (await sb.api('GET', path)).body as Obj;
    const res = await runCli(['rollout', 'status', target, '--watch=false', '-n', before.metadata.namespace], { kubeconfig: sb.kubeconfig });
    const after = (await sb.api('GET', path)).body as Obj;
    if (healthKey(before) !== healthKey(after)) return;
    const id = `${after.kind}/${after.apiVersion}/${after.metadata.namespace}/${after.metadata.name}`;
    const last = this.latest.get(id);
    if (!last || last.key !== healthKey(after) || last.header.some((l) => l.startsWith('# cli:'))) return;
    last.header.push(`# cli: rollout status ${target} --watch=false exited ${res.code} on this state`);
    writeFileSync(last.file, `${last.header.join('\n')}\n${last.body}`);
  }

  summary(): string {
    return [...this.counts].map(([s, n]) => `${s}: ${n}`).join('\n');
  }
}

/** A watch of a collection (every namespace): each event's object to `onObject`, until stopped. */
function watch(sb: Sandbox, path: string, onObject: (o: Obj) => void): () => void {
  const url = new URL(`${path}?watch=true&allowWatchBookmarks=false`, sb.url);
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (sb.tokens.admin) headers.Authorization = `Bearer ${sb.tokens.admin}`;
  let stopped = false;
  let req: ReturnType<typeof request> | undefined;
  const start = (): void => {
    req = request(url, { headers }, (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        buf += d;
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i).trim();
          buf = buf.slice(i + 1);
          if (!line) continue;
          const ev = JSON.parse(line) as { type: string; object: Obj };
          if (ev.type === 'ADDED' || ev.type === 'MODIFIED') onObject(ev.object);
        }
      });
      // A watch the server ends is started again (it lists what exists as ADDED: duplicates dedupe).
      res.on('end', () => !stopped && setTimeout(start, 10));
    });
    req.on('error', () => !stopped && setTimeout(start, 50));
    req.end();
  };
  start();
  return () => {
    stopped = true;
    req?.destroy();
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function run(sb: Sandbox, args: string[], input?: string): Promise<void> {
  const res = await kubectl(args, sb.kubeconfig, input === undefined ? {} : { input });
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${res.stderr}`);
}

async function cli(sb: Sandbox, args: string[]): Promise<void> {
  const res = await runCli(args, { kubeconfig: sb.kubeconfig });
  if (res.code !== 0) throw new Error(`kubectl-kruise ${args.join(' ')}: ${res.code} ${res.stderr}`);
}

async function deletePodsWithImage(sb: Sandbox, app: string, img: string): Promise<void> {
  const pods = ((await get(sb, `/api/v1/namespaces/default/pods?labelSelector=app%3D${app}`)).items ?? []) as Obj[];
  for (const p of pods) if (p.spec.containers[0].image === img) await run(sb, ['delete', 'pod', p.metadata.name, '--wait=false']);
}

async function get(sb: Sandbox, path: string): Promise<Obj> {
  return (await sb.api('GET', path)).body as Obj;
}

/** A workload whose controller is done: observed, every pod updated and ready (or its partition reached). */
function settledWorkload(o: Obj, kind: string): boolean {
  const s = o.status ?? {};
  if ((s.observedGeneration ?? 0) < o.metadata.generation) return false;
  if (kind === 'DaemonSet') return s.desiredNumberScheduled > 0 && s.numberReady === s.desiredNumberScheduled && s.numberAvailable === s.desiredNumberScheduled;
  return s.replicas === o.spec.replicas && s.readyReplicas === o.spec.replicas && (s.availableReplicas ?? s.readyReplicas) === o.spec.replicas;
}

interface WorkloadPlan {
  kind: 'CloneSet' | 'StatefulSet' | 'DaemonSet';
  apiVersion: string;
  resource: string;
  name: string;
  spec: Obj;
}

function manifest(w: WorkloadPlan, image = 'nginx:1.25'): string {
  const labels = { app: w.name };
  return stringify({
    apiVersion: w.apiVersion,
    kind: w.kind,
    metadata: { name: w.name, namespace: 'default', labels },
    spec: {
      ...(w.kind === 'DaemonSet' ? {} : { replicas: 5 }),
      ...(w.kind === 'StatefulSet' ? { serviceName: w.name } : {}),
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'app', image }] } },
      ...w.spec,
    },
  });
}

/** Drives one workload through a scenario: each step a write, then a wait for `until` (or a pause). */
type Step = readonly [step: string, act: () => Promise<void>, until?: (o: Obj) => boolean, holdMs?: number];

async function workloadScenario(sb: Sandbox, corpus: Corpus, w: WorkloadPlan, scenario: string, steps: readonly Step[]): Promise<void> {
  const path = `/apis/apps.kruise.io/${w.apiVersion.split('/')[1]}/namespaces/default/${w.resource}/${w.name}`;
  const target = `${resourceName(w.resource)}/${w.name}`;
  corpus.scenario = scenario;
  corpus.step = 'created';
  await run(sb, ['apply', '-f', '-'], manifest(w));
  await waitUntil(`${scenario}: ${w.name} ready`, async () => settledWorkload(await get(sb, path), w.kind), 30_000);
  await sleep(100);
  await corpus.cliVerdict(sb, path, target);
  for (const [step, act, until, holdMs] of steps) {
    corpus.step = step;
    await act();
    if (until) await waitUntil(`${scenario}: ${step}`, async () => until(await get(sb, path)), 40_000);
    await sleep(holdMs ?? 150);
    await corpus.cliVerdict(sb, path, target);
  }
  corpus.scenario = 'setup';
  await run(sb, ['delete', resourceName(w.resource), w.name, '--wait=false']);
}

/** kubectl's name of the resource: apps.kruise.io spelled out where apps/v1 has the same name. */
const resourceName = (resource: string): string => (resource === 'clonesets' ? 'cloneset' : `${resource}.apps.kruise.io`);
const patch = (sb: Sandbox, w: WorkloadPlan, body: Obj) => () => run(sb, ['patch', resourceName(w.resource), w.name, '--type=merge', '-p', JSON.stringify(body)]);
const image = (img: string) => ({ spec: { template: { spec: { containers: [{ name: 'app', image: img }] } } } });
const updated = (n: number | 'all') => (o: Obj): boolean => {
  const s = o.status ?? {};
  if ((s.observedGeneration ?? 0) < o.metadata.generation) return false;
  const want = n === 'all' ? (o.kind === 'DaemonSet' ? s.desiredNumberScheduled : o.spec.replicas) : n;
  const upd = o.kind === 'DaemonSet' ? s.updatedNumberScheduled : s.updatedReplicas;
  const ready = o.kind === 'DaemonSet' ? s.numberAvailable === s.desiredNumberScheduled : s.availableReplicas === o.spec.replicas && s.replicas === o.spec.replicas;
  const updReady = o.kind === 'DaemonSet' ? true : (s.updatedReadyReplicas ?? upd) >= want;
  return upd === want && ready && updReady;
};

/** Rolling-update knobs in the shape of the kind and version (v1alpha1 CloneSet: on updateStrategy itself). */
function strategy(w: Pick<WorkloadPlan, 'kind' | 'apiVersion'>, knobs: Obj, type?: string): Obj {
  if (w.kind === 'CloneSet' && w.apiVersion.endsWith('v1alpha1')) return { updateStrategy: { ...(type ? { type } : {}), ...knobs } };
  const rolling = { ...knobs };
  if (type === 'InPlaceIfPossible') {
    if (w.kind === 'DaemonSet') rolling.rollingUpdateType = 'InPlaceIfPossible';
    else rolling.podUpdatePolicy = 'InPlaceIfPossible';
  }
  return { updateStrategy: { type: 'RollingUpdate', rollingUpdate: rolling } };
}

async function workloadScenarios(sb: Sandbox, corpus: Corpus, kind: WorkloadPlan['kind'], apiVersion: string, resource: string, tag: string): Promise<void> {
  const plan = (name: string, spec: Obj): WorkloadPlan => ({ kind, apiVersion, resource, name, spec });
  const ds = kind === 'DaemonSet';
  const sts = kind === 'StatefulSet';
  const inPlaceTemplate = sts ? { template: { metadata: { labels: { app: `${tag}-inplace` } }, spec: { readinessGates: [{ conditionType: 'InPlaceUpdateReady' }], containers: [{ name: 'app', image: 'nginx:1.25' }] } } } : {};
  const partitionKnob = (n: number | string) => (ds ? { partition: typeof n === 'number' ? Math.min(n, 2) : n } : { partition: n });
  const rollingKnobs = (extra: Obj) => ({ maxUnavailable: 1, ...extra });

  // partition: half held back, then released
  let w = plan(`${tag}-partition`, strategy({ kind, apiVersion }, rollingKnobs(partitionKnob(3)), ds || sts || apiVersion.endsWith('v1beta1') ? undefined : 'ReCreate'));
  await workloadScenario(sb, corpus, w, `${tag}-partition`, [
    ['image nginx:1.26 under partition 3', patch(sb, w, image('nginx:1.26')), updated(ds ? 1 : 2)],
    // (an Advanced StatefulSet's partition is an integer only)
    [sts ? 'partition 1' : 'partition 40%', patch(sb, w, { spec: strategy({ kind, apiVersion }, { partition: sts ? 1 : '40%' }) }), (o) => o.status?.observedGeneration === o.metadata.generation && settledWorkload(o, kind), 1500],
    ['partition 0', patch(sb, w, { spec: strategy({ kind, apiVersion }, { partition: 0 }) }), updated('all')],
  ]);

  // in place
  w = plan(`${tag}-inplace`, { ...strategy({ kind, apiVersion }, rollingKnobs({}), 'InPlaceIfPossible'), ...(sts ? {} : {}) });
  if (sts) w.spec = { ...w.spec, ...inPlaceTemplate };
  await workloadScenario(sb, corpus, w, `${tag}-inplace`, [
    ['image nginx:1.26 in place', patch(sb, w, image('nginx:1.26')), updated('all')],
    // (an Advanced StatefulSet's spec.minReadySeconds cannot change, Kruise's validation says)
    [sts ? 'image nginx:1.27 in place' : 'image nginx:1.27 in place, minReadySeconds 1', patch(sb, w, { spec: { ...(sts ? {} : { minReadySeconds: 1 }), ...image('nginx:1.27').spec } }), updated('all'), 300],
  ]);

  // surge (DaemonSets: maxSurge with maxUnavailable 0)
  w = plan(`${tag}-surge`, strategy({ kind, apiVersion }, { maxUnavailable: 0, maxSurge: ds ? 1 : 2 }, kind === 'CloneSet' && apiVersion.endsWith('v1alpha1') ? 'ReCreate' : undefined));
  if (!sts) {
    await workloadScenario(sb, corpus, w, `${tag}-surge`, [['image nginx:1.26 with surge', patch(sb, w, image('nginx:1.26')), updated('all')]]);
  } else {
    // Advanced StatefulSets have no surge: maxUnavailable 2 instead (which Kruise allows under Parallel only).
    w = plan(`${tag}-maxunavailable`, { podManagementPolicy: 'Parallel', ...strategy({ kind, apiVersion }, { maxUnavailable: 2 }) });
    await workloadScenario(sb, corpus, w, `${tag}-maxunavailable`, [['image nginx:1.26, 2 at a time', patch(sb, w, image('nginx:1.26')), updated('all')]]);
  }

  // failing pods: an image that never pulls, then undone
  w = plan(`${tag}-failing`, strategy({ kind, apiVersion }, rollingKnobs({})));
  const target = `${resourceName(resource)}/${w.name}`;
  await workloadScenario(sb, corpus, w, `${tag}-failing`, [
    ['image nginx:fail-pull (never pulls)', patch(sb, w, image('nginx:fail-pull')), undefined, 2500],
    ...(sts
      ? ([
          // A StatefulSet does not replace a pod that never became ready (Kubernetes' "forced rollback"):
          // the person deletes it, as the docs say.
          ['rollout undo', () => cli(sb, ['rollout', 'undo', target]), undefined, 1000],
          ['stuck pod deleted', () => deletePodsWithImage(sb, w.name, 'nginx:fail-pull'), updated('all')],
        ] satisfies Step[])
      : ([['rollout undo', () => cli(sb, ['rollout', 'undo', target]), updated('all')]] satisfies Step[])),
  ]);

  // paused mid-rollout, then resumed
  w = plan(`${tag}-paused`, strategy({ kind, apiVersion }, rollingKnobs({})));
  const pausedTarget = target.replace(`${tag}-failing`, `${tag}-paused`);
  await workloadScenario(sb, corpus, w, `${tag}-paused`, [
    ['image nginx:1.26', patch(sb, w, image('nginx:1.26')), (o) => (ds ? o.status?.updatedNumberScheduled : o.status?.updatedReplicas) >= 1],
    ['rollout pause', () => cli(sb, ['rollout', 'pause', pausedTarget]), undefined, 1200],
    ['rollout resume', () => cli(sb, ['rollout', 'resume', pausedTarget]), updated('all')],
  ]);
}

// ---- Kruise Rollouts ----

async function rolloutScenarios(sb: Sandbox, corpus: Corpus, version: 'v1beta1' | 'v1alpha1'): Promise<void> {
  const RO = `/apis/rollouts.kruise.io/${version}/namespaces/default/rollouts`;
  const name = version === 'v1beta1' ? 'rollout-web' : 'rollout-web-alpha';
  const ro = async (n = name) => get(sb, `${RO}/${n}`);
  const sub = (r: Obj) => r.status?.canaryStatus ?? r.status?.blueGreenStatus ?? {};
  const at = (n: string, index: number, state: string) => async () => {
    const r = await ro(n);
    return r.status?.observedGeneration === r.metadata.generation && sub(r).currentStepIndex === index && sub(r).currentStepState === state;
  };
  const healthy = (n: string) => async () => {
    const r = await ro(n);
    return r.status?.phase === 'Healthy' && r.status.conditions?.find((c: Obj) => c.type === 'Progressing')?.reason === 'Completed';
  };
  const cancelled = (n: string) => async () => (await ro(n)).status?.conditions?.some((c: Obj) => c.type === 'Succeeded' && c.status === 'False') && (await healthy(n)());
  const step = async (s: string, act: () => Promise<void>, until: () => Promise<unknown>, n = name, holdMs = 150) => {
    corpus.step = s;
    await act();
    await waitUntil(`${corpus.scenario}: ${s}`, until, 40_000);
    await sleep(holdMs);
    await corpus.cliVerdict(sb, `${RO}/${n}`, `rollout/${n}`);
  };
  const setImage = (cs: string, img: string) => () => run(sb, ['patch', 'cloneset', cs, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: img }])]);
  const approve = (n: string, field = 'canaryStatus') => () => run(sb, ['patch', 'rollout', n, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { [field]: { currentStepState: 'StepReady' } } })]);
  const approveCli = (n: string) => () => cli(sb, ['rollout', 'approve', `rollout/${n}`]);
  const tag = `rollout-${version}`;

  corpus.scenario = 'setup';
  await run(sb, ['apply', '-f', join(ROLLOUT_FIXTURES, 'sandbox-cloneset-web-10.yaml'), '-f', join(ROLLOUT_FIXTURES, `sandbox-rollout-web-${version}.yaml`)]);
  // (a Rollout over a settled workload turns Healthy without a Progressing condition)
  await waitUntil('first Healthy', async () => (await ro()).status?.phase === 'Healthy', 30_000);

  corpus.scenario = `${tag}-canary`;
  await step('image nginx:1.26: step 1 waits for approval', setImage('web', 'nginx:1.26'), at(name, 1, 'StepPaused'));
  await step('approved: step 2 pauses 5 s', approveCli(name), at(name, 2, 'StepPaused'), name, 1000);
  await step('step 3 (100%), then completed', async () => {}, healthy(name), name, 300);

  corpus.scenario = `${tag}-paused`;
  await step('image nginx:1.27: step 1 waits for approval', setImage('web', 'nginx:1.27'), at(name, 1, 'StepPaused'));
  await step('spec.strategy.paused', () => run(sb, ['patch', 'rollout', name, '--type=merge', '-p', '{"spec":{"strategy":{"paused":true}}}']), async () => (await ro()).status?.conditions?.some((c: Obj) => c.reason === 'Paused'));
  await step('approved while paused', approve(name), async () => true, name, 1000);
  await step('resumed', () => run(sb, ['patch', 'rollout', name, '--type=merge', '-p', '{"spec":{"strategy":{"paused":false}}}']), async () => (await healthy(name)()) || (await at(name, 2, 'StepPaused')()));
  await step('completed', async () => {}, healthy(name), name, 300);

  corpus.scenario = `${tag}-cancelled`;
  await step('image nginx:1.28: step 1 waits for approval', setImage('web', 'nginx:1.28'), at(name, 1, 'StepPaused'));
  await step('rollout undo cloneset/web (cancel)', () => cli(sb, ['rollout', 'undo', 'cloneset/web']), cancelled(name), name, 300);

  corpus.scenario = `${tag}-failing`;
  await step('image nginx:fail-pull: step 1 never ready', setImage('web', 'nginx:fail-pull'), async () => true, name, 2500);
  // Back to the stable template cancels; should the controller take it as a release of its own
  // instead, that release is approved through to the end.
  await step('rollout undo cloneset/web (cancel)', () => cli(sb, ['rollout', 'undo', 'cloneset/web']), async () => (await cancelled(name)()) || (await at(name, 1, 'StepPaused')()), name, 300);
  if (!(await cancelled(name)())) await step('approved to the end', approveCli(name), healthy(name), name, 300);

  corpus.scenario = `${tag}-disabled`;
  await step('image nginx:1.29: step 1 waits for approval', setImage('web', 'nginx:1.29'), at(name, 1, 'StepPaused'));
  await step('spec.disabled', () => run(sb, ['patch', 'rollout', name, '--type=merge', '-p', '{"spec":{"disabled":true}}']), async () => (await ro()).status?.phase === 'Disabled', name, 300);
  await step('enabled again', () => run(sb, ['patch', 'rollout', name, '--type=merge', '-p', '{"spec":{"disabled":false}}']), async () => (await ro()).status?.phase === 'Healthy', name, 300);

  corpus.scenario = 'setup';
  await run(sb, ['delete', 'rollout', name, '--timeout=20s']);
  await run(sb, ['delete', 'cloneset', 'web', '--wait=false']);

  if (version !== 'v1beta1') return;
  // blue-green (v1beta1 only): "green" released to the end (one step, every new pod beside the old, then
  // approval), "blue" cancelled at its first step (its second step routes traffic: a Service the
  // sandbox does not have, so it is not released to the end here).
  await run(sb, ['apply', '-f', join(ROLLOUT_FIXTURES, 'sandbox-cloneset-green-4.yaml'), '-f', join(ROLLOUT_FIXTURES, 'sandbox-rollout-green-bluegreen.yaml')]);
  await run(sb, ['apply', '-f', join(ROLLOUT_FIXTURES, 'sandbox-cloneset-blue-4.yaml'), '-f', join(ROLLOUT_FIXTURES, 'sandbox-rollout-blue-bluegreen.yaml')]);
  for (const n of ['rollout-green', 'rollout-blue']) await waitUntil(`${n} Healthy`, async () => (await ro(n)).status?.phase === 'Healthy', 30_000);
  corpus.scenario = `${tag}-bluegreen`;
  await step('image nginx:1.26: every new pod beside the old, waiting for approval', setImage('green', 'nginx:1.26'), at('rollout-green', 1, 'StepPaused'), 'rollout-green');
  await step('approved: completed', approve('rollout-green', 'blueGreenStatus'), healthy('rollout-green'), 'rollout-green', 300);
  corpus.scenario = `${tag}-bluegreen-cancelled`;
  await step('image nginx:1.26: step 1 (50% beside the old pods) waits for approval', setImage('blue', 'nginx:1.26'), at('rollout-blue', 1, 'StepPaused'), 'rollout-blue');
  await step('template back to nginx:1.25 (cancel)', setImage('blue', 'nginx:1.25'), cancelled('rollout-blue'), 'rollout-blue', 300);
  corpus.scenario = 'setup';
}

async function withSandbox(start: () => Promise<Sandbox>, paths: string[], corpus: Corpus, drive: (sb: Sandbox) => Promise<void>): Promise<void> {
  const sb = await start();
  const stops = paths.map((p) => watch(sb, p, (o) => corpus.record(o)));
  try {
    await drive(sb);
    await sleep(300);
  } catch (err) {
    process.stderr.write(sb.output().slice(-4000));
    throw err;
  } finally {
    for (const s of stops) s();
    await sb.stop();
  }
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const want = (part: string) => only.length === 0 || only.includes(part);
  if (only.length === 0) rmSync(OUT, { recursive: true, force: true });
  const corpus = new Corpus();
  const withCrds = (release: string) => () => startSandbox({ readyDelay: READY_DELAY, extraArgs: ['--crds', KRUISE_CRDS, '--crds', ROLLOUT_CRDS(release)] });

  if (want('v1.9') || want('v1beta1')) {
    await withSandbox(withCrds('v0.6.2'), ['/apis/apps.kruise.io/v1alpha1/clonesets', '/apis/apps.kruise.io/v1beta1/statefulsets', '/apis/apps.kruise.io/v1alpha1/daemonsets', '/apis/rollouts.kruise.io/v1beta1/rollouts'], corpus, async (sb) => {
      if (want('v1.9')) {
        await workloadScenarios(sb, corpus, 'CloneSet', 'apps.kruise.io/v1alpha1', 'clonesets', 'cloneset-v1alpha1');
        await workloadScenarios(sb, corpus, 'StatefulSet', 'apps.kruise.io/v1beta1', 'statefulsets', 'asts-v1beta1');
        await workloadScenarios(sb, corpus, 'DaemonSet', 'apps.kruise.io/v1alpha1', 'daemonsets', 'ads-v1alpha1');
      }
      if (want('v1beta1')) await rolloutScenarios(sb, corpus, 'v1beta1');
    });
  }
  if (want('v0.4')) {
    await withSandbox(withCrds('v0.4.4'), ['/apis/rollouts.kruise.io/v1alpha1/rollouts'], corpus, (sb) => rolloutScenarios(sb, corpus, 'v1alpha1'));
  }
  if (want('master')) {
    // Kruise's main branch serves CloneSet v1beta1 (rollingUpdate holds the knobs) and Advanced DaemonSet v1beta1.
    await withSandbox(() => startSandbox({ readyDelay: READY_DELAY, kruise: 'master' }), ['/apis/apps.kruise.io/v1beta1/clonesets', '/apis/apps.kruise.io/v1alpha1/statefulsets'], corpus, async (sb) => {
      await workloadScenarios(sb, corpus, 'CloneSet', 'apps.kruise.io/v1beta1', 'clonesets', 'cloneset-v1beta1');
      await workloadScenarios(sb, corpus, 'StatefulSet', 'apps.kruise.io/v1alpha1', 'statefulsets', 'asts-v1alpha1');
    });
  }
  console.log(corpus.summary());
  console.log(`${corpus.total} objects`);
}

await main();
