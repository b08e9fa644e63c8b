// Kruise's validating webhooks for CloneSet, Advanced StatefulSet and Advanced DaemonSet: the rows of
// Kruise's own test tables (v1.9.0), each named after its Go file and test, run against our rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { fieldErrorMessage, validateCloneSet, type FieldError, type PodLookup } from '../../../../src/kruise/rules/cloneset-webhook';
import { validateAdvancedStatefulSet } from '../../../../src/kruise/rules/asts';
import { advancedDaemonSetDefaults, validateAdvancedDaemonSet } from '../../../../src/kruise/rules/ads';
import type { KubeObject } from '../../../../src/kruise/types';

type Obj = KubeObject & { spec: Record<string, any> };
const load = (name: string): Obj => parse(readFileSync(join(import.meta.dirname, '../../../fixtures/webhooks', name), 'utf8')) as Obj;
const fields = (errs: FieldError[]) => errs.map((e) => e.field);
const messages = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${fieldErrorMessage(e)}`);

// ---- CloneSet: TestValidate (pkg/webhook/cloneset/validating/validation_test.go) ----
const CS = 'TestValidate (pkg/webhook/cloneset/validating/validation_test.go)';
const cloneSet = (mut: (s: Record<string, any>) => void = () => {}): Obj => {
  const o = load('cloneset-table-base.yaml');
  mut(o.spec);
  return o;
};
// The table's only pod: p0, controlled by the CloneSet's uid.
const tablePods: PodLookup = (_ns, name) => (name === 'p0' ? { terminating: false, controllerUid: cloneSet().metadata.uid } : undefined);

test(`${CS} success case 0: podsToDelete names p0, a pod of this CloneSet`, () => {
  assert.deepEqual(validateCloneSet(cloneSet((s) => (s.scaleStrategy = { podsToDelete: ['p0'] })), undefined, tablePods), []);
});

test(`${CS} success case "progressDeadlineSeconds and minReadySeconds changed to MaxInt32"`, () => {
  const old = cloneSet((s) => Object.assign(s, { progressDeadlineSeconds: 10, minReadySeconds: 5 }));
  const next = cloneSet((s) => Object.assign(s, { progressDeadlineSeconds: 2147483647, minReadySeconds: 2147483647 }));
  next.spec.updateStrategy.type = 'InPlaceOnly';
  assert.deepEqual(validateCloneSet(next, old, tablePods), []);
});

test(`${CS} row "invalid-podsToDelete-1": a duplicated name rejects the list`, () => {
  const errs = validateCloneSet(cloneSet((s) => (s.scaleStrategy = { podsToDelete: ['p0', 'p0'] })), undefined, tablePods);
  assert.deepEqual(messages(errs), ['spec.scaleStrategy.podsToDelete: Invalid value: ["p0","p0"]: duplicated items [p0]']);
});

test(`${CS} rows "invalid-podsToDelete-2" and "-3": a pod that does not exist`, () => {
  for (const list of [['p0', 'p1'], ['p1']]) {
    const errs = validateCloneSet(cloneSet((s) => (s.scaleStrategy = { podsToDelete: list })), undefined, tablePods);
    assert.deepEqual(messages(errs), ['spec.scaleStrategy.podsToDelete: Invalid value: "p1": find pod p1 failed: pods "p1" not found']);
  }
});

test('validateScaleStrategy (pkg/webhook/cloneset/validating/validation.go): terminating pods, pods of another workload, names already listed before', () => {
  const pods: PodLookup = (_ns, name) =>
    ({ gone: { terminating: true, controllerUid: cloneSet().metadata.uid }, other: { terminating: false, controllerUid: 'another-uid' }, bare: { terminating: false } })[name];
  const errs = validateCloneSet(cloneSet((s) => (s.scaleStrategy = { podsToDelete: ['other', 'gone', 'bare'] })), undefined, pods);
  assert.deepEqual(messages(errs), [
    'spec.scaleStrategy.podsToDelete: Invalid value: "bare": find pod bare owner is not this CloneSet',
    'spec.scaleStrategy.podsToDelete: Invalid value: "gone": find pod gone already terminating',
    'spec.scaleStrategy.podsToDelete: Invalid value: "other": find pod other owner is not this CloneSet',
  ]);
  // only names added by this update are looked up (the old list is removed from the set first)
  const old = cloneSet((s) => (s.scaleStrategy = { podsToDelete: ['other'] }));
  assert.deepEqual(validateCloneSet(cloneSet((s) => (s.scaleStrategy = { podsToDelete: ['other'] })), old, pods), []);
});

test(`${CS} rows "invalid-cloneset-maxSurge-create" / "-update": maxSurge "5" is not a percent`, () => {
  const next = cloneSet((s) => (s.updateStrategy = { type: 'ReCreate', partition: 2, maxSurge: '5', maxUnavailable: 2 }));
  assert.ok(fields(validateCloneSet(next)).includes('spec.updateStrategy.maxSurge'));
  const old = cloneSet((s) => (s.updateStrategy = { type: 'ReCreate', partition: 2, maxSurge: 5, maxUnavailable: 2 }));
  assert.ok(fields(validateCloneSet(next, old)).includes('spec.updateStrategy.maxSurge'));
});

test(`${CS} rows "invalid-cloneset-maxUnavailable-create" / "-update": maxUnavailable "5" is not a percent`, () => {
  const next = cloneSet((s) => (s.updateStrategy = { type: 'ReCreate', partition: 2, maxSurge: 2, maxUnavailable: '5' }));
  assert.ok(fields(validateCloneSet(next)).includes('spec.updateStrategy.maxUnavailable'));
  const old = cloneSet((s) => (s.updateStrategy = { type: 'ReCreate', partition: 2, maxSurge: 5 }));
  assert.ok(fields(validateCloneSet(next, old)).includes('spec.updateStrategy.maxUnavailable'));
});

test(`${CS} row "invalid-negative-progressDeadlineSeconds"`, () => {
  const errs = validateCloneSet(cloneSet((s) => (s.progressDeadlineSeconds = -1)));
  assert.ok(messages(errs).includes('spec.progressDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0'));
});

test(`${CS} rows "invalid-progressDeadlineSeconds-equals-to-minReadySeconds" and "-less-than-minReadySeconds"`, () => {
  const old = cloneSet((s) => Object.assign(s, { progressDeadlineSeconds: 10, minReadySeconds: 5 }));
  for (const minReadySeconds of [10, 15]) {
    const next = cloneSet((s) => Object.assign(s, { progressDeadlineSeconds: 10, minReadySeconds }));
    assert.deepEqual(messages(validateCloneSet(next, old)), ['spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds']);
  }
});

test(`${CS} row "disallowed-field-modification": the selector is not among the updatable fields`, () => {
  const old = cloneSet((s) => Object.assign(s, { replicas: 2, revisionHistoryLimit: 2, selector: { matchLabels: { app: 'webserver' } } }));
  const next = cloneSet((s) => Object.assign(s, { revisionHistoryLimit: 1, scaleStrategy: { podsToDelete: ['p0'] } }));
  const errs = validateCloneSet(next, old, tablePods);
  assert.ok(fields(errs).includes('spec'));
  assert.match(messages(errs).join('\n'), /^spec: Forbidden: updates to cloneset spec for fields other than 'replicas', 'template', .* are forbidden$/m);
});

// ---- Advanced StatefulSet: TestValidateStatefulSet / TestValidateStatefulSetUpdate / TestValidateReserveOrdinals ----
const STS = 'pkg/webhook/statefulset/validating/statefulset_validation_test.go';
const asts = (mut: (s: Record<string, any>) => void = () => {}): Obj => {
  const o = load('asts-table-base.yaml');
  mut(o.spec);
  return o;
};
const ru = (over: Record<string, unknown>) => ({ type: 'RollingUpdate', rollingUpdate: { partition: 0, podUpdatePolicy: 'ReCreate', maxUnavailable: 1, minReadySeconds: 0, ...over } });

test(`TestValidateStatefulSet success cases (${STS}): OrderedReady/Parallel, maxUnavailable 1 with OrderedReady`, () => {
  assert.deepEqual(validateAdvancedStatefulSet(asts()), []);
  assert.deepEqual(validateAdvancedStatefulSet(asts((s) => (s.podManagementPolicy = 'Parallel'))), []);
  assert.deepEqual(validateAdvancedStatefulSet(asts((s) => (s.updateStrategy = ru({})))), []);
});

test(`TestValidateStatefulSet rows "invalid update strategy", "empty update strategy" (${STS})`, () => {
  assert.deepEqual(messages(validateAdvancedStatefulSet(asts((s) => (s.updateStrategy = { type: 'foo' })))), [
    `spec.updateStrategy: Invalid value: {"type":"foo"}: must be 'RollingUpdate' or 'OnDelete'`,
  ]);
  assert.deepEqual(fields(validateAdvancedStatefulSet(asts((s) => (s.updateStrategy = { type: '' })))), ['spec.updateStrategy']);
});

test(`TestValidateStatefulSet rows "invalid rolling update" 0-3: OnDelete with a rollingUpdate (${STS})`, () => {
  for (const r of [{ partition: 1 }, { maxUnavailable: '120%' }, { podUpdatePolicy: 'Unknown' }, { podUpdatePolicy: 'InPlaceIfPossible' }]) {
    const errs = validateAdvancedStatefulSet(asts((s) => (s.updateStrategy = { type: 'OnDelete', rollingUpdate: r })));
    assert.deepEqual(fields(errs), ['spec.updateStrategy.rollingUpdate'], JSON.stringify(r));
    assert.match(fieldErrorMessage(errs[0]), /only allowed for updateStrategy 'RollingUpdate'/);
  }
});

test(`TestValidateStatefulSet rows "negative partition", "negative minReadySeconds", "too large minReadySeconds" (${STS})`, () => {
  assert.ok(fields(validateAdvancedStatefulSet(asts((s) => (s.updateStrategy = ru({ partition: -1, minReadySeconds: 1 })))))
    .includes('spec.updateStrategy.rollingUpdate.partition'));
  assert.ok(messages(validateAdvancedStatefulSet(asts((s) => (s.updateStrategy = ru({ partition: -1, minReadySeconds: -1 })))))
    .includes('spec.updateStrategy.rollingUpdate.minReadySeconds: Invalid value: -1: must be greater than or equal to 0'));
  assert.ok(messages(validateAdvancedStatefulSet(asts((s) => (s.updateStrategy = ru({ partition: -1, minReadySeconds: 301 })))))
    .includes('spec.updateStrategy.rollingUpdate.minReadySeconds: Invalid value: 301: must be no more than 300 seconds'));
});

test(`TestValidateStatefulSet rows "empty pod management policy", "invalid pod management policy" (${STS})`, () => {
  assert.deepEqual(messages(validateAdvancedStatefulSet(asts((s) => (s.podManagementPolicy = ''))).slice(0, 1)), ['spec.podManagementPolicy: Required value']);
  assert.deepEqual(messages(validateAdvancedStatefulSet(asts((s) => (s.podManagementPolicy = 'foo')))), [
    `spec.podManagementPolicy: Invalid value: "foo": must be 'OrderedReady' or 'Parallel'`,
  ]);
});

test('validateMaxUnavailableField (pkg/webhook/statefulset/validating/statefulset_validation.go): only 1 unless Parallel; ≥ 1; integer percents', () => {
  const mu = (maxUnavailable: unknown, podManagementPolicy = 'OrderedReady') =>
    messages(validateAdvancedStatefulSet(asts((s) => Object.assign(s, { podManagementPolicy, updateStrategy: ru({ maxUnavailable }) }))));
  const f = 'spec.updateStrategy.rollingUpdate.maxUnavailable';
  assert.deepEqual(mu(2), [`${f}: Invalid value: 2: can only work with Parallel PodManagementPolicyType`]);
  assert.deepEqual(mu('50%'), [`${f}: Invalid value: "50%": can only work with Parallel PodManagementPolicyType`]);
  assert.deepEqual(mu(2, 'Parallel'), []);
  assert.deepEqual(mu('50%', 'Parallel'), []);
  assert.deepEqual(mu(0, 'Parallel'), [`${f}: Invalid value: 0: should not be less than 1`]);
  assert.deepEqual(mu('0%', 'Parallel'), [`${f}: Invalid value: 0: should not be less than 1`]);
  assert.match(mu('12.5%', 'Parallel')[0], /maxUnavailable: Invalid value: "12\.5%": a valid percent string must be a numeric string followed by an ending '%'/);
  assert.match(mu('12.5%', 'Parallel')[1], /getValueFromIntOrPercent error: invalid value "12\.5%": strconv\.Atoi: parsing "12\.5": invalid syntax/);
  // scaleStrategy.maxUnavailable follows the same rule
  const scale = messages(validateAdvancedStatefulSet(asts((s) => (s.scaleStrategy = { maxUnavailable: 2 }))));
  assert.deepEqual(scale, ['spec.scaleStrategy.maxUnavailable: Invalid value: 2: can only work with Parallel PodManagementPolicyType']);
});

test(`TestValidateReserveOrdinals rows EmptyReserveOrdinals, ValidStringRange, InvalidStringRange, ValidIntRange, NegativeIntRange (${STS})`, () => {
  const ro = (list: unknown[], kruise = 'v1.9') => messages(validateAdvancedStatefulSet(asts((s) => (s.reserveOrdinals = list)), undefined, kruise));
  assert.deepEqual(ro([]), []);
  assert.deepEqual(ro(['1-2']), []);
  assert.deepEqual(ro(['12']), [
    'spec: Invalid value: ["12"]: 0 th reserve ordinal is not a valid range: 12',
    'spec: Invalid value: ["12"]: 0 th reserve ordinal is invalid: 12, err = invalid range 12',
  ]);
  assert.deepEqual(ro([1]), []);
  assert.deepEqual(ro([-1]), ['spec: Invalid value: [-1]: 0 th reserve ordinal is negative: -1']);
  assert.deepEqual(ro([1, '5-2']), ['spec: Invalid value: [1,"5-2"]: 1 th reserve ordinal is invalid: 5-2, err = invalid range 5-2']);
});

test('validateReserveOrdinals at v1.3.0 (pkg/webhook/statefulset/validating/statefulset_validation.go): ints only, no duplicates', () => {
  const ro = (list: unknown[]) => messages(validateAdvancedStatefulSet(asts((s) => (s.reserveOrdinals = list)), undefined, 'v1.3'));
  assert.deepEqual(ro([1, 3]), []);
  assert.deepEqual(ro(['1-2']), ['spec.reserveOrdinals[0]: Invalid value: "1-2": spec.reserveOrdinals[0] in body must be of type integer: "string"']);
  assert.deepEqual(ro([1, 1]), ['spec: Invalid value: [1,1]: reserveOrdinals contains duplicated items']);
  assert.deepEqual(ro([-2]), ['spec: Invalid value: [-2]: reserveOrdinals contains -2 which must be order >= 0']);
});

test(`TestValidateStatefulSetUpdate rows "selector changed", "serviceName changed", "podManagementPolicy changed" (${STS})`, () => {
  const old = asts();
  for (const mut of [
    (s: Record<string, any>) => (s.selector = { matchLabels: { a: 'c' } }),
    (s: Record<string, any>) => (s.serviceName = 'other'),
    (s: Record<string, any>) => (s.podManagementPolicy = 'Parallel'),
  ]) {
    const errs = validateAdvancedStatefulSet(asts(mut), old);
    assert.ok(messages(errs).some((m) => /^spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'reserveOrdinals'/.test(m)), messages(errs).join());
  }
  // replicas, template, updateStrategy, reserveOrdinals, ordinals, revisionHistoryLimit may change
  const allowed = asts((s) => Object.assign(s, { replicas: 5, reserveOrdinals: [1], ordinals: { start: 2 }, revisionHistoryLimit: 3 }));
  assert.deepEqual(validateAdvancedStatefulSet(allowed, old), []);
  // v1.3.0's list has no 'ordinals'
  assert.match(messages(validateAdvancedStatefulSet(asts((s) => (s.ordinals = { start: 2 })), old, 'v1.3')).join(), /'reserveOrdinals', 'lifecycle', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'updateStrategy' are forbidden/);
});

test('validatePodUpdatePolicy (pkg/webhook/statefulset/validating/statefulset_validation.go): in-place policies need the InPlaceUpdateReady gate', () => {
  const errs = validateAdvancedStatefulSet(asts((s) => (s.updateStrategy = ru({ podUpdatePolicy: 'InPlaceIfPossible' }))));
  assert.deepEqual(messages(errs), ['spec.template.spec.readinessGates: Invalid value: []: must contains InPlaceUpdateReady when podUpdatePolicy is InPlaceIfPossible']);
  const gated = asts((s) => {
    s.updateStrategy = ru({ podUpdatePolicy: 'InPlaceOnly' });
    s.template.spec.readinessGates = [{ conditionType: 'InPlaceUpdateReady' }];
  });
  assert.deepEqual(validateAdvancedStatefulSet(gated), []);
});

// ---- Advanced DaemonSet: TestValidateRollingUpdateDaemonSet (pkg/webhook/daemonset/validating/daemonset_validation_test.go) ----
const DS = 'TestValidateRollingUpdateDaemonSet (pkg/webhook/daemonset/validating/daemonset_validation_test.go)';
const ads = (rollingUpdate: Record<string, unknown> | undefined, type = 'RollingUpdate'): Obj => {
  const o = load('ads-table-base.yaml');
  o.spec.updateStrategy = rollingUpdate === undefined ? { type } : { type, rollingUpdate };
  return o;
};
const dsRows: Array<[string, Record<string, unknown>, boolean]> = [
  ['Valid maxUnavailable', { maxUnavailable: 1 }, false],
  ['Valid maxSurge', { maxSurge: 1 }, false],
  ['Both maxUnavailable and maxSurge', { maxUnavailable: 1, maxSurge: 1 }, true],
  ['Both zero', { maxUnavailable: 0, maxSurge: 0 }, true],
  ['Standard rolling update type', { rollingUpdateType: 'Standard', maxUnavailable: 1 }, false],
  ['InplaceRollingUpdate with maxSurge', { rollingUpdateType: 'InPlaceIfPossible', maxSurge: 1 }, true],
  ['InplaceRollingUpdate with maxUnavailable', { rollingUpdateType: 'InPlaceIfPossible', maxUnavailable: 1 }, false],
  ['DeprecatedSurgingRollingUpdate with maxUnavailable', { rollingUpdateType: 'Surging', maxUnavailable: 1 }, true],
  ['DeprecatedSurgingRollingUpdate with maxSurge', { rollingUpdateType: 'Surging', maxSurge: 1 }, false],
  ['Percent value', { maxUnavailable: '50%' }, false],
  ['Invalid percent value', { maxUnavailable: '150%' }, true],
  ['With partition', { maxUnavailable: 1, partition: 5 }, false],
];
for (const [name, rollingUpdate, expectErr] of dsRows) {
  test(`${DS} row "${name}"`, () => {
    const errs = validateAdvancedDaemonSet(ads(rollingUpdate), 'v1.9');
    assert.equal(errs.length > 0, expectErr, messages(errs).join('; '));
  });
}

test(`${DS}: the messages Kruise's webhook words for both zero, both set, surge with InPlaceIfPossible, over 100%`, () => {
  const p = 'spec.updateStrategy.rollingUpdate';
  assert.deepEqual(messages(validateAdvancedDaemonSet(ads({ maxUnavailable: 0, maxSurge: 0 }), 'v1.9')), [`${p}.maxUnavailable: Required value: cannot be 0 when maxSurge is 0`]);
  assert.deepEqual(messages(validateAdvancedDaemonSet(ads({ maxUnavailable: 1, maxSurge: '10%' }), 'v1.9')), [`${p}.maxSurge: Invalid value: "10%": may not be set when maxUnavailable is non-zero`]);
  assert.deepEqual(messages(validateAdvancedDaemonSet(ads({ rollingUpdateType: 'InPlaceIfPossible', maxSurge: 1 }), 'v1.9')), [`${p}.maxSurge: Required value: must be 0 for InPlaceIfPossible type`]);
  assert.deepEqual(messages(validateAdvancedDaemonSet(ads({ maxUnavailable: '150%' }), 'v1.9')), [`${p}.maxUnavailable: Invalid value: "150%": must not be greater than 100%`]);
});

test('TestGetIntOrPercentValue / TestGetPercentValue (pkg/webhook/daemonset/validating/daemonset_validation_test.go): "12.5%" counts as 0, so with no surge it is rejected', () => {
  // getPercentValue fails on "12.5%" and IntValue() of a non-number is 0: the value counts as unset
  const errs = validateAdvancedDaemonSet(ads({ maxUnavailable: '12.5%', maxSurge: 0 }), 'v1.9');
  assert.deepEqual(messages(errs), ['spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0']);
  // after Kruise's defaulting (both nil → maxUnavailable 1, maxSurge 0), a lone "12.5%" maxUnavailable is still rejected
  const defaulted = advancedDaemonSetDefaults(ads({ maxUnavailable: '12.5%' }));
  assert.equal(validateAdvancedDaemonSet(defaulted, 'v1.9').length, 1);
});

test('TestValidateDaemonSetUpdateStrategy (pkg/webhook/daemonset/validating/daemonset_validation_test.go) rows', () => {
  assert.deepEqual(validateAdvancedDaemonSet(ads(undefined, 'OnDelete'), 'v1.9'), [], 'OnDelete strategy');
  assert.deepEqual(validateAdvancedDaemonSet(ads({ maxUnavailable: 1 }), 'v1.9'), [], 'RollingUpdate with maxUnavailable');
  assert.deepEqual(fields(validateAdvancedDaemonSet(ads(undefined), 'v1.9')), ['spec.updateStrategy.rollingUpdate'], 'RollingUpdate without RollingUpdate field');
  assert.deepEqual(validateAdvancedDaemonSet(ads({ maxSurge: 1 }), 'v1.9'), [], 'RollingUpdate with maxSurge');
  assert.deepEqual(fields(validateAdvancedDaemonSet(ads(undefined, 'InvalidType'), 'v1.9')), ['spec.updateStrategy'], 'Invalid strategy type');
});

test('validateTemplateInPlaceOnly (pkg/webhook/statefulset/validating/statefulset_validation.go, called by statefulset_create_update_handler.go): InPlaceOnly allows only image replaces', () => {
  const old = asts((s) => {
    s.updateStrategy = ru({ podUpdatePolicy: 'InPlaceOnly' });
    s.template.spec.readinessGates = [{ conditionType: 'InPlaceUpdateReady' }];
  });
  const image = structuredClone(old);
  image.spec.template.spec.containers[0].image = 'image:2';
  assert.deepEqual(validateAdvancedStatefulSet(image, old), []);
  const env = structuredClone(old);
  env.spec.template.spec.containers[0].env = [{ name: 'A', value: '1' }];
  assert.deepEqual(messages(validateAdvancedStatefulSet(env, old)), [
    'spec.template: Forbidden: invalid template modified with InPlaceOnly strategy: add /containers/0/env, currently only image update is allowed for InPlaceOnly',
  ]);
});

test(`TestValidateStatefulSet rows "empty selector", "selector_doesnt_match", "negative_replicas" (${STS})`, () => {
  assert.ok(messages(validateAdvancedStatefulSet(asts((s) => (s.selector = {})))).includes('spec.selector: Invalid value: {}: empty selector is invalid for statefulset'));
  assert.deepEqual(fields(validateAdvancedStatefulSet(asts((s) => (s.selector = { matchLabels: { foo: 'bar' } })))), ['spec.template.metadata.labels']);
  assert.deepEqual(messages(validateAdvancedStatefulSet(asts((s) => (s.replicas = -1)))), ['spec.replicas: Invalid value: -1: must be greater than or equal to 0']);
});
