// The krew side of `npm run release` (scripts/release.mjs): the plugin manifest rendered from
// release/krew/kruise.yaml.template, and the custom krew index that serves it.
//
// krew's central index (kubernetes-sigs/krew-index) holds one manifest per plugin name, and its
// `kruise` is the Go plugin of openkruise/kruise-tools. The plugin name is also the command: krew
// links the manifest's `bin` as kubectl-<name> (dashes as underscores), so to stay `kubectl kruise`
// (kubectl-kruise, kubectl_complete-kruise) ours keeps the name `kruise` and is served from an index
// of its own, where krew knows it as `kubectl-kruise/kruise` (index/plugin) and never confuses it
// with `default/kruise`. An index is a git repository with the manifests in plugins/<name>.yaml
// (krew's custom index guide; internal/index/indexscanner reads <index>/plugins/*.yaml).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './bundle-config.mjs';

export const TEMPLATE = join(root, 'release', 'krew', 'kruise.yaml.template');
/** metadata.name in both indexes: the command stays `kubectl kruise`. */
export const KREW_PLUGIN_NAME = 'kruise';
/** The name the docs give the index when it is added (`kubectl krew index add kubectl-kruise URL`). */
export const KREW_INDEX_NAME = 'kubectl-kruise';

const yamlString = (s) => JSON.stringify(s); // a JSON string is a YAML double-quoted scalar

/** The krew manifest: the template with its placeholders filled. */
export function renderManifest(template, { version, homepage, platforms }) {
  const body = template.replace(/^(#[^\n]*\n)+/, '');
  const entries = platforms.map((p) =>
    [
      `  - selector:`,
      `      matchLabels:`,
      `        os: ${p.os}`,
      `        arch: ${p.arch}`,
      `    uri: ${yamlString(p.uri)}`,
      `    sha256: ${yamlString(p.sha256)}`,
      `    bin: ${yamlString(p.bin)}`,
    ].join('\n'),
  );
  // Plain scalars: the version is used inside the caveats' text too ("v0.1.0" stays a string in YAML).
  if (!/^[0-9A-Za-z.+-]+$/.test(version)) throw new Error(`package.json version "${version}" cannot be written into the manifest`);
  if (!/^https?:\/\/[^\s#"']+$/.test(homepage)) throw new Error(`package.json homepage "${homepage}" is not a plain http(s) URL`);
  const values = { name: KREW_PLUGIN_NAME, version: `v${version}`, homepage, platforms: entries.join('\n') };
  return body.replace(/\{\{(\w+)\}\}/g, (m, key) => {
    if (!(key in values)) throw new Error(`${TEMPLATE}: unknown placeholder ${m}`);
    return values[key];
  });
}

export const readTemplate = () => readFileSync(TEMPLATE, 'utf8');

/** https://github.com/OWNER/krew-index.git for package.json's github.com/OWNER/REPO, else undefined. */
export function defaultIndexUrl(repositoryUrl) {
  const gh = /github\.com[/:]([^/]+)\/[^/#]+?(?:\.git)?\/?$/.exec(repositoryUrl ?? '');
  return gh ? `https://github.com/${gh[1]}/krew-index.git` : undefined;
}

/**
 * The files of the index repository, relative to its root: plugins/<name>.yaml (the manifest, the
 * same bytes as the release's kruise.yaml) and a README saying how to use and publish it.
 */
export function krewIndexFiles({ manifest, version, indexUrl }) {
  const readme = `# krew index of kubectl-kruise

A [custom krew index](https://krew.sigs.k8s.io/docs/user-guide/custom-indexes/) with one plugin, \`${KREW_PLUGIN_NAME}\`
(kubectl-kruise v${version}): \`plugins/${KREW_PLUGIN_NAME}.yaml\`, written by \`npm run release\` into
\`dist/release/krew-index/\`. krew's central index already has a plugin named \`${KREW_PLUGIN_NAME}\` (the Go plugin of
openkruise/kruise-tools) and holds one manifest per name; this index serves ours under the same command,
\`kubectl ${KREW_PLUGIN_NAME}\`, and krew tells the two apart by their index: \`${KREW_INDEX_NAME}/${KREW_PLUGIN_NAME}\`, \`default/${KREW_PLUGIN_NAME}\`.

\`\`\`sh
kubectl krew index add ${KREW_INDEX_NAME} ${indexUrl}
kubectl krew install ${KREW_INDEX_NAME}/${KREW_PLUGIN_NAME}
kubectl ${KREW_PLUGIN_NAME} version --client
kubectl krew upgrade ${KREW_PLUGIN_NAME}          # later releases, from this index
\`\`\`

Both plugins are \`kubectl ${KREW_PLUGIN_NAME}\` (krew links kubectl-${KREW_PLUGIN_NAME}), so krew installs one of them at a time:
\`kubectl krew uninstall ${KREW_PLUGIN_NAME}\` first to switch. Publishing a release: copy these files to the root of
the index repository's default branch, commit and push, once the archives the manifest points to are uploaded.
`;
  return [
    { path: `plugins/${KREW_PLUGIN_NAME}.yaml`, data: manifest },
    { path: 'README.md', data: readme },
  ];
}
