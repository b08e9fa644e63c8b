// Kubernetes API failures as one-line CliErrors (exit 1): the server's Status
// message in the user's terms, never an HTTP dump. Callers branch on
// `KubeApiError.status` / `reason` (e.g. retry a 409, tolerate a 404).
import { CliError, ExitCode } from '../cli/exit';

export interface StatusCause {
  type?: string;
  reason?: string;
  message?: string;
  field?: string;
}

export interface KubeStatus {
  kind?: string;
  apiVersion?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { name?: string; group?: string; kind?: string; uid?: string; causes?: StatusCause[]; retryAfterSeconds?: number };
}

/** What the failed request was about, for reconstructing messages. */
export interface RequestContext {
  /** kube verb: get, list, watch, create, update, patch, delete. */
  verb: string;
  group?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  namespace?: string;
  /** For 401/403 messages when the server says nothing useful. */
  userName?: string;
  server?: string;
  path?: string;
}

export class KubeApiError extends CliError {
  constructor(
    message: string,
    readonly status: number,
    readonly reason: string | undefined,
    readonly kubeStatus: KubeStatus | undefined,
    hint?: string,
  ) {
    super(message, ExitCode.FAILED, hint);
    this.name = 'KubeApiError';
  }
}

export function isApiStatus(err: unknown, status: number): err is KubeApiError {
  return err instanceof KubeApiError && err.status === status;
}
export const isNotFound = (err: unknown): err is KubeApiError => isApiStatus(err, 404);
export const isConflict = (err: unknown): err is KubeApiError => isApiStatus(err, 409) && err.reason !== 'AlreadyExists';
export const isAlreadyExists = (err: unknown): err is KubeApiError => isApiStatus(err, 409) && err.reason === 'AlreadyExists';
export const isForbidden = (err: unknown): err is KubeApiError => isApiStatus(err, 403);
export const isGone = (err: unknown): err is KubeApiError => isApiStatus(err, 410);

/** "clonesets.apps.kruise.io", "pods", "clonesets.apps.kruise.io/status". */
export function resourceLabel(ctx: Pick<RequestContext, 'group' | 'resource' | 'subresource'>): string {
  if (!ctx.resource) return 'resource';
  return `${ctx.resource}${ctx.group ? `.${ctx.group}` : ''}${ctx.subresource ? `/${ctx.subresource}` : ''}`;
}

/** `cloneset.apps.kruise.io "web"`: an object as kubectl names it in messages. */
export function objectLabel(rt: { kind: string; group?: string }, name: string): string {
  return `${rt.kind.toLowerCase()}${rt.group ? `.${rt.group}` : ''} "${name}"`;
}

export function parseStatus(body: string): KubeStatus | undefined {
  if (!body || body[0] !== '{') return undefined;
  try {
    const parsed = JSON.parse(body) as KubeStatus;
    return parsed && parsed.kind === 'Status' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, '; ').replace(/\s+/g, ' ').trim();
}

const FORBIDDEN_RE = /User "([^"]*)" cannot (\S+) resource "([^"]+)" in API group "([^"]*)"(?: in the namespace "([^"]*)"| at the cluster scope)?/;

function forbiddenMessage(status: KubeStatus | undefined, ctx: RequestContext): string {
  const m = status?.message ? FORBIDDEN_RE.exec(status.message) : null;
  if (m) {
    const [, user, verb, resource, group, ns] = m;
    const label = `${resource}${group ? `.${group}` : ''}`;
    const tail = /(: .*)$/.exec(status!.message!.slice(m.index + m[0].length))?.[1] ?? '';
    return `${user} cannot ${verb} ${label}${ns ? ` in namespace ${ns}` : ' at the cluster scope'}${oneLine(tail)}`;
  }
  const user = ctx.userName || 'system:anonymous';
  const where = ctx.namespace ? ` in namespace ${ctx.namespace}` : ' at the cluster scope';
  const fallback = `${user} cannot ${ctx.verb} ${resourceLabel(ctx)}${where}`;
  return status?.message ? `${fallback}: ${oneLine(status.message)}` : fallback;
}

function objectRef(ctx: RequestContext): string {
  return `${resourceLabel({ group: ctx.group, resource: ctx.resource })}${ctx.name ? ` "${ctx.name}"` : ''}`;
}

/** Turns a non-2xx response into a KubeApiError with one clear line. */
export function apiError(httpStatus: number, statusText: string, body: string, ctx: RequestContext): KubeApiError {
  const status = parseStatus(body);
  const reason = status?.reason;
  const serverMessage = status?.message ? oneLine(status.message) : '';
  const inNs = ctx.namespace ? ` in namespace "${ctx.namespace}"` : '';
  const what = `${ctx.verb} ${resourceLabel(ctx)}${ctx.name ? ` ${ctx.name}` : ''}`;
  let message: string;
  let hint: string | undefined;
  switch (httpStatus) {
    case 404:
      if (status?.details?.name || (ctx.name && serverMessage.includes(`"${ctx.name}" not found`))) {
        message = `${serverMessage || `${objectRef(ctx)} not found`}${serverMessage.includes('namespace') ? '' : inNs}`;
      } else if (ctx.name && !status && body === '') {
        message = `${objectRef(ctx)} not found${inNs}`;
      } else {
        message = `the server could not find the requested resource (${what})`;
      }
      break;
    case 403:
      message = forbiddenMessage(status, ctx);
      break;
    case 401:
      message = `you must be logged in to the server (Unauthorized): the credentials of ${ctx.userName ? `user "${ctx.userName}"` : 'this kubeconfig'} were rejected (wrong or expired token or certificate?)`;
      break;
    case 409:
    case 422:
    case 400:
    case 410:
      message = serverMessage || `${objectRef(ctx)}: ${httpStatus} ${statusText}`;
      // Some answers do not say which object (a JSON patch that no longer applies: "the server
      // rejected our request due to an error in our request"): name it, as every error must.
      if (serverMessage && ctx.name && !serverMessage.includes(ctx.name)) message = `${objectRef(ctx)}${inNs}: ${serverMessage}`;
      if (httpStatus === 422 && status?.details?.causes?.length && !/: /.test(serverMessage)) {
        message = `${serverMessage || `${objectRef(ctx)} is invalid`}: ${status.details.causes.map((c) => `${c.field ?? ''}: ${c.message ?? c.reason ?? ''}`).join(', ')}`;
      }
      break;
    case 415:
      message = `the server rejected the request body of ${what}: ${serverMessage || 'unsupported media type'}`;
      if (ctx.verb === 'patch') hint = 'hint: custom resources accept only JSON merge patches and JSON patches, not strategic merge patches';
      break;
    case 429:
      message = `the server is throttling requests (429 Too Many Requests) for ${what}${serverMessage ? `: ${serverMessage}` : ''}`;
      break;
    default:
      message = `the server returned ${httpStatus} ${statusText || ''}`.trimEnd() + ` for ${what}${serverMessage ? `: ${serverMessage}` : ''}`;
  }
  return new KubeApiError(message, httpStatus, reason, status, hint);
}

const TLS_UNKNOWN_CA = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_SIGNATURE_FAILURE',
]);

/** The client certificate a connection offers, for messages about a server that wants one. */
export interface ClientCertificateInfo {
  /** Whether one was configured (kubeconfig user, --client-certificate, exec plugin). */
  given: boolean;
  /** Whose it is, or whose it would be: `kubeconfig user "admin"`, `--client-certificate=/path/cert.pem`. */
  source?: string;
}

/** A connection closed right after a completed TLS handshake in which we offered a client certificate. */
export const CLIENT_CERT_CLOSED = 'ERR_KUBECTL_KRUISE_CLIENT_CERT_CLOSED';

// TLS alerts a server sends about the client's certificate (RFC 8446 6.2); OpenSSL and BoringSSL put
// them in the error code as ..._ALERT_<NAME> (ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED, ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE).
const CERT_REQUIRED_ALERTS = new Set(['CERTIFICATE_REQUIRED']);
const CERT_REJECTED_ALERTS = new Set(['BAD_CERTIFICATE', 'UNSUPPORTED_CERTIFICATE', 'CERTIFICATE_REVOKED', 'CERTIFICATE_EXPIRED', 'CERTIFICATE_UNKNOWN', 'UNKNOWN_CA', 'ACCESS_DENIED', 'DECRYPT_ERROR']);

/** The alert a server ended the handshake with, as ERR_SSL_..._ALERT_NAME codes or OpenSSL/BoringSSL messages carry it. */
function tlsAlert(err: NodeJS.ErrnoException & { reason?: string }): string | undefined {
  const fromCode = /_ALERT_([A-Z_]+)$/.exec(err.code ?? '')?.[1];
  if (fromCode) return fromCode;
  const fromText = /(?:sslv3|tlsv1\d?) alert ([a-z ]+?)(?::|$)/i.exec(err.reason ?? err.message ?? '')?.[1] ?? /ALERT_([A-Z_]+)/.exec(err.message ?? '')?.[1];
  return fromText?.trim().toUpperCase().replace(/ /g, '_');
}

/**
 * A server that turned the TLS handshake down over the client certificate: required and none given,
 * or the one given rejected (an alert, or the connection closed right after the handshake, which is
 * how a Node server that requires a certificate turns down one it does not trust).
 */
function clientCertificateError(err: NodeJS.ErrnoException & { reason?: string }, at: string, cert: ClientCertificateInfo | undefined): CliError | undefined {
  if (!cert) return undefined;
  const whose = cert.source ? ` (${cert.source})` : '';
  if (err.code === CLIENT_CERT_CLOSED && cert.given) {
    return new CliError(`${at} rejected the client certificate${whose}: it closed the connection right after the TLS handshake`, ExitCode.FAILED, CERT_REJECTED_HINT);
  }
  const alert = tlsAlert(err);
  if (!alert) return undefined;
  const said = alert.toLowerCase().replace(/_/g, ' ');
  // TLS 1.2 servers (OpenSSL's) answer a missing certificate with a plain handshake failure, which a
  // cipher or version mismatch gives too: asked, not asserted.
  if (alert === 'HANDSHAKE_FAILURE') {
    return cert.given ? undefined : new CliError(`the TLS handshake with ${at} failed (TLS alert: handshake failure): does it require a client certificate? none was given${whose}`, ExitCode.FAILED, CERT_MISSING_HINT);
  }
  if (!CERT_REQUIRED_ALERTS.has(alert) && !CERT_REJECTED_ALERTS.has(alert)) return undefined;
  if (!cert.given) {
    return new CliError(`${at} requires a client certificate and none was given${whose}${CERT_REQUIRED_ALERTS.has(alert) ? '' : ` (TLS alert: ${said})`}`, ExitCode.FAILED, CERT_MISSING_HINT);
  }
  return new CliError(`${at} rejected the client certificate${whose} (TLS alert: ${said})`, ExitCode.FAILED, CERT_REJECTED_HINT);
}

const CERT_MISSING_HINT = 'hint: give the kubeconfig user client-certificate-data and client-key-data (or client-certificate and client-key), or pass --client-certificate and --client-key';

const CERT_REJECTED_HINT = 'hint: is it signed by a CA the server trusts, and still valid? (openssl x509 -noout -issuer -dates shows both)';

/**
 * A failure below HTTP (connection, TLS, timeout) as a one-line CliError. `cert`: the client certificate
 * the connection offered, to name it when the server turned the handshake down over it.
 */
const NO_ANSWER = Symbol('noAnswer');

/** Marks a transport error as "the server gave no answer in time" (a timeout), as against one it gave (refused, reset, an error status). */
function noAnswer(err: CliError): CliError {
  return Object.assign(err, { [NO_ANSWER]: true });
}

/**
 * Whether a failed request got no answer at all within its time (the server hung), as against an answer
 * (an error status, a refused or reset connection): at a wait's deadline the first is a timeout (exit 3),
 * the second the server's error (exit 1).
 */
export function isNoAnswer(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[NO_ANSWER] === true;
}

export function transportError(err: NodeJS.ErrnoException & { reason?: string }, server: string, timeoutMs?: number, cert?: ClientCertificateInfo): CliError {
  const code = err.code ?? '';
  const at = `the server at ${server}`;
  // Through a proxy: the message names the proxy and what it said (proxy-connect.ts).
  if (err.name === 'ProxyError') return new CliError(err.message, ExitCode.FAILED, (err as Error & { hint?: string }).hint);
  const certProblem = clientCertificateError(err, at, cert);
  if (certProblem) return certProblem;
  if (TLS_UNKNOWN_CA.has(code)) {
    return new CliError(
      `tls: failed to verify the certificate of ${at}: x509: certificate signed by unknown authority`,
      ExitCode.FAILED,
      "hint: pass --certificate-authority=FILE with the server's CA (or fix certificate-authority-data in the kubeconfig); --insecure-skip-tls-verify turns verification off (insecure)",
    );
  }
  if (code === 'CERT_HAS_EXPIRED') return new CliError(`tls: the certificate of ${at} has expired`);
  if (code === 'CERT_NOT_YET_VALID') return new CliError(`tls: the certificate of ${at} is not yet valid`);
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return new CliError(`tls: the certificate of ${at} is not valid for this host name: ${oneLine(err.reason ?? err.message)}`, ExitCode.FAILED, 'hint: --tls-server-name=NAME verifies against another name');
  }
  if (code === 'EPROTO' && /wrong version number|packet length too long|does the server speak TLS/i.test(err.message)) {
    return new CliError(`${at} does not speak TLS (is the address http:// rather than https://?)`);
  }
  if (code === 'ERR_SSL_KEY_VALUES_MISMATCH' || /KEY_VALUES_MISMATCH|key values mismatch/i.test(err.message)) {
    return new CliError('the client certificate and client key do not match', ExitCode.USAGE);
  }
  // Bun (the executable) says only "Invalid CA" (or cert, key) for material it cannot parse.
  if (/PEM routines|bad base64 decode|no start line|ERR_OSSL_PEM|^Invalid (CA|cert|certificate|key|private key)$/i.test(err.message) || code.startsWith('ERR_OSSL_PEM')) {
    return new CliError('the client certificate, client key or CA in the kubeconfig is not valid PEM', ExitCode.USAGE);
  }
  if (code === 'REQUEST_TIMEOUT') return noAnswer(new CliError(`the request to ${server} timed out after ${formatMs(timeoutMs ?? 0)} (--request-timeout)`));
  if (code === 'ECONNREFUSED') return new CliError(`${at} is unreachable: connection refused`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new CliError(`${at} is unreachable: host ${new URL(server).hostname} not found`);
  if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return new CliError(`${at} is unreachable: ${code === 'ETIMEDOUT' ? 'connection timed out' : 'no route to host'}`);
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET') return new CliError(`the connection to ${at} was reset`);
  return new CliError(`request to ${server} failed: ${oneLine(err.message || code)}`);
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
