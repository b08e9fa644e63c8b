// Kubernetes name rules (apimachinery validation), checked client-side so that a
// bad name never reaches a URL and fails with exit 2 before any request.

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export const DNS1123_LABEL_MAX = 63;
export const DNS1123_SUBDOMAIN_MAX = 253;

/** Why `value` is not a DNS-1123 subdomain (object names), or undefined when it is one. */
export function dns1123SubdomainProblem(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value.length > DNS1123_SUBDOMAIN_MAX) return `must be no more than ${DNS1123_SUBDOMAIN_MAX} characters (got ${value.length})`;
  if (!DNS1123_SUBDOMAIN.test(value)) {
    return "must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

/** Why `value` is not a DNS-1123 label (namespaces), or undefined when it is one. */
export function dns1123LabelProblem(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value.length > DNS1123_LABEL_MAX) return `must be no more than ${DNS1123_LABEL_MAX} characters (got ${value.length})`;
  if (!DNS1123_LABEL.test(value)) {
    return "must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
  }
  return undefined;
}

// ───────────── Labels (apimachinery IsValidLabelValue / IsQualifiedName) ─────────────

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
export const LABEL_VALUE_MAX = 63;

/** Why `value` is not a valid label value (empty is valid), or undefined. */
export function labelValueProblem(value: string): string | undefined {
  if (value.length > LABEL_VALUE_MAX) return `must be no more than ${LABEL_VALUE_MAX} characters (got ${value.length})`;
  if (!LABEL_VALUE.test(value)) {
    return "a valid label value must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

/** Why `key` is not a qualified name (label/annotation key: optional DNS-subdomain prefix + "/" + name ≤ 63). */
export function qualifiedNameProblem(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) return "a qualified name must consist of an optional DNS subdomain prefix and a name, separated by '/'";
  const name = parts[parts.length - 1]!;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix.length === 0) return 'prefix part must not be empty';
    const p = dns1123SubdomainProblem(prefix);
    if (p) return `prefix part ${p}`;
  }
  if (name.length === 0) return 'name part must not be empty';
  if (name.length > LABEL_VALUE_MAX) return `name part must be no more than ${LABEL_VALUE_MAX} characters`;
  if (!QUALIFIED_NAME_PART.test(name)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

// ───────────── Image references (docker/distribution reference.ParseNormalizedNamed) ─────────────
// Kruise's ImagePullJob webhook runs NormalizeImageRef = ParseNormalizedNamed + TagNameOnly;
// the same grammar decides what kubelet can pull. Kept to the letter so that an image the
// webhook would reject fails here with the same reason, before anything is sent.

export interface ImageReference {
  /** Registry host[:port]; "docker.io" when none is named. */
  domain: string;
  /** Repository path inside the registry ("library/nginx" for official docker.io images). */
  path: string;
  tag?: string;
  digest?: string;
  /** domain/path, fully qualified ("docker.io/library/nginx"). */
  name: string;
  /** Short form docker prints ("nginx", "example.com/app"). */
  familiarName: string;
  /** Fully qualified with a tag: ":latest" added when neither tag nor digest is given (TagNameOnly). */
  normalized: string;
}

export type ImageParseResult = { ok: true; ref: ImageReference } | { ok: false; reason: string };

const ALNUM = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|[-]+)';
const PATH_COMPONENT = `${ALNUM}(?:${SEPARATOR}${ALNUM})*`;
const DOMAIN_NAME_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const IPV6 = '\\[(?:[a-fA-F0-9:]+)\\]';
const DOMAIN = `(?:${DOMAIN_NAME_COMPONENT}(?:\\.${DOMAIN_NAME_COMPONENT})*|${IPV6})(?::[0-9]+)?`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE_RE = new RegExp(`^((?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const DOMAIN_PREFIX_RE = new RegExp(`^(${DOMAIN})/(.*)$`);
const IDENTIFIER_RE = /^[a-f0-9]{64}$/;
const NAME_TOTAL_LENGTH_MAX = 255;
const DIGEST_HEX_LENGTH: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };

/** Parses an image reference the way Kruise's ImagePullJob webhook does (lowercase repository, no bare 64-hex id). */
export function parseImageReference(image: string): ImageParseResult {
  if (IDENTIFIER_RE.test(image)) {
    return { ok: false, reason: `invalid repository name (${image}), cannot specify 64-byte hexadecimal strings` };
  }
  const [domain, remainder] = splitDockerDomain(image);
  const colon = remainder.indexOf(':');
  const remoteName = colon >= 0 ? remainder.slice(0, colon) : remainder;
  if (remoteName.toLowerCase() !== remoteName) {
    return { ok: false, reason: `invalid reference format: repository name (${remoteName}) must be lowercase` };
  }
  const full = `${domain}/${remainder}`;
  const m = REFERENCE_RE.exec(full);
  if (!m || image.length === 0) return { ok: false, reason: 'invalid reference format' };
  const name = m[1]!;
  if (name.length > NAME_TOTAL_LENGTH_MAX) {
    return { ok: false, reason: `repository name must not be more than ${NAME_TOTAL_LENGTH_MAX} characters` };
  }
  const tag = m[2];
  const digest = m[3];
  if (digest !== undefined) {
    const problem = digestProblem(digest);
    if (problem) return { ok: false, reason: problem };
  }
  const dm = DOMAIN_PREFIX_RE.exec(name)!;
  const path = dm[2]!;
  const familiarName = domain === 'docker.io' ? path.replace(/^library\/(?=[^/]+$)/, '') : name;
  const suffix = `${tag !== undefined ? `:${tag}` : ''}${digest !== undefined ? `@${digest}` : ''}`;
  const ref: ImageReference = {
    domain,
    path,
    name,
    familiarName,
    normalized: `${name}${suffix || ':latest'}`,
  };
  if (tag !== undefined) ref.tag = tag;
  if (digest !== undefined) ref.digest = digest;
  return { ok: true, ref };
}

/** Why `image` is not a valid image reference, or undefined. */
export function imageReferenceProblem(image: string): string | undefined {
  const r = parseImageReference(image);
  return r.ok ? undefined : r.reason;
}

/** Fully qualified repository of an image ("docker.io/library/nginx"), undefined when invalid. */
export function imageRepository(image: string): string | undefined {
  const r = parseImageReference(image);
  return r.ok ? r.ref.name : undefined;
}

/** Whether two images name the same repository ("nginx" and "docker.io/library/nginx:1.25" do). */
export function sameImageRepository(a: string, b: string): boolean {
  const ra = imageRepository(a);
  return ra !== undefined && ra === imageRepository(b);
}

// docker/distribution splitDockerDomain: the first component is a registry only when it
// contains "." or ":", is "localhost", or has upper case letters.
function splitDockerDomain(name: string): [string, string] {
  const i = name.indexOf('/');
  let domain = 'docker.io';
  let remainder = name;
  if (i >= 0) {
    const first = name.slice(0, i);
    if (/[.:]/.test(first) || first === 'localhost' || first.toLowerCase() !== first) {
      domain = first;
      remainder = name.slice(i + 1);
    }
  }
  if (domain === 'index.docker.io') domain = 'docker.io';
  if (domain === 'docker.io' && !remainder.includes('/')) remainder = `library/${remainder}`;
  return [domain, remainder];
}

// go-digest Parse + Validate: known algorithm, exact hex length, lowercase hex.
function digestProblem(digest: string): string | undefined {
  const i = digest.indexOf(':');
  const algorithm = digest.slice(0, i);
  const encoded = digest.slice(i + 1);
  const length = DIGEST_HEX_LENGTH[algorithm];
  if (length === undefined) return 'unsupported digest algorithm';
  if (encoded.length !== length) return 'invalid checksum digest length';
  if (!/^[a-f0-9]+$/.test(encoded)) return 'invalid checksum digest format';
  return undefined;
}
