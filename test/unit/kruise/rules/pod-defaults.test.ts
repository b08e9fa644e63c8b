// Container and pod spec defaults as kube's SetDefaults_Container and Kruise's SetDefaultPodSpec write them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultContainer, defaultPodSpec, defaultPullPolicy } from '../../../../src/kruise/rules/pod-defaults';

const DIGEST = 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

// kubernetes pkg/util/parsers/parsers_test.go TestParseImageName: the tag each row parses to, and the
// pull policy SetDefaults_Container (pkg/apis/core/v1/defaults.go) derives from it (Always iff "latest").
const rows: Array<[image: string, tag: string]> = [
  ['root', 'latest'],
  ['root:tag', 'tag'],
  [`root@${DIGEST}`, ''],
  ['user/repo', 'latest'],
  ['user/repo:tag', 'tag'],
  [`user/repo@${DIGEST}`, ''],
  ['url:5000/repo', 'latest'],
  ['url:5000/repo:tag', 'tag'],
  [`url:5000/repo@${DIGEST}`, ''],
];
for (const [image, tag] of rows) {
  test(`TestParseImageName ${image}: tag "${tag}", so imagePullPolicy ${tag === 'latest' ? 'Always' : 'IfNotPresent'}`, () => {
    assert.equal(defaultPullPolicy(image), tag === 'latest' ? 'Always' : 'IfNotPresent');
  });
}

test('a tag beside a digest counts: latest@digest pulls Always, 1.27@digest IfNotPresent', () => {
  assert.equal(defaultPullPolicy(`nginx:latest@${DIGEST}`), 'Always');
  assert.equal(defaultPullPolicy(`nginx:1.27@${DIGEST}`), 'IfNotPresent');
});

test('defaultContainer: termination message path and policy, pull policy, port protocol TCP; set values kept', () => {
  const c: Record<string, unknown> = { name: 'app', image: `nginx@${DIGEST}`, ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }] };
  defaultContainer(c);
  assert.deepEqual(c, {
    name: 'app', image: `nginx@${DIGEST}`, ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 53, protocol: 'UDP' }],
    terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent',
  });
  const set = { name: 'app', image: 'nginx', imagePullPolicy: 'Never' };
  defaultContainer(set);
  assert.equal(set.imagePullPolicy, 'Never');
});

test('Kruise SetDefaultPodSpec (apis/apps/defaults/pod.go, "For in-place update"): app containers Always whatever the tag, init containers by kube\'s rule', () => {
  type Spec = { containers: Array<Record<string, unknown>>; initContainers: Array<Record<string, unknown>> };
  const kube: Spec = { containers: [{ name: 'app', image: 'nginx:1.27' }], initContainers: [{ name: 'init', image: 'busybox:1.36' }] };
  defaultPodSpec(kube);
  assert.equal(kube.containers[0]!.imagePullPolicy, 'IfNotPresent');
  const kruise: Spec = { containers: [{ name: 'app', image: 'nginx:1.27' }], initContainers: [{ name: 'init', image: 'busybox:1.36' }] };
  defaultPodSpec(kruise, { kruise: true });
  assert.equal(kruise.containers[0]!.imagePullPolicy, 'Always');
  assert.equal(kruise.initContainers[0]!.imagePullPolicy, 'IfNotPresent');
  assert.equal((kruise as Record<string, unknown>).restartPolicy, 'Always');
});
