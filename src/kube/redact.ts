// Secrets never reach the terminal: request logs (-v>=6), error messages and
// plugin failures all go through these functions before being printed.

const REDACTED = '<redacted>';

/** Header names whose values are credentials. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-remote-user-token']);

/** A header value as it may be logged ("Bearer <redacted>" keeps the scheme, like kubectl). */
export function redactHeader(name: string, value: string): string {
  if (!SECRET_HEADERS.has(name.toLowerCase())) return value;
  const space = value.indexOf(' ');
  return space > 0 ? `${value.slice(0, space)} ${REDACTED}` : REDACTED;
}

// Shapes of secrets that can appear in bodies or messages even when we do not know the value.
const PATTERNS: Array<[RegExp, string]> = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g, `${REDACTED} private key`],
  [/-----BEGIN CERTIFICATE-----[\s\S]*?(-----END CERTIFICATE-----|$)/g, `${REDACTED} certificate`],
  [/("(?:token|access_token|id_token|refresh_token|client-key-data|client-certificate-data|clientKeyData|clientCertificateData|password)"\s*:\s*")[^"]*(")/gi, `$1${REDACTED}$2`],
  [/((?:token|client-key-data|client-certificate-data|password)\s*:\s*)(?!<redacted>)[^\s,}]+/gi, `$1${REDACTED}`],
  [/\b(Bearer|Basic)\s+(?!<redacted>)[A-Za-z0-9\-._~+/=]{4,}/g, `$1 ${REDACTED}`],
  [/(\/\/[^/\s:@]+:)[^/\s@]+@/g, `$1${REDACTED}@`],
];

/**
 * Builds a redactor that hides the known secret values (token, password, key
 * material) wherever they occur, plus anything shaped like a credential.
 */
export function makeRedactor(secrets: ReadonlyArray<string | undefined>): (text: string) => string {
  // Very short values would mangle ordinary text; real tokens are long.
  const known = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 6).sort((a, b) => b.length - a.length);
  return (text: string): string => {
    let out = text;
    for (const s of known) if (out.includes(s)) out = out.split(s).join(REDACTED);
    for (const [re, rep] of PATTERNS) out = out.replace(re, rep);
    return out;
  };
}

const SECRET_KIND = /"kind"\s*:\s*"Secret(?:List)?"/;
const SECRET_MAPS = ['data', 'stringData'] as const;
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

function hideSecretValues(obj: unknown): void {
  if (!obj || typeof obj !== 'object') return;
  const o = obj as Record<string, unknown>;
  for (const field of SECRET_MAPS) {
    const map = o[field];
    if (map && typeof map === 'object') for (const k of Object.keys(map)) (map as Record<string, unknown>)[k] = REDACTED;
  }
  // `kubectl apply` keeps the whole Secret, values included, in this annotation.
  const annotations = (o.metadata as { annotations?: Record<string, unknown> } | undefined)?.annotations;
  if (annotations && LAST_APPLIED in annotations) annotations[LAST_APPLIED] = REDACTED;
  if (Array.isArray(o.items)) for (const item of o.items) hideSecretValues(item);
  // A watch event or an admission-style wrapper carries the Secret in `object`.
  if (o.object) hideSecretValues(o.object);
}

/**
 * A request or response body as it may be logged (-v>=8): the values of a Secret's (or a
 * SecretList's) `data` and `stringData` become <redacted>, keys kept, like kubectl hides them
 * in `describe`. Anything that is not a Secret is returned as it is.
 */
export function redactSecretBody(body: string): string {
  if (!SECRET_KIND.test(body)) return body;
  try {
    const parsed = JSON.parse(body) as unknown;
    hideSecretValues(parsed);
    return JSON.stringify(parsed);
  } catch {
    // Not JSON we can walk (YAML, cut short): hide every value of every data/stringData map.
    return body.replace(/("(?:data|stringData)"\s*:\s*\{)([^{}]*)(\})/g, (_m, open: string, inner: string, close: string) => `${open}${inner.replace(/("[^"]*"\s*:\s*)"[^"]*"/g, `$1"${REDACTED}"`)}${close}`);
  }
}

/** Shortens a body for -v=8 logs. */
export function truncateBody(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)} [truncated ${text.length - max} chars]`;
}

/**
 * For text we cannot vet (an exec plugin's stderr): also hides every long
 * token-like word (letters and digits, 16+ characters, no path separators).
 */
export function redactTokenLike(text: string): string {
  return text.replace(/(?<![\w/.-])[A-Za-z0-9_\-.~+=]{16,}(?![\w/])/g, (word) => (/[0-9]/.test(word) && /[A-Za-z]/.test(word) ? REDACTED : word));
}
