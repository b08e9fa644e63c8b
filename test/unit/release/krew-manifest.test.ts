// The port of krew's manifest rules (test/helpers/krew-manifest.ts) must reject what krew rejects,
// or the release test's "no problems" would prove nothing. Cases from krew's own
// internal/index/validation/validate_test.go and internal/installation/semver/version_test.go.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isSafePluginName, semverProblem, validateManifestFile, validatePlugin, type Plugin } from '../../helpers/krew-manifest';

const SHA = 'a'.repeat(64);
function manifest(): Plugin {
  return {
    apiVersion: 'krew.googlecontainertools.github.com/v1alpha2',
    kind: 'Plugin',
    metadata: { name: 'kruise' },
    spec: {
      version: 'v0.1.0',
      shortDescription: 'short',
      platforms: [
        { selector: { matchLabels: { os: 'linux', arch: 'amd64' } }, uri: 'https://x/a.tar.gz', sha256: SHA, bin: 'kubectl-kruise' },
        { selector: { matchLabels: { os: 'windows', arch: 'amd64' } }, uri: 'https://x/b.tar.gz', sha256: SHA, bin: 'kubectl-kruise.exe' },
      ],
    },
  };
}
function mutated(change: (p: Plugin) => void): Plugin {
  const p = structuredClone(manifest());
  change(p);
  return p;
}

describe('krew manifest rules (port of kubernetes-sigs/krew)', () => {
  it('a well-formed manifest has no problems', () => {
    assert.deepEqual(validateManifestFile('kruise.yaml', manifest()), []);
  });

  it('validate.go IsSafePluginName: word characters and dashes, no Windows device names', () => {
    for (const ok of ['kruise', 'foo-bar', 'foo_bar', 'a1']) assert.equal(isSafePluginName(ok), true, ok);
    for (const bad of ['foo/bar', '../foo', 'foo bar', 'foo.bar', '', 'CON', 'con', 'lpt1', 'Com9']) assert.equal(isSafePluginName(bad), false, bad);
  });

  it('semver.Parse: a leading v and three numeric components without zero prefixes', () => {
    for (const ok of ['v0.1.0', 'v1.2.3-rc.1', 'v1.2.3+build.5', 'v10.0.0-alpha-1']) assert.equal(semverProblem(ok), undefined, ok);
    for (const bad of ['0.1.0', 'v1.2', 'v1.2.3.4', 'v01.2.3', 'v1.02.3', 'v1.2.3-01', 'v1.2.x', 'v1.2.3-', 'vfoo']) assert.notEqual(semverProblem(bad), undefined, bad);
  });

  it('validate.go ValidatePlugin: apiVersion, kind, name = file name, short description without line breaks, platforms, version', () => {
    const cases: Array<[string, (p: Plugin) => void, RegExp]> = [
      ['apiVersion', (p) => (p.apiVersion = 'krew.googlecontainertools.github.com/v1alpha1'), /apiVersion/],
      ['kind', (p) => (p.kind = 'Plugins'), /kind/],
      ['name', (p) => (p.metadata = { name: 'other' }), /should be named "kruise"/],
      ['shortDescription', (p) => (p.spec!.shortDescription = ''), /short description/],
      ['shortDescription line break', (p) => (p.spec!.shortDescription = 'a\nb'), /line breaks/],
      ['platforms', (p) => (p.spec!.platforms = []), /platform specified/],
      ['version', (p) => delete p.spec!.version, /version specified/],
      ['version v', (p) => (p.spec!.version = '0.1.0'), /not starting with 'v'/],
    ];
    for (const [what, change, want] of cases) {
      const problems = validatePlugin('kruise', mutated(change));
      assert.equal(problems.length, 1, what);
      assert.match(problems[0]!, want, what);
    }
  });

  it('validate.go validatePlatform, validateFiles, validateSelector: uri, sha256 (64 lowercase hex), bin, files, os/arch selector', () => {
    const cases: Array<[string, (p: Plugin) => void, RegExp]> = [
      ['uri', (p) => delete p.spec!.platforms![0]!.uri, /`uri` has to be set/],
      ['sha256', (p) => delete p.spec!.platforms![0]!.sha256, /`sha256` sum has to be set/],
      ['sha256 upper case', (p) => (p.spec!.platforms![0]!.sha256 = 'A'.repeat(64)), /is not valid/],
      ['sha256 short', (p) => (p.spec!.platforms![0]!.sha256 = 'a'.repeat(63)), /is not valid/],
      ['bin', (p) => (p.spec!.platforms![1]!.bin = ''), /`bin` has to be set/],
      ['files empty', (p) => (p.spec!.platforms![0]!.files = []), /unspecified or non-empty/],
      ['files to', (p) => (p.spec!.platforms![0]!.files = [{ from: '*' }]), /`to` field/],
      ['selector nil', (p) => delete p.spec!.platforms![0]!.selector, /nil selector/],
      ['selector key', (p) => (p.spec!.platforms![0]!.selector = { matchLabels: { os: 'linux', cpu: 'x' } }), /key "cpu" not supported/],
      ['selector empty', (p) => (p.spec!.platforms![0]!.selector = { matchLabels: {} }), /specified but empty/],
    ];
    for (const [what, change, want] of cases) {
      const problems = validatePlugin('kruise', mutated(change));
      assert.equal(problems.length, 1, what);
      assert.match(problems[0]!, want, what);
    }
  });

  it('validate-krew-manifest: .yaml file named after the plugin, selectors matching a krew platform, none overlapping', () => {
    assert.match(validateManifestFile('kruise.yml', manifest()).join(), /extension/);
    assert.match(validateManifestFile('kubectl-kruise.yaml', manifest()).join(), /should be named "kubectl-kruise"/);
    assert.match(validateManifestFile('kruise.yaml', mutated((p) => (p.spec!.platforms![0]!.selector = { matchLabels: { os: 'plan9' } }))).join(), /doesn't match any supported platforms/);
    const overlap = mutated((p) => (p.spec!.platforms![1]!.selector = { matchExpressions: [{ key: 'os', operator: 'In', values: ['linux', 'windows'] }] }));
    assert.match(validateManifestFile('kruise.yaml', overlap).join(), /overlapping selectors that select linux\/amd64/);
  });
});
