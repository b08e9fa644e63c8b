// scaledown's decision (src/kruise/plans/scaledown.ts): which pods a write removes, the guarded JSON
// patch, rerun semantics through the recorded annotation, and every refusal before a write. Rows of
// Kruise's own tables are named after their Go file and test; every patched object is checked
// against the real CRD schemas of v1.3.0, v1.9.0 and master.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { applyJsonPatch } from '../../../../src/kruise/containers';
import { activeOrdinals } from '../../../../src/kruise/partition';
import {
  decideScaledown,
  formatOrdinals,
  MAX_RECORDED_PODS,
  parseOrdinals,
  parsePodNames,
  parseScaledownRecord,
  podNamesToLookUp,
  reserveEntries,
  SCALEDOWN_ANNOTATION,
  type PodFacts,
  type ScaledownDecision,
  type ScaledownInput,
} from '../../../../src/kruise/plans/scaledown';
import type { KubeObject } from '../../../../src/kruise/types';
import { crdSchema, validate } from '../builders/crd-schema';

const FIXTURES = join(import.meta.dirname, '../../../fixtures/scaledown');
type Obj = KubeObject & { spec: Record<string, any> };
const load = (file: string): Obj => {
  const o = parse(readFileSync(join(FIXTURES, file), 'utf8')) as Obj;
  o.metadata.uid = file.startsWith('asts') ? 'uid-db' : 'uid-web';
  o.metadata.resourceVersion = '100';
  return o;
};

const pod = (name: string, over: Partial<PodFacts> = {}): PodFacts => ({ name, uid: `uid-${name}`, controllerUid: 'uid-web', terminating: false, specifiedDelete: false, ...over });
const podsOf = (...list: PodFacts[]): Map<string, PodFacts> => new Map(list.map((p) => [p.name, p]));
const WEB_PODS = ['web-a', 'web-b', 'web-c', 'web-d', 'web-e', 'web-f', 'web-g', 'web-h'].map((n) => pod(n));

function write(d: ScaledownDecision): Extract<ScaledownDecision, { kind: 'write' }> {
  assert.equal(d.kind, 'write', JSON.stringify(d));
  return d as Extract<ScaledownDecision, { kind: 'write' }>;
}
function refusal(d: ScaledownDecision): string {
  assert.equal(d.kind, 'refused', JSON.stringify(d));
  return (d as { message: string }).message;
}
const cloneSetInput = (request: ScaledownInput['request'], pods = podsOf(...WEB_PODS), workload = load('cloneset-web.yaml')): ScaledownInput => ({ kind: 'CloneSet', workload, request, pods });

test('--pods and --ordinals parse like the contract: names checked, ranges expanded, nothing twice', () => {
  assert.deepEqual(parsePodNames('web-a, web-b'), { ok: true, value: ['web-a', 'web-b'] });
  for (const [text, why] of [
    ['', /at least one pod/],
    ['web-a,', /empty pod name/],
    ['Web_A', /invalid pod name "Web_A"/],
    ['web-a,web-a', /"web-a" is named twice/],
  ] as const) {
    const r = parsePodNames(text);
    assert.ok(!r.ok && why.test(r.message), `${text}: ${JSON.stringify(r)}`);
  }
  assert.deepEqual(parseOrdinals('2,5-7'), { ok: true, value: [2, 5, 6, 7] });
  assert.deepEqual(parseOrdinals('7,0'), { ok: true, value: [0, 7] });
  for (const [text, why] of [
    ['', /at least one ordinal/],
    ['-1', /invalid ordinal "-1"/],
    ['3-1', /first ordinal must not be above/],
    ['a', /invalid ordinal "a"/],
    ['2,1-3', /ordinal 2 is given twice/],
    ['0-99999', /more than 10000/],
  ] as const) {
    const r = parseOrdinals(text);
    assert.ok(!r.ok && why.test(r.message), `${text}: ${JSON.stringify(r)}`);
  }
  assert.equal(formatOrdinals([7, 0, 1, 2, 5]), '0-2, 5, 7');
  assert.deepEqual(reserveEntries([5, 6, 7, 2], false), [2, 5, 6, 7]);
  assert.deepEqual(reserveEntries([5, 6, 7, 2], true), [2, '5-7']);
});

test('CloneSet: the named pods go into podsToDelete and replicas drop by their number, in one patch guarded by resourceVersion and replicas', () => {
  const cs = load('cloneset-web.yaml');
  const d = write(decideScaledown(cloneSetInput({ pods: ['web-a', 'web-b'] })));
  assert.equal(d.from, 8);
  assert.equal(d.to, 6);
  assert.deepEqual(d.removing.map((t) => t.name), ['web-a', 'web-b']);
  assert.deepEqual(d.ops.slice(0, 3), [
    { op: 'test', path: '/metadata/resourceVersion', value: '100' },
    { op: 'test', path: '/spec/replicas', value: 8 },
    { op: 'replace', path: '/spec/replicas', value: 6 },
  ]);
  const after = applyJsonPatch(cs, d.ops) as Obj;
  assert.deepEqual(after.spec.scaleStrategy, { podsToDelete: ['web-a', 'web-b'] });
  assert.deepEqual(parseScaledownRecord(after.metadata.annotations?.[SCALEDOWN_ANNOTATION]).pods, { 'web-a': 'uid-web-a', 'web-b': 'uid-web-b' });
});

test('CloneSet: names already in podsToDelete stay; the new ones are appended behind a test of the list', () => {
  const cs = load('cloneset-web.yaml');
  cs.spec.scaleStrategy = { podsToDelete: ['web-h'], maxUnavailable: 1 };
  // web-h is in the list for replacement (someone else's): scaledown of web-a leaves it alone.
  const d = write(decideScaledown(cloneSetInput({ pods: ['web-a'] }, undefined, cs)));
  assert.ok(d.ops.some((o) => o.op === 'test' && o.path === '/spec/scaleStrategy/podsToDelete'));
  assert.deepEqual((applyJsonPatch(cs, d.ops) as Obj).spec.scaleStrategy, { podsToDelete: ['web-h', 'web-a'], maxUnavailable: 1 });
});

test('TestValidate (pkg/webhook/cloneset/validating/validation_test.go) rows as scaledown requests: success case 0, invalid-podsToDelete-1 and -3', () => {
  // success case 0: podsToDelete names p0, a pod of this CloneSet
  const cs = load('cloneset-web.yaml');
  assert.equal(decideScaledown(cloneSetInput({ pods: ['p0'] }, podsOf(pod('p0')), cs)).kind, 'write');
  // invalid-podsToDelete-1: a name twice is refused while parsing (nothing read or written)
  assert.ok(!parsePodNames('p0,p0').ok);
  // invalid-podsToDelete-3: a pod that does not exist
  assert.match(refusal(decideScaledown(cloneSetInput({ pods: ['p1'] }, podsOf(pod('p0')), cs))), /^pod "p1" not found in namespace "default"$/);
});

test('validateScaleStrategy (validation.go) as scaledown refusals: another workload\'s pod, a pod without controller, a terminating pod; all named in one line', () => {
  const pods = podsOf(
    pod('web-a'),
    pod('api-x', { controllerUid: 'uid-api', controllerLabel: 'cloneset "api"' }),
    pod('bare', { controllerUid: undefined }),
    pod('web-gone', { terminating: true }),
  );
  assert.equal(refusal(decideScaledown(cloneSetInput({ pods: ['api-x'] }, pods))), 'pod "api-x" does not belong to cloneset "web" (its controller is cloneset "api")');
  assert.equal(refusal(decideScaledown(cloneSetInput({ pods: ['bare'] }, pods))), 'pod "bare" does not belong to cloneset "web" (it has no controller)');
  assert.equal(refusal(decideScaledown(cloneSetInput({ pods: ['web-gone'] }, pods))), 'pod "web-gone" is already being deleted');
  const all = refusal(decideScaledown(cloneSetInput({ pods: ['web-a', 'api-x', 'web-gone'] }, pods)));
  assert.match(all, /^pod "api-x" does not belong .* \(and 1 more: pod "web-gone" is already being deleted\)$/);
});

test('CloneSet: pods Kruise already takes away for another reason are refused, with the way to scale in instead', () => {
  const cs = load('cloneset-web.yaml');
  cs.spec.scaleStrategy = { podsToDelete: ['web-a'] };
  const d = decideScaledown(cloneSetInput({ pods: ['web-a'] }, undefined, cs));
  assert.match(refusal(d), /already in spec\.scaleStrategy\.podsToDelete of cloneset "web", not put there by scaledown/);
  assert.match((d as { hint?: string }).hint ?? '', /lower spec\.replicas by one/);
  assert.match(refusal(decideScaledown(cloneSetInput({ pods: ['web-b'] }, podsOf(pod('web-b', { lifecycleState: 'PreparingDelete' }))))), /lifecycle state PreparingDelete/);
  assert.match(refusal(decideScaledown(cloneSetInput({ pods: ['web-b'] }, podsOf(pod('web-b', { specifiedDelete: true }))))), /apps\.kruise\.io\/specified-delete/);
});

test('CloneSet: replicas never go below 0', () => {
  const cs = load('cloneset-web.yaml');
  cs.spec.replicas = 1; // scaling in: two pods still exist
  assert.equal(refusal(decideScaledown(cloneSetInput({ pods: ['web-a', 'web-b'] }, undefined, cs))), 'cannot remove 2 pods from cloneset "web": it has 1 replicas');
});

test('rerun after success: the recorded pods count as done whether listed, terminating or gone; nothing is written twice', () => {
  const cs = load('cloneset-web.yaml');
  const first = write(decideScaledown(cloneSetInput({ pods: ['web-a', 'web-b'] }, undefined, cs)));
  const after = applyJsonPatch(cs, first.ops) as Obj;
  // 1. right after the write: both still listed in podsToDelete and alive
  assert.deepEqual(decideScaledown(cloneSetInput({ pods: ['web-a', 'web-b'] }, undefined, after)), {
    kind: 'unchanged',
    replicas: 6,
    already: [
      { name: 'web-a', uid: 'uid-web-a' },
      { name: 'web-b', uid: 'uid-web-b' },
    ],
  });
  // 2. terminating, and the controller truncated podsToDelete
  const truncated = structuredClone(after);
  truncated.spec.scaleStrategy = {};
  const going = podsOf(...WEB_PODS.map((p) => (p.name === 'web-a' || p.name === 'web-b' ? { ...p, terminating: true } : p)));
  assert.equal(decideScaledown(cloneSetInput({ pods: ['web-a', 'web-b'] }, going, truncated)).kind, 'unchanged');
  // 3. gone
  const rest = podsOf(...WEB_PODS.slice(2));
  assert.equal(decideScaledown(cloneSetInput({ pods: ['web-a', 'web-b'] }, rest, truncated)).kind, 'unchanged');
  // A rerun naming one more pod removes only that one: 6 -> 5, the record keeps the pods that may still exist.
  const third = write(decideScaledown(cloneSetInput({ pods: ['web-a', 'web-c'] }, going, truncated)));
  assert.equal(third.to, 5);
  assert.deepEqual(third.already.map((t) => t.name), ['web-a']);
  const record = parseScaledownRecord((applyJsonPatch(truncated, third.ops) as Obj).metadata.annotations?.[SCALEDOWN_ANNOTATION]);
  assert.deepEqual(Object.keys(record.pods), ['web-a', 'web-b', 'web-c']);
  // ...and once web-a and web-b are gone a later write keeps them recorded (issue #26: it dropped them, and a rerun
  // of the first scaledown, which had overlapped another, exited 2 "pod web-a not found").
  const afterThird = applyJsonPatch(truncated, third.ops) as Obj;
  const later = write(decideScaledown(cloneSetInput({ pods: ['web-d'] }, podsOf(...WEB_PODS.slice(2)), afterThird)));
  const afterLater = applyJsonPatch(afterThird, later.ops) as Obj;
  assert.deepEqual(Object.keys(parseScaledownRecord(afterLater.metadata.annotations?.[SCALEDOWN_ANNOTATION]).pods), ['web-a', 'web-b', 'web-c', 'web-d']);
  assert.equal(decideScaledown(cloneSetInput({ pods: ['web-a', 'web-b'] }, podsOf(...WEB_PODS.slice(4)), afterLater)).kind, 'unchanged');
});

test('the record is bounded: past MAX_RECORDED_PODS the gone pods go first, the ones still there never', () => {
  const cs = load('cloneset-web.yaml');
  const many: Record<string, string> = {};
  for (let i = 0; i < MAX_RECORDED_PODS + 10; i++) many[`web-gone-${String(i).padStart(4, '0')}`] = `uid-${i}`;
  many['web-b'] = 'uid-web-b';
  cs.metadata.annotations = { [SCALEDOWN_ANNOTATION]: JSON.stringify({ pods: many }) };
  const d = write(decideScaledown(cloneSetInput({ pods: ['web-a'] }, undefined, cs)));
  const kept = parseScaledownRecord((applyJsonPatch(cs, d.ops) as Obj).metadata.annotations?.[SCALEDOWN_ANNOTATION]).pods;
  assert.equal(Object.keys(kept).length, MAX_RECORDED_PODS);
  assert.ok(kept['web-a'] && kept['web-b'], 'the pod removed now and one still there are kept');
  assert.equal(kept['web-gone-0000'], undefined, 'the first gone names go');
});

test('a pod that reuses a recorded name (a new UID) is a new pod, not one already removed', () => {
  const cs = load('cloneset-web.yaml');
  cs.metadata.annotations = { [SCALEDOWN_ANNOTATION]: JSON.stringify({ pods: { 'web-a': 'old-uid' } }) };
  const d = write(decideScaledown(cloneSetInput({ pods: ['web-a'] }, undefined, cs)));
  assert.deepEqual(d.removing, [{ name: 'web-a', uid: 'uid-web-a' }]);
  assert.deepEqual(d.already, []);
});

test('an unreadable record is ignored (no pod counts as done), never fatal', () => {
  const cs = load('cloneset-web.yaml');
  cs.metadata.annotations = { [SCALEDOWN_ANNOTATION]: '{not json' };
  assert.equal(write(decideScaledown(cloneSetInput({ pods: ['web-a'] }, undefined, cs))).to, 7);
});

// ---- Advanced StatefulSet ----

const podOfSet = (ordinal: number, set = 'db'): PodFacts => pod(`${set}-${ordinal}`, { controllerUid: 'uid-db' });
const astsInput = (request: ScaledownInput['request'], over: (o: Obj) => void = () => {}, ordinals = [0, 1, 2, 3, 4], rangesAccepted = false): ScaledownInput => {
  const workload = load('asts-db.yaml');
  over(workload);
  return { kind: 'AdvancedStatefulSet', workload, request, pods: podsOf(...ordinals.map((o) => podOfSet(o))), rangesAccepted };
};

test('ASTS --ordinals 2: ordinal 2 reserved, replicas 5 -> 4, every other pod keeps its ordinal', () => {
  const input = astsInput({ ordinals: [2] });
  assert.deepEqual(podNamesToLookUp(input), ['db-2']);
  const d = write(decideScaledown(input));
  assert.deepEqual([d.from, d.to], [5, 4]);
  assert.deepEqual(d.reserved, [2]);
  const after = applyJsonPatch(input.workload, d.ops) as Obj;
  assert.deepEqual(after.spec.reserveOrdinals, [2]);
  assert.deepEqual(activeOrdinals(after.spec.replicas, 0, after.spec.reserveOrdinals), [0, 1, 3, 4]);
  // rerun: ordinal 2 is reserved by scaledown (recorded), so nothing to write
  assert.deepEqual(decideScaledown({ ...input, workload: after, pods: podsOf(...[0, 1, 3, 4].map((o) => podOfSet(o))) }), { kind: 'unchanged', replicas: 4, already: [{ name: 'db-2', ordinal: 2 }] });
});

test('ASTS ranges: "a-b" strings only where the CRD takes them (v1.8+), ints otherwise; appended after a test of the list', () => {
  const ints = write(decideScaledown(astsInput({ ordinals: [3, 4] }, (o) => (o.spec.reserveOrdinals = [9]), [0, 1, 2, 3, 4])));
  assert.deepEqual(ints.reserved, [3, 4]);
  assert.deepEqual(ints.ops.filter((o) => o.path.startsWith('/spec/reserveOrdinals')), [
    { op: 'test', path: '/spec/reserveOrdinals', value: [9] },
    { op: 'add', path: '/spec/reserveOrdinals/-', value: 3 },
    { op: 'add', path: '/spec/reserveOrdinals/-', value: 4 },
  ]);
  const ranged = write(decideScaledown(astsInput({ ordinals: [1, 3, 4] }, () => {}, [0, 1, 2, 3, 4], true)));
  assert.deepEqual(ranged.reserved, [1, '3-4']);
});

test('TestGetStatefulSetReplicasRange (pkg/controller/statefulset/stateful_set_utils_test.go) rows: active ordinals with ordinals.start and reserveOrdinals 1&3', () => {
  // replicas 4, reserve {1, 3}: start 0 -> 0,2,4,5 (range 6); start 2 -> 2,4,5,6 (5); start 3 -> 4,5,6,7 (5); start 4 -> 4..7 (4)
  const rows: Array<[number, number[]]> = [
    [0, [0, 2, 4, 5]],
    [2, [2, 4, 5, 6]],
    [3, [4, 5, 6, 7]],
    [4, [4, 5, 6, 7]],
  ];
  for (const [start, active] of rows) {
    const setup = (o: Obj) => Object.assign(o.spec, { replicas: 4, reserveOrdinals: [1, 3], ordinals: { start } });
    // Every active ordinal can be scaled down; removing the highest leaves the others where they are.
    const top = active[active.length - 1]!;
    const d = write(decideScaledown(astsInput({ ordinals: [top] }, setup, active)));
    const after = applyJsonPatch(astsInput({ ordinals: [] }, setup).workload, d.ops) as Obj;
    assert.deepEqual(activeOrdinals(after.spec.replicas, start, after.spec.reserveOrdinals), active.slice(0, -1), `start ${start}`);
    // A reserved ordinal (not by scaledown) and one below start or past the range are not active pods' ordinals.
    assert.match(refusal(decideScaledown(astsInput({ ordinals: [3] }, setup, active))), /ordinal 3 of advanced statefulset "db" is already reserved \(spec\.reserveOrdinals\), not by scaledown/, `start ${start}`);
    assert.match(refusal(decideScaledown(astsInput({ ordinals: [top + 1] }, setup, active))), new RegExp(`ordinal ${top + 1} is not an active ordinal of advanced statefulset "db" \\(active: `), `start ${start}`);
  }
});

test('ASTS --pods maps pod names to ordinals; a pod of another set, one without an ordinal or a missing pod is refused', () => {
  const d = write(decideScaledown(astsInput({ pods: ['db-1', 'db-4'] })));
  assert.deepEqual(d.removing.map((t) => [t.name, t.ordinal]), [
    ['db-1', 1],
    ['db-4', 4],
  ]);
  assert.deepEqual(d.reserved, [1, 4]);
  const input = astsInput({ pods: ['web-a'] });
  (input.pods as Map<string, PodFacts>).set('web-a', pod('web-a', { controllerLabel: 'cloneset "web"' }));
  assert.match(refusal(decideScaledown(input)), /pod "web-a" does not belong to advanced statefulset "db" \(its controller is cloneset "web"\)/);
  const odd = astsInput({ pods: ['db-x'] });
  (odd.pods as Map<string, PodFacts>).set('db-x', pod('db-x', { controllerUid: 'uid-db' }));
  assert.match(refusal(decideScaledown(odd)), /pod "db-x" has no ordinal of advanced statefulset "db"/);
  assert.match(refusal(decideScaledown(astsInput({ ordinals: [2] }, () => {}, [0, 1, 3, 4]))), /ordinal 2 of advanced statefulset "db" has no pod \("db-2" not found\)/);
});

test('--ordinals on a CloneSet is refused (the command refuses it before reading, this is the rule itself)', () => {
  assert.match(refusal(decideScaledown(cloneSetInput({ ordinals: [1] }))), /--ordinals applies to advanced statefulsets only/);
});

// ---- The patched objects against the real CRDs ----

const CRD_CASES: Array<{ release: string; cloneset: string; csVersion: string; astsRanges: boolean }> = [
  { release: 'v1.3.0', cloneset: 'cloneset-web.yaml', csVersion: 'v1alpha1', astsRanges: false },
  { release: 'v1.9.0', cloneset: 'cloneset-web.yaml', csVersion: 'v1alpha1', astsRanges: true },
  { release: 'master', cloneset: 'cloneset-web-v1beta1.yaml', csVersion: 'v1beta1', astsRanges: true },
];

for (const c of CRD_CASES) {
  test(`patched CloneSet (${c.csVersion}) and Advanced StatefulSet validate against the ${c.release} CRDs; a range is written only where its schema is int-or-string`, () => {
    const cs = load(c.cloneset);
    const d = write(decideScaledown(cloneSetInput({ pods: ['web-a', 'web-b'] }, undefined, cs)));
    const csSchema = crdSchema(c.release, 'clonesets', c.csVersion)!;
    assert.deepEqual(validate(csSchema, applyJsonPatch(cs, d.ops)), []);

    const schema = crdSchema(c.release, 'statefulsets', 'v1beta1')!;
    const items = schema.properties!.spec!.properties!.reserveOrdinals!.items!;
    assert.equal(items['x-kubernetes-int-or-string'] === true, c.astsRanges, 'the fact the engine reads from the served CRD');
    const input = astsInput({ ordinals: [1, 2, 3] }, () => {}, [0, 1, 2, 3, 4], c.astsRanges);
    const a = write(decideScaledown(input));
    assert.deepEqual(a.reserved, c.astsRanges ? ['1-3'] : [1, 2, 3]);
    assert.deepEqual(validate(schema, applyJsonPatch(input.workload, a.ops)), []);
    // ...and a range is what the older schema refuses.
    if (!c.astsRanges) assert.notDeepEqual(validate(schema, { ...input.workload, spec: { ...(input.workload as Obj).spec, reserveOrdinals: ['1-3'] } }), []);
  });
}
