// AdvancedCronJob rules (src/kruise/rules/advancedcronjob.ts) on the rows of Kruise v1.9.0's tests:
// pkg/controller/advancedcronjob/advancedcronjob_controller_test.go (TestReconcileAdvancedJobCreate*,
// with its createJob fixture: schedule */5, Replace, history limits 2/1, created at the fake clock's
// 2025-10-10T09:00:00Z) and pkg/webhook/advancedcronjob/validating/advancedcronjob_create_update_handler_test.go
// (TestValidateCronJobSpec, TestAdvancedCronJobCreateUpdateHandler_Handle). The scheduling rules the
// tests do not cover (startingDeadlineSeconds, Forbid, paused, missed runs) cite getNextSchedule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SCHEDULED_AT_ANNOTATION,
  advancedCronJobDefaults,
  cronChild,
  cronTemplateKind,
  isCronChildOf,
  nextSchedule,
  reconcileAdvancedCronJob,
  validateAdvancedCronJob,
  type AdvancedCronJobSpec,
} from '../../../../src/kruise/rules/advancedcronjob';
import type { KubeObject } from '../../../../src/kruise/types';

const FAKE_CLOCK = Date.parse('2025-10-10T09:00:00Z');
const MIN = 60_000;
const OWNER = 'apps.kruise.io/v1beta1';

const podTemplate = { spec: { containers: [{ name: 'c', image: 'busybox:1.36' }], restartPolicy: 'Never' } };
const broadcastJobTemplate = { broadcastJobTemplate: { spec: { template: podTemplate, completionPolicy: {}, paused: false, failurePolicy: {} } } };
const jobTemplate = { jobTemplate: { spec: { template: podTemplate } } };
const imageListPullJobTemplate = { imageListPullJobTemplate: { spec: { images: ['busybox:latest', 'alpine:latest'], selector: { names: ['node2', 'node3'] } } } };

/** createJob of advancedcronjob_controller_test.go. */
function createJob(name: string, template: AdvancedCronJobSpec['template'], spec: Partial<AdvancedCronJobSpec> = {}): KubeObject {
  return {
    apiVersion: OWNER,
    kind: 'AdvancedCronJob',
    metadata: { name, namespace: 'default', uid: '12345', creationTimestamp: '2025-10-10T09:00:00Z' },
    spec: { schedule: '*/5 * * * *', concurrencyPolicy: 'Replace', paused: false, successfulJobsHistoryLimit: 2, failedJobsHistoryLimit: 1, template, ...spec },
  };
}

/** createImageListPullJob(timeDiff, desired, succeeded, completed, parent): scheduled and started timeDiff minutes from the clock, finished when completed == desired. */
function createImageListPullJob(timeDiff: number, desired: number, succeeded: number, completed: number, parent: KubeObject): KubeObject {
  const tm = new Date(FAKE_CLOCK + timeDiff * MIN).toISOString().replace('.000Z', 'Z');
  return {
    apiVersion: OWNER,
    kind: 'ImageListPullJob',
    metadata: {
      name: `job1-t${timeDiff}`,
      namespace: 'default',
      uid: String(100 + timeDiff),
      annotations: { [SCHEDULED_AT_ANNOTATION]: tm },
      ownerReferences: [{ apiVersion: OWNER, kind: 'AdvancedCronJob', name: parent.metadata.name ?? '', uid: '12345', controller: true, blockOwnerDeletion: true }],
    },
    spec: { images: ['busybox:latest', 'alpine:latest'] },
    status: { startTime: tm, desired, completed, succeeded, ...(desired === completed ? { completionTime: tm } : {}) },
  };
}

const input = (acj: KubeObject, children: KubeObject[], now: number, childApiVersion = OWNER) => ({ acj, children, now, ownerApiVersion: OWNER, childApiVersion });

test('TestReconcileAdvancedJobCreateBroadcastJob / CreateJob: status.type from the template; a creation long past with no startingDeadlineSeconds is too many missed runs', () => {
  const now = FAKE_CLOCK + 24 * 60 * MIN; // Kruise's Job path reads the real clock, far after the fake creation time
  const bcj = reconcileAdvancedCronJob(input(createJob('job1', broadcastJobTemplate), [], now));
  assert.equal(bcj.status.type, 'BroadcastJob');
  assert.equal(bcj.create, undefined);
  assert.equal(bcj.error, 'too many missed start times (> 100). Set or decrease .spec.startingDeadlineSeconds or check clock skew');
  const job = reconcileAdvancedCronJob(input(createJob('job2', jobTemplate), [], now, 'batch/v1'));
  assert.equal(job.status.type, 'Job');
  assert.equal(job.create, undefined);
  // FindTemplateKind: no template at all reads as BroadcastJob
  assert.equal(cronTemplateKind({}), 'BroadcastJob');
});

test('TestReconcileAdvancedJobCreateImageListPullJob: five minutes after creation the */5 run is created', () => {
  const acj = createJob('job1', imageListPullJobTemplate);
  const plan = reconcileAdvancedCronJob(input(acj, [], FAKE_CLOCK + 5 * MIN));
  assert.equal(plan.status.type, 'ImageListPullJob');
  const child = plan.create!;
  assert.equal(child.kind, 'ImageListPullJob');
  assert.equal(child.metadata.name, `job1-${(FAKE_CLOCK + 5 * MIN) / 1000}`, '<name>-<scheduled time in Unix seconds>');
  assert.equal(child.metadata.annotations?.[SCHEDULED_AT_ANNOTATION], '2025-10-10T09:05:00Z');
  assert.deepEqual(child.metadata.ownerReferences, [{ apiVersion: OWNER, kind: 'AdvancedCronJob', name: 'job1', uid: '12345', controller: true, blockOwnerDeletion: true }]);
  assert.deepEqual((child.spec as { images: string[] }).images, ['busybox:latest', 'alpine:latest']);
  assert.equal(plan.requeueAfterMs, 5 * MIN, 'the next run');
});

test('TestReconcileAdvancedJobCreateImageListPullJobAgain: history limits 2/1 and Replace leave 1 failed + 2 successful + 1 new running', () => {
  const acj = createJob('job1', { imageListPullJobTemplate: { metadata: { labels: { key1: 'value1' }, annotations: { key1: 'value1' } }, spec: imageListPullJobTemplate.imageListPullJobTemplate.spec } }, { startingDeadlineSeconds: 360 });
  const children = [createImageListPullJob(-25, 3, 3, 3, acj), createImageListPullJob(-20, 2, 1, 2, acj), createImageListPullJob(-15, 2, 1, 2, acj), createImageListPullJob(-10, 2, 2, 2, acj), createImageListPullJob(-5, 2, 2, 2, acj), createImageListPullJob(0, 2, 0, 1, acj)];
  const plan = reconcileAdvancedCronJob(input(acj, children, FAKE_CLOCK + 5 * MIN));
  assert.deepEqual(plan.deleteChildren, ['job1-t-20', 'job1-t-25', 'job1-t0'], 'oldest failed beyond 1, oldest successful beyond 2, then the running one Replace replaces');
  assert.equal(plan.status.lastScheduleTime, '2025-10-10T09:00:00Z', 'the newest scheduled-at annotation');
  assert.deepEqual(plan.status.active?.map((r) => r.name), ['job1-t0']);
  assert.equal(children.length - plan.deleteChildren.length + (plan.create ? 1 : 0), 4);
  assert.deepEqual(plan.create?.metadata.labels, { key1: 'value1' });
  assert.equal(plan.create?.metadata.annotations?.key1, 'value1');
});

test('getNextSchedule: startingDeadlineSeconds, Forbid, paused, not due yet; the latest missed run only', () => {
  const acj = createJob('cron', jobTemplate, { concurrencyPolicy: 'Allow' });
  // 12 minutes after creation: runs at :05 and :10 were missed, only :10 is started
  const plan = reconcileAdvancedCronJob(input(acj, [], FAKE_CLOCK + 12 * MIN, 'batch/v1'));
  assert.equal(plan.create?.metadata.annotations?.[SCHEDULED_AT_ANNOTATION], '2025-10-10T09:10:00Z');
  assert.equal(plan.create?.apiVersion, 'batch/v1');
  assert.equal(plan.requeueAfterMs, 3 * MIN);
  // too late to start :10 with a 60 s starting deadline at :12
  const late = reconcileAdvancedCronJob(input(createJob('cron', jobTemplate, { startingDeadlineSeconds: 60 }), [], FAKE_CLOCK + 12 * MIN, 'batch/v1'));
  assert.equal(late.skipped, 'not-due', 'the deadline moves the earliest time past :10');
  assert.deepEqual(nextSchedule({ schedule: '*/5 * * * *', startingDeadlineSeconds: 150 }, undefined, FAKE_CLOCK, FAKE_CLOCK + 12 * MIN), { missed: FAKE_CLOCK + 10 * MIN, next: FAKE_CLOCK + 15 * MIN });
  // not due
  assert.equal(reconcileAdvancedCronJob(input(acj, [], FAKE_CLOCK + 4 * MIN, 'batch/v1')).skipped, 'not-due');
  // Forbid with a running child: skipped, the next run still planned
  const running = cronChild(acj, 'Job', FAKE_CLOCK + 5 * MIN, OWNER, 'batch/v1');
  const forbid = reconcileAdvancedCronJob(input(createJob('cron', jobTemplate, { concurrencyPolicy: 'Forbid' }), [running], FAKE_CLOCK + 10 * MIN, 'batch/v1'));
  assert.equal(forbid.skipped, 'forbidden-concurrent');
  assert.equal(forbid.create, undefined);
  assert.deepEqual(forbid.deleteChildren, []);
  // Allow: runs concurrently
  assert.ok(reconcileAdvancedCronJob(input(acj, [running], FAKE_CLOCK + 10 * MIN, 'batch/v1')).create);
  // paused: status kept, nothing scheduled, no requeue
  const paused = reconcileAdvancedCronJob(input(createJob('cron', jobTemplate, { paused: true }), [running], FAKE_CLOCK + 10 * MIN, 'batch/v1'));
  assert.equal(paused.skipped, 'paused');
  assert.equal(paused.requeueAfterMs, undefined);
  assert.deepEqual(paused.status.active?.map((r) => [r.kind, r.name]), [['Job', running.metadata.name]]);
  // an unparsable schedule: the controller's error, nothing else
  assert.match(reconcileAdvancedCronJob(input(createJob('cron', jobTemplate, { schedule: 'nope' }), [], FAKE_CLOCK, 'batch/v1')).error ?? '', /^unparsable schedule "nope": expected exactly 5 fields/);
  // an unsatisfiable schedule is Go's zero time forever: too many missed runs
  assert.match((nextSchedule({ schedule: '0 0 30 2 *' }, undefined, FAKE_CLOCK, FAKE_CLOCK + MIN) as { error: string }).error, /too many missed start times/);
});

test('children: finished by their Complete/Failed condition; counted by controller reference name and apiVersion (fieldindex register.go)', () => {
  const acj = createJob('cron', jobTemplate, { successfulJobsHistoryLimit: 1, failedJobsHistoryLimit: 0, concurrencyPolicy: 'Allow' });
  const job = (minute: number, condition?: 'Complete' | 'Failed') => {
    const c = cronChild(acj, 'Job', FAKE_CLOCK + minute * MIN, OWNER, 'batch/v1');
    c.status = { startTime: new Date(FAKE_CLOCK + minute * MIN).toISOString(), ...(condition ? { conditions: [{ type: condition, status: 'True' }] } : {}) };
    return c;
  };
  const kids = [job(5, 'Complete'), job(10, 'Complete'), job(15, 'Failed'), job(20)];
  const plan = reconcileAdvancedCronJob(input(acj, kids, FAKE_CLOCK + 22 * MIN, 'batch/v1'));
  assert.deepEqual(plan.deleteChildren, [kids[2]!.metadata.name, kids[0]!.metadata.name]);
  assert.deepEqual(plan.status.active?.map((r) => r.name), [kids[3]!.metadata.name]);
  assert.equal(plan.status.lastScheduleTime, '2025-10-10T09:20:00Z');
  assert.equal(isCronChildOf(kids[0]!, 'cron', [OWNER]), true);
  assert.equal(isCronChildOf(kids[0]!, 'cron', ['apps.kruise.io/v1alpha1']), false, 'a BroadcastJob index of v1.9 only takes its own version');
  assert.equal(isCronChildOf(kids[0]!, 'other', [OWNER]), false);
});

test('TestValidateCronJobSpec: timeZone nil, valid, broken', () => {
  const acj = (timeZone?: string): KubeObject => ({ metadata: { name: 'x' }, spec: { schedule: '0 * * * *', timeZone, concurrencyPolicy: 'Allow', template: { jobTemplate: { spec: { template: { spec: { containers: [{ name: 'foo', image: 'foo:latest' }], restartPolicy: 'Always' } } } } } } });
  assert.deepEqual(validateAdvancedCronJob(acj()), []);
  assert.deepEqual(validateAdvancedCronJob(acj('America/New_York')), []);
  assert.deepEqual(validateAdvancedCronJob(acj('broken')).map((e) => [e.field, e.detail]), [['spec.timeZone', 'unknown time zone broken']]);
  assert.deepEqual(validateAdvancedCronJob(acj('Local')).map((e) => e.detail), ['timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones']);
  assert.deepEqual(validateAdvancedCronJob(acj('')).map((e) => e.detail), ['timeZone must be nil or non-empty string']);
});

test('TestAdvancedCronJobCreateUpdateHandler_Handle rows (through the mutating webhook\'s defaults)', () => {
  const acj = (name: string, spec: Record<string, unknown>): KubeObject => advancedCronJobDefaults({ apiVersion: OWNER, kind: 'AdvancedCronJob', metadata: { name, namespace: 'default' }, spec }, true);
  const fields = (o: KubeObject, old?: KubeObject) => validateAdvancedCronJob(o, old).map((e) => e.field);
  assert.deepEqual(fields(acj('test-acj', { schedule: '0 0 * * *', template: jobTemplate })), [], 'create valid v1beta1 AdvancedCronJob');
  const empty = validateAdvancedCronJob(acj('test-acj-empty', { schedule: '', template: jobTemplate }));
  assert.deepEqual(empty.map((e) => e.detail), ['schedule cannot be empty, please provide valid cron schedule.', 'empty spec string']);
  assert.deepEqual(validateAdvancedCronJob(acj('test-acj-invalid-schedule', { schedule: 'invalid-cron', template: jobTemplate })).map((e) => [e.field, e.detail]), [['spec.schedule', 'expected exactly 5 fields, found 1: [invalid-cron]']]);
  assert.deepEqual(validateAdvancedCronJob(acj('test-acj-no-template', { schedule: '0 0 * * *', template: {} })).map((e) => [e.type, e.field]), [['Forbidden', 'spec.template']]);
  assert.match(validateAdvancedCronJob(acj('both', { schedule: '0 0 * * *', template: { ...jobTemplate, ...broadcastJobTemplate } }))[0]!.detail, /can have only one template/);
  assert.deepEqual(fields(acj('test-acj-v1alpha1', { schedule: '0 0 * * *', template: broadcastJobTemplate })), []);
  // the rules users hit on their pod template, at Kruise's path (spec.template)
  assert.deepEqual(fields(acj('no-containers', { schedule: '0 0 * * *', template: { jobTemplate: { spec: { template: { spec: {} } } } } })), ['spec.template.spec.containers']);
  assert.deepEqual(fields(acj('tz-twice', { schedule: 'TZ=UTC 0 0 * * *', timeZone: 'UTC', template: jobTemplate })), ['spec.schedule']);
  assert.deepEqual(fields(acj('neg', { schedule: '0 0 * * *', startingDeadlineSeconds: -1, template: jobTemplate })), ['spec.startingDeadlineSeconds']);
  assert.deepEqual(fields(acj('a.b', { schedule: '0 0 * * *', template: jobTemplate })), ['metadata.name']);
  // update: only schedule, timeZone, concurrencyPolicy, history limits, startingDeadlineSeconds, paused (and an image-list-pull template) change
  const before = acj('test-acj-update', { schedule: '0 0 * * *', template: jobTemplate });
  assert.deepEqual(fields(acj('test-acj-update', { schedule: '1 0 * * *', timeZone: 'Asia/Shanghai', startingDeadlineSeconds: 100, concurrencyPolicy: 'Forbid', paused: true, successfulJobsHistoryLimit: 5, failedJobsHistoryLimit: 4, template: jobTemplate }), before), []);
  const changed = validateAdvancedCronJob(acj('test-acj-update', { schedule: '0 0 * * *', template: { jobTemplate: { spec: { template: { spec: { ...podTemplate.spec, restartPolicy: 'OnFailure' } } } } } }), before);
  assert.deepEqual(changed.map((e) => [e.type, e.field]), [['Forbidden', 'spec']]);
});

test('TestAdvancedCronJobCreateUpdateHandler_Handle: the ImageListPullJob template rows', () => {
  const ilp = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}): KubeObject =>
    advancedCronJobDefaults({ apiVersion: OWNER, kind: 'AdvancedCronJob', metadata: { name: 'test-acj-v1beta1' }, spec: { schedule: '0 0 * * *', ...extra, template: { imageListPullJobTemplate: { spec: { images: ['busybox:latest', 'alpine:latest'], ...spec } } } } }, true);
  const details = (o: KubeObject, old?: KubeObject) => validateAdvancedCronJob(o, old).map((e) => `${e.field}: ${e.detail}`);
  assert.deepEqual(details(ilp({ selector: { names: ['node1'] } })), [], 'valid; concurrencyPolicy defaults to Replace');
  assert.equal((ilp({}).spec as AdvancedCronJobSpec).concurrencyPolicy, 'Replace');
  assert.deepEqual(details(ilp({ selector: { names: ['node1'] }, completionPolicy: { type: 'Always', ttlSecondsAfterFinished: 100 } }, { concurrencyPolicy: 'Allow' })), [
    'spec.spec.concurrencyPolicy: concurrencyPolicy should be Replace or Forbid, but current value is: Allow',
    'spec.template.imageListPullJobTemplate.spec.completionPolicy.ttlSecondsAfterFinished: ttlSecondsAfterFinished is not supported in advancedCronJob',
  ]);
  assert.deepEqual(details(ilp({ selector: { names: ['node1'], matchLabels: { key: 'value' } }, completionPolicy: { type: 'Always', activeDeadlineSeconds: 100 } })), [
    'spec.template.imageListPullJobTemplate.spec.selector: can not set both names and labelSelector in this spec.selector',
  ]);
  assert.deepEqual(details(ilp({ selector: { matchLabels: { key: 'value' }, matchExpressions: [{ key: 'xxx' }] }, completionPolicy: { type: 'Always', activeDeadlineSeconds: 100 } })), [
    'spec.template.imageListPullJobTemplate.spec.selector.labelSelector: invalid selector: "" is not a valid label selector operator',
  ]);
  assert.deepEqual(details(ilp({ selector: { names: ['node1'] }, podSelector: { matchLabels: { a: 'b' } } })), ['spec.template.imageListPullJobTemplate.spec: can not set both selector and podSelector']);
  assert.deepEqual(details(ilp({ selector: { names: ['node1'] }, completionPolicy: { type: 'Always', activeDeadlineSeconds: 86401, ttlSecondsAfterFinished: 100 } })), [
    'spec.template.imageListPullJobTemplate.spec.completionPolicy.activeDeadlineSeconds: activeDeadlineSeconds must be less than 86400, current value is: 86401',
  ]);
  // update with the image-list-pull template changed is allowed, as are the mutable fields
  const old = ilp({ selector: { names: ['node1'] }, parallelism: 1, completionPolicy: { type: 'Always', activeDeadlineSeconds: 100 } });
  const updated = ilp(
    { images: ['busybox:latest', 'alpine:latest', 'nginx:latest'], selector: { names: ['node1', 'node2'] }, parallelism: 2, pullPolicy: { timeoutSeconds: 30, backoffLimit: 1 }, completionPolicy: { type: 'Always', activeDeadlineSeconds: 200 }, imagePullPolicy: 'Always' },
    { schedule: '1 0 * * *', timeZone: 'Asia/Shanghai', startingDeadlineSeconds: 100, concurrencyPolicy: 'Forbid', paused: true, successfulJobsHistoryLimit: 5, failedJobsHistoryLimit: 4 },
  );
  assert.deepEqual(details(updated, old), []);
  assert.deepEqual(details(ilp({ completionPolicy: { type: 'Never' } }, { concurrencyPolicy: 'Allow' }), old), [
    'spec.spec.concurrencyPolicy: concurrencyPolicy should be Replace or Forbid, but current value is: Allow',
    'spec.template.imageListPullJobTemplate.spec.completionPolicy.type: completionPolicy should be Always, but current value is: Never',
  ]);
});

test('SetDefaultsAdvancedCronJob: Allow, not paused, history 3 / 1; the pod template gets pod defaults', () => {
  const d = advancedCronJobDefaults({ metadata: { name: 'x' }, spec: { schedule: '@hourly', template: { jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } } } } } }, true);
  const spec = d.spec as AdvancedCronJobSpec;
  assert.deepEqual([spec.concurrencyPolicy, spec.paused, spec.successfulJobsHistoryLimit, spec.failedJobsHistoryLimit], ['Allow', false, 3, 1]);
  assert.equal((spec.template?.jobTemplate?.spec?.template as { spec: { restartPolicy: string } }).spec.restartPolicy, 'Always', 'the Job API will refuse it later, as on a real cluster');
});
