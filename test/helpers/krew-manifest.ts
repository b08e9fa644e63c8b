// krew's plugin manifest rules, ported from kubernetes-sigs/krew (db921d5, 2026-05) so tests can
// hold `npm run release`'s kruise.yaml to them without krew itself:
// - pkg/index/types.go: the Plugin / PluginSpec / Platform / FileOperation fields;
// - internal/index/validation/validate.go: ValidatePlugin, IsSafePluginName, validatePlatform,
//   validateFiles, validateSelector;
// - internal/installation/semver/version.go Parse: a leading "v", then
//   k8s.io/apimachinery/pkg/util/version ParseSemantic;
// - cmd/validate-krew-manifest/main.go (what krew-index CI runs): validateManifestFile (file
//   named <name>.yaml), findAnyMatchingPlatform (every selector matches a supported os/arch),
//   isOverlappingPlatformSelectors, validateLicenseFileExists.
// Each function returns the problems found (empty: valid), worded like krew's errors.

export interface FileOperation {
  from?: string;
  to?: string;
}
export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}
export interface LabelSelector {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirement[] | null;
}
export interface Platform {
  uri?: string;
  sha256?: string;
  selector?: LabelSelector | null;
  files?: FileOperation[] | null;
  bin?: string;
}
export interface Plugin {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string };
  spec?: { version?: string; shortDescription?: string; description?: string; caveats?: string; homepage?: string; platforms?: Platform[] };
}

/** pkg/constants/constants.go */
export const CURRENT_API_VERSION = 'krew.googlecontainertools.github.com/v1alpha2';
export const PLUGIN_KIND = 'Plugin';

/** validate-krew-manifest main.go allPlatforms(): the os/arch pairs krew itself ships for. */
export const ALL_PLATFORMS: ReadonlyArray<{ os: string; arch: string }> = [
  { os: 'windows', arch: '386' },
  { os: 'windows', arch: 'amd64' },
  { os: 'windows', arch: 'arm64' },
  { os: 'linux', arch: '386' },
  { os: 'linux', arch: 'amd64' },
  { os: 'linux', arch: 'arm' },
  { os: 'linux', arch: 'arm64' },
  { os: 'linux', arch: 'ppc64le' },
  { os: 'darwin', arch: '386' },
  { os: 'darwin', arch: 'amd64' },
  { os: 'darwin', arch: 'arm64' },
];

const SAFE_PLUGIN = /^[\w-]+$/;
const SHA256 = /^[a-f0-9]{64}$/;
const WINDOWS_FORBIDDEN = ['CON', 'PRN', 'AUX', 'NUL', ...Array.from({ length: 9 }, (_, i) => `COM${i + 1}`), ...Array.from({ length: 9 }, (_, i) => `LPT${i + 1}`)];

/** validate.go IsSafePluginName */
export function isSafePluginName(name: string): boolean {
  return SAFE_PLUGIN.test(name) && !WINDOWS_FORBIDDEN.some((f) => f.toLowerCase() === name.toLowerCase());
}

/** semver.Parse: "v" + apimachinery's ParseSemantic (3 numeric components, no zero prefixes). */
export function semverProblem(s: string): string | undefined {
  if (!s.startsWith('v')) return `version string "${s}" not starting with 'v'`;
  const parts = /^\s*v?([0-9]+(?:\.[0-9]+)*)(.*)$/.exec(s);
  if (!parts) return `could not parse "${s}" as version`;
  const [, numbers, extra] = parts as unknown as [string, string, string];
  const components = numbers.split('.');
  if (components.length !== 3) return `illegal version string "${s}"`;
  for (const c of components) if (c.startsWith('0') && c !== '0') return `illegal zero-prefixed version component "${c}" in "${s}"`;
  if (extra !== '') {
    const m = /^(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?\s*$/.exec(extra);
    if (!m) return `could not parse pre-release/metadata (${extra}) in version "${s}"`;
    for (const c of (m[1] ?? '').split('.')) if (/^[0-9]+$/.test(c) && c.startsWith('0') && c !== '0') return `illegal zero-prefixed version component "${c}" in "${s}"`;
  }
  return undefined;
}

/** validate.go validateFiles */
function filesProblem(fops: FileOperation[] | null | undefined): string | undefined {
  if (fops === undefined || fops === null) return undefined;
  if (fops.length === 0) return '`files` has to be unspecified or non-empty';
  for (const op of fops) {
    if (!op.from) return '`from` field has to be set';
    if (!op.to) return '`to` field has to be set';
  }
  return undefined;
}

/** validate.go validateSelector */
function selectorProblem(sel: LabelSelector | null | undefined): string | undefined {
  if (sel === undefined || sel === null) return 'nil selector is not supported';
  if ((sel.matchLabels === undefined || sel.matchLabels === null) && (sel.matchExpressions ?? []).length === 0) return 'empty selector is not supported';
  const keys = [...Object.keys(sel.matchLabels ?? {}), ...(sel.matchExpressions ?? []).map((e) => e.key)];
  for (const key of keys) if (key !== 'os' && key !== 'arch') return `key "${key}" not supported`;
  if (sel.matchLabels && Object.keys(sel.matchLabels).length === 0) return '`matchLabels` specified but empty';
  if (sel.matchExpressions && sel.matchExpressions.length === 0) return '`matchExpressions` specified but empty';
  return undefined;
}

/** validate.go validatePlatform */
export function platformProblem(p: Platform): string | undefined {
  if (!p.uri) return '`uri` has to be set';
  if (!p.sha256) return '`sha256` sum has to be set';
  if (!SHA256.test(p.sha256)) return `\`sha256\` value ${p.sha256} is not valid, must match pattern ^[a-f0-9]{64}$`;
  if (!p.bin) return '`bin` has to be set';
  const files = filesProblem(p.files);
  if (files) return `\`files\` is invalid: ${files}`;
  const sel = selectorProblem(p.selector);
  if (sel) return `invalid platform selector: ${sel}`;
  return undefined;
}

/** validate.go ValidatePlugin(name, p) */
export function validatePlugin(name: string, p: Plugin): string[] {
  if (p.apiVersion !== CURRENT_API_VERSION) return [`plugin manifest has apiVersion="${p.apiVersion}", not supported in this version of krew`];
  if (p.kind !== PLUGIN_KIND) return [`plugin manifest has kind="${p.kind}", but only "${PLUGIN_KIND}" is supported`];
  if (!isSafePluginName(name)) return [`the plugin name "${name}" is not allowed, must match "^[\\w-]+$"`];
  if (p.metadata?.name !== name) return [`plugin should be named "${name}", not "${p.metadata?.name}"`];
  const spec = p.spec ?? {};
  if (!spec.shortDescription) return ['should have a short description'];
  if (/[\r\n]/.test(spec.shortDescription)) return ['should not have line breaks in short description'];
  if (!spec.platforms || spec.platforms.length === 0) return ['should have a platform specified'];
  if (!spec.version) return ['should have a version specified'];
  const v = semverProblem(spec.version);
  if (v) return [`failed to parse plugin version: ${v}`];
  return spec.platforms.flatMap((pl, i) => {
    const problem = platformProblem(pl);
    return problem ? [`platform [${i}] is badly constructed: ${problem}`] : [];
  });
}

/** metav1.LabelSelectorAsSelector(sel).Matches({os, arch}) for the operators krew manifests use. */
export function selectorMatches(sel: LabelSelector | null | undefined, env: { os: string; arch: string }): boolean {
  if (!sel) return false; // LabelSelectorAsSelector(nil) is labels.Nothing()
  const labels: Record<string, string> = { os: env.os, arch: env.arch };
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = e.key in labels;
    const value = labels[e.key];
    const ok =
      e.operator === 'In' ? has && (e.values ?? []).includes(value!) :
      e.operator === 'NotIn' ? !has || !(e.values ?? []).includes(value!) :
      e.operator === 'Exists' ? has :
      e.operator === 'DoesNotExist' ? !has :
      false;
    if (!ok) return false;
  }
  return true;
}

/**
 * validate-krew-manifest main.go validateManifestFile without the install step: the manifest's file
 * name, ValidatePlugin, every platform used (findAnyMatchingPlatform), none overlapping.
 */
export function validateManifestFile(fileName: string, p: Plugin): string[] {
  if (!fileName.endsWith('.yaml')) return [`expected manifest extension ".yaml" but found "${fileName}"`];
  const problems = validatePlugin(fileName.slice(0, -'.yaml'.length), p);
  if (problems.length > 0) return problems;
  const platforms = p.spec?.platforms ?? [];
  platforms.forEach((pl, i) => {
    if (!ALL_PLATFORMS.some((env) => selectorMatches(pl.selector, env))) problems.push(`spec.platform[${i}]'s selector doesn't match any supported platforms`);
  });
  for (const env of ALL_PLATFORMS) {
    const matching = platforms.flatMap((pl, i) => (selectorMatches(pl.selector, env) ? [i] : []));
    if (matching.length > 1) problems.push(`multiple spec.platforms (at indexes ${matching.join(',')}) have overlapping selectors that select ${env.os}/${env.arch}`);
  }
  return problems;
}

/** validate-krew-manifest main.go validateLicenseFileExists: the names accepted as a licence. */
export const LICENSE_FILES = ['license', 'license.txt', 'license.md', 'licenses', 'licenses.txt', 'licenses.md', 'copying', 'copying.txt'];

/** Field names of pkg/index/types.go (krew decodes leniently; a misspelt field would be dropped silently). */
export const KNOWN_FIELDS = {
  plugin: ['apiVersion', 'kind', 'metadata', 'spec'],
  spec: ['version', 'shortDescription', 'description', 'caveats', 'homepage', 'platforms'],
  platform: ['uri', 'sha256', 'selector', 'files', 'bin'],
  selector: ['matchLabels', 'matchExpressions'],
};
