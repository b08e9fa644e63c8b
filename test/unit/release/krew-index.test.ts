// #32: the custom krew index `npm run release` writes into dist/release/krew-index/ (scripts/krew.mjs):
// krew's central index already has a `kruise` (openkruise/kruise-tools) and holds one manifest per
// name, so ours is served from an index of its own, as `kubectl-kruise/kruise`. Checked here on the
// real template with stand-in archives (test/e2e/release.test.ts checks a real release): the layout
// krew reads (internal/index/indexscanner: <index>/plugins/<name>.yaml), the fields krew requires
// (test/helpers/krew-manifest.ts, ported from krew's validate.go and validate-krew-manifest), and the
// commands users are given.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse } from 'yaml';
import { defaultIndexUrl, KREW_INDEX_NAME, KREW_PLUGIN_NAME, krewIndexFiles, readTemplate, renderManifest } from '../../../scripts/krew.mjs';
import { CURRENT_API_VERSION, KNOWN_FIELDS, PLUGIN_KIND, validateManifestFile, type Plugin } from '../../helpers/krew-manifest';
import { REPO_ROOT } from '../../helpers/cli';

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string; homepage: string; repository: { url: string } };
const PLATFORMS = [
  ['linux', 'amd64'],
  ['linux', 'arm64'],
  ['darwin', 'amd64'],
  ['darwin', 'arm64'],
  ['windows', 'amd64'],
].map(([os, arch], i) => ({
  os: os!,
  arch: arch!,
  uri: `https://github.com/kubectl-kruise/kubectl-kruise/releases/download/v${pkg.version}/kubectl-kruise_v${pkg.version}_${os}_${arch}.tar.gz`,
  sha256: String(i).repeat(64),
  bin: os === 'windows' ? 'kubectl-kruise.exe' : 'kubectl-kruise',
}));
const INDEX_URL = 'https://github.com/kubectl-kruise/krew-index.git';
const manifest = renderManifest(readTemplate(), { version: pkg.version, homepage: pkg.homepage, platforms: PLATFORMS });
const files = krewIndexFiles({ manifest, version: pkg.version, indexUrl: INDEX_URL });

describe('the krew index of kubectl-kruise', () => {
  it('is a repository krew can add: plugins/kruise.yaml (the release manifest, byte for byte) and a README', () => {
    assert.deepEqual(files.map((f) => f.path).sort(), ['README.md', 'plugins/kruise.yaml']);
    assert.equal(files.find((f) => f.path === 'plugins/kruise.yaml')!.data, manifest);
    assert.equal(defaultIndexUrl(pkg.repository.url), INDEX_URL, 'the index repository beside the project, from package.json');
    assert.equal(defaultIndexUrl('git@github.com:acme/kubectl-kruise.git'), 'https://github.com/acme/krew-index.git');
    assert.equal(defaultIndexUrl('https://gitlab.example.com/acme/kubectl-kruise'), undefined);
  });

  it('its manifest has what krew requires (apiVersion, kind Plugin, metadata.name = file name, semver spec.version, platforms with selector, uri, sha256, bin) and passes krew\'s validation', () => {
    const [file] = files.filter((f) => f.path.startsWith('plugins/'));
    const plugin = parse(file!.data) as Plugin & Record<string, unknown>;
    assert.deepEqual(validateManifestFile(basename(file!.path), plugin), []);
    assert.equal(plugin.apiVersion, CURRENT_API_VERSION);
    assert.equal(plugin.apiVersion, 'krew.googlecontainertools.github.com/v1alpha2');
    assert.equal(plugin.kind, PLUGIN_KIND);
    assert.equal(plugin.metadata?.name, 'kruise');
    assert.equal(plugin.spec?.version, `v${pkg.version}`);
    assert.deepEqual(Object.keys(plugin).filter((k) => !KNOWN_FIELDS.plugin.includes(k)), []);
    assert.equal(plugin.spec!.platforms!.length, PLATFORMS.length);
    for (const [i, p] of plugin.spec!.platforms!.entries()) {
      assert.deepEqual(Object.keys(p).sort(), ['bin', 'selector', 'sha256', 'uri']);
      assert.deepEqual(p.selector, { matchLabels: { os: PLATFORMS[i]!.os, arch: PLATFORMS[i]!.arch } });
      assert.equal(p.uri, PLATFORMS[i]!.uri);
      assert.match(p.sha256!, /^[a-f0-9]{64}$/);
      assert.equal(p.bin, PLATFORMS[i]!.bin);
    }
    // The caveats point into krew's store under the plugin's name.
    assert.ok(plugin.spec!.caveats!.includes(`store/kruise/v${pkg.version}/kubectl_complete-kruise`));
  });

  it('keeps the command kubectl-kruise: krew links kubectl-<name> (install.go pluginNameToBin), so the name stays kruise, told apart from the central index\'s by the index name', () => {
    const pluginNameToBin = (name: string): string => `kubectl-${name.replaceAll('-', '_')}`;
    assert.equal(KREW_PLUGIN_NAME, 'kruise');
    assert.equal(pluginNameToBin(KREW_PLUGIN_NAME), 'kubectl-kruise');
    assert.equal(KREW_INDEX_NAME, 'kubectl-kruise');
    const readme = files.find((f) => f.path === 'README.md')!.data;
    assert.ok(readme.includes(`kubectl krew index add kubectl-kruise ${INDEX_URL}\n`), readme);
    assert.ok(readme.includes('kubectl krew install kubectl-kruise/kruise\n'), readme);
    assert.match(readme, /central index already has a plugin named `kruise`/);
  });
});
