import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  dns1123LabelProblem,
  dns1123SubdomainProblem,
  imageReferenceProblem,
  labelValueProblem,
  parseImageReference,
  qualifiedNameProblem,
  sameImageRepository,
} from '../../../src/kruise/names';

test('DNS-1123 subdomains and labels', () => {
  assert.equal(dns1123SubdomainProblem('web-1.prod'), undefined);
  assert.ok(dns1123SubdomainProblem('Web'));
  assert.ok(dns1123SubdomainProblem('-web'));
  assert.ok(dns1123SubdomainProblem('a'.repeat(254)));
  assert.equal(dns1123SubdomainProblem('a'.repeat(253)), undefined);
  assert.ok(dns1123LabelProblem('a.b'));
  assert.ok(dns1123LabelProblem('a'.repeat(64)));
});

test('label values and keys', () => {
  assert.equal(labelValueProblem(''), undefined);
  assert.equal(labelValueProblem('v1.2_Beta-3'), undefined);
  assert.ok(labelValueProblem('a'.repeat(64)));
  assert.ok(labelValueProblem('-x'));
  assert.ok(labelValueProblem('a b'));
  assert.equal(qualifiedNameProblem('apps.kruise.io/cloneset-scaling-exclude-preparing-delete'), undefined);
  assert.equal(qualifiedNameProblem('app'), undefined);
  assert.ok(qualifiedNameProblem('/app'));
  assert.ok(qualifiedNameProblem('a/b/c'));
  assert.ok(qualifiedNameProblem('Example.com/app'));
});

test('image references are normalized like docker', () => {
  const n = parseImageReference('nginx');
  assert.ok(n.ok);
  assert.equal(n.ref.name, 'docker.io/library/nginx');
  assert.equal(n.ref.normalized, 'docker.io/library/nginx:latest');
  assert.equal(n.ref.familiarName, 'nginx');
  const t = parseImageReference('nginx:1.25-alpine');
  assert.ok(t.ok && t.ref.tag === '1.25-alpine');
  const u = parseImageReference('user/app:v1');
  assert.ok(u.ok && u.ref.name === 'docker.io/user/app' && u.ref.familiarName === 'user/app');
  const r = parseImageReference('registry.example.com:5000/team/app:V1.0');
  assert.ok(r.ok);
  assert.equal(r.ref.domain, 'registry.example.com:5000');
  assert.equal(r.ref.path, 'team/app');
  assert.equal(r.ref.tag, 'V1.0'); // tags may have upper case
  const l = parseImageReference('localhost/app');
  assert.ok(l.ok && l.ref.domain === 'localhost');
  const idx = parseImageReference('index.docker.io/library/busybox');
  assert.ok(idx.ok && idx.ref.name === 'docker.io/library/busybox');
  const d = parseImageReference(`busybox@sha256:${'a'.repeat(64)}`);
  assert.ok(d.ok && d.ref.digest === `sha256:${'a'.repeat(64)}` && d.ref.tag === undefined);
  assert.equal(d.ok && d.ref.normalized, `docker.io/library/busybox@sha256:${'a'.repeat(64)}`);
  const td = parseImageReference(`busybox:1.36@sha256:${'b'.repeat(64)}`);
  assert.ok(td.ok && td.ref.tag === '1.36');
  assert.ok(sameImageRepository('nginx', 'docker.io/library/nginx:1.25'));
  assert.ok(!sameImageRepository('nginx', 'example.com/nginx'));
});

test('invalid image references are rejected with the webhook reason', () => {
  assert.match(imageReferenceProblem('a'.repeat(64)) ?? '', /64-byte hexadecimal/);
  assert.match(imageReferenceProblem('Nginx') ?? '', /must be lowercase/);
  assert.match(imageReferenceProblem('docker.io/User/app') ?? '', /must be lowercase/);
  assert.equal(imageReferenceProblem('UPPER.example.com/app'), undefined); // upper case registry host is fine
  for (const bad of ['', 'nginx:', ':tag', 'nginx::1', 'nginx:-bad', 'a//b', 'nginx@sha256:abc', 'ng inx', `nginx:${'x'.repeat(129)}`]) {
    assert.ok(imageReferenceProblem(bad), `expected ${JSON.stringify(bad)} to be rejected`);
  }
  assert.match(imageReferenceProblem(`nginx@md5:${'a'.repeat(32)}`) ?? '', /unsupported digest algorithm/);
  assert.match(imageReferenceProblem(`nginx@sha256:${'a'.repeat(63)}`) ?? '', /invalid reference format|digest length/);
  assert.match(imageReferenceProblem(`nginx@sha256:${'a'.repeat(65)}`) ?? '', /digest length/);
  assert.match(imageReferenceProblem(`nginx@sha256:${'A'.repeat(64)}`) ?? '', /digest format/);
  assert.match(imageReferenceProblem(`${'a'.repeat(250)}/b`) ?? '', /255/);
});
