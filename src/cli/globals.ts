// kubectl passes plugins their arguments untouched, so the plugin parses
// kubectl's global flags itself, wherever they appear on the command line.
import { usageError } from './exit';
import { goQuote, parseGoDuration } from '../lib/go-duration';

export interface GlobalFlags {
  kubeconfig?: string;
  context?: string;
  cluster?: string;
  user?: string;
  namespace?: string;
  server?: string;
  token?: string;
  as?: string;
  asGroups: string[];
  asUid?: string;
  /** --as-user-extra values as given (KEY=VALUE), repeated for several values. */
  asUserExtra: string[];
  certificateAuthority?: string;
  clientCertificate?: string;
  clientKey?: string;
  insecureSkipTlsVerify?: boolean;
  tlsServerName?: string;
  disableCompression?: boolean;
  /** Milliseconds; 0 = no timeout. */
  requestTimeoutMs: number;
  cacheDir?: string;
  verbosity: number;
  noColor: boolean;
}

type Key = Exclude<keyof GlobalFlags, 'asGroups' | 'asUserExtra' | 'disableCompression' | 'verbosity' | 'noColor' | 'requestTimeoutMs' | 'insecureSkipTlsVerify'>;

interface FlagSpec {
  long: string;
  short?: string;
  kind: 'string' | 'bool' | 'list' | 'verbosity' | 'duration';
  key: keyof GlobalFlags;
}

const SPECS: FlagSpec[] = [
  { long: 'kubeconfig', kind: 'string', key: 'kubeconfig' },
  { long: 'context', kind: 'string', key: 'context' },
  { long: 'cluster', kind: 'string', key: 'cluster' },
  { long: 'user', kind: 'string', key: 'user' },
  { long: 'namespace', short: 'n', kind: 'string', key: 'namespace' },
  { long: 'server', short: 's', kind: 'string', key: 'server' },
  { long: 'token', kind: 'string', key: 'token' },
  { long: 'as', kind: 'string', key: 'as' },
  { long: 'as-group', kind: 'list', key: 'asGroups' },
  { long: 'as-uid', kind: 'string', key: 'asUid' },
  { long: 'as-user-extra', kind: 'list', key: 'asUserExtra' },
  { long: 'certificate-authority', kind: 'string', key: 'certificateAuthority' },
  { long: 'client-certificate', kind: 'string', key: 'clientCertificate' },
  { long: 'client-key', kind: 'string', key: 'clientKey' },
  { long: 'insecure-skip-tls-verify', kind: 'bool', key: 'insecureSkipTlsVerify' },
  { long: 'tls-server-name', kind: 'string', key: 'tlsServerName' },
  { long: 'disable-compression', kind: 'bool', key: 'disableCompression' },
  { long: 'request-timeout', kind: 'duration', key: 'requestTimeoutMs' },
  { long: 'cache-dir', kind: 'string', key: 'cacheDir' },
  { long: 'v', short: 'v', kind: 'verbosity', key: 'verbosity' },
  { long: 'no-color', kind: 'bool', key: 'noColor' },
];

const BY_LONG = new Map(SPECS.map((s) => [s.long, s]));
const BY_SHORT = new Map(SPECS.filter((s) => s.short).map((s) => [s.short!, s]));

/** Names of the global flags, for help text and completion. */
export const GLOBAL_FLAG_HELP: ReadonlyArray<[string, string]> = [
  ['--kubeconfig=PATH', 'path to the kubeconfig file (else $KUBECONFIG, else ~/.kube/config)'],
  ['--context=NAME', 'the kubeconfig context to use'],
  ['--cluster=NAME', 'the kubeconfig cluster to use'],
  ['--user=NAME', 'the kubeconfig user to use'],
  ['-n, --namespace=NS', "namespace (default: the context's namespace, else default)"],
  ['-s, --server=URL', 'address of the Kubernetes API server'],
  ['--token=TOKEN', 'bearer token for authentication'],
  ['--as=USER', 'impersonate a user'],
  ['--as-group=GROUP', 'impersonate a group (repeat for several)'],
  ['--as-uid=UID', 'the impersonated user\'s UID'],
  ['--as-user-extra=KEY=VALUE', 'the impersonated user\'s extras (repeat for several values)'],
  ['--certificate-authority=PATH', 'CA bundle to verify the server with'],
  ['--client-certificate=PATH', 'TLS client certificate'],
  ['--client-key=PATH', 'TLS client key'],
  ['--insecure-skip-tls-verify', 'do not verify the server certificate (insecure)'],
  ['--tls-server-name=NAME', 'server name to verify the certificate against'],
  ['--disable-compression', 'do not ask the server to compress responses (else gzip, as kubectl)'],
  ['--request-timeout=DURATION', 'timeout of one request, e.g. 10s (0 = none)'],
  ['--cache-dir=PATH', 'discovery cache folder (default ~/.kube/cache)'],
  ['-v, --v=LEVEL', 'log level 0-9; 6+ logs requests (secrets redacted)'],
  ['--no-color', 'never colour the output'],
];

/** The global flags as `kubectl options` lists them: names, the default pflag would print, description. */
export function globalFlagDocs(): Array<{ names: string; value: string; description: string }> {
  return GLOBAL_FLAG_HELP.map(([flag, description]) => {
    const names = flag.replace(/=.*$/, '');
    const kind = BY_LONG.get(names.replace(/^.*--/, ''))?.kind;
    const value = kind === 'bool' ? 'false' : kind === 'list' ? '[]' : kind === 'verbosity' ? '0' : kind === 'duration' ? "'0'" : "''";
    return { names, value, description };
  });
}

/**
 * Parses a duration flag as kubectl does (Go's time.ParseDuration behind pflag's DurationVar):
 * "30s", "1m30s", "500ms", "2h"; a bare "0" is zero, any other number without a unit is refused
 * ("time: missing unit"), so a script's `--timeout 5` fails loudly instead of meaning 5 seconds
 * here and an error in kubectl. `bareSeconds` is --request-timeout's rule (client-go's
 * clientcmd.ParseTimeout): a whole number is seconds. No flag takes a negative duration.
 * Returns milliseconds.
 */
export function parseDuration(value: string, flag: string, opts: { bareSeconds?: boolean } = {}): number {
  const v = value.trim();
  if (opts.bareSeconds && /^\d+$/.test(v)) return Number(v) * 1000;
  const invalid = (goMessage: string): Error =>
    usageError(`invalid argument "${value}" for "${flag}" flag: ${goMessage}`, 'hint: give a unit, e.g. 30s, 2m, 1h30m');
  if (v.startsWith('-')) throw invalid(`time: invalid duration ${goQuote(value)} (must not be negative)`);
  try {
    return Math.round(parseGoDuration(v));
  } catch (err) {
    throw invalid(err instanceof Error ? err.message.replace(goQuote(v), goQuote(value)) : String(err));
  }
}

function parseBool(value: string, flag: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw usageError(`invalid value "${value}" for ${flag}: expected true or false`);
}

export function defaultGlobals(): GlobalFlags {
  return { asGroups: [], asUserExtra: [], requestTimeoutMs: 0, verbosity: 0, noColor: false };
}

/**
 * Commands with a flag of their own named like a global one: as in kubectl (a command's local
 * flag shadows the inherited one), after the command's words the flag is the command's.
 * `set subject --user=alice` binds a user; it does not pick a kubeconfig user.
 */
const SHADOWED: ReadonlyArray<{ words: readonly string[]; flags: readonly string[] }> = [{ words: ['set', 'subject'], flags: ['user'] }];

function shadowedFlags(words: readonly string[]): readonly string[] {
  return SHADOWED.find((s) => s.words.every((w, i) => words[i] === w))?.flags ?? [];
}

/**
 * Removes the global flags from argv (anywhere before a lone "--") and returns them
 * with the remaining arguments, which go to the subcommand parser.
 */
export function extractGlobalFlags(argv: readonly string[]): { globals: GlobalFlags; rest: string[] } {
  const globals = defaultGlobals();
  const rest: string[] = [];
  // The positional words so far (the command path comes first), for flags a command shadows.
  const words: string[] = [];
  const set = (spec: FlagSpec, raw: string | undefined, display: string): void => {
    if (spec.kind === 'bool') {
      (globals as unknown as Record<string, unknown>)[spec.key] = raw === undefined ? true : parseBool(raw, display);
      return;
    }
    if (raw === undefined) throw usageError(`flag needs an argument: ${display}`);
    switch (spec.kind) {
      case 'string':
        if (raw === '') throw usageError(`flag ${spec.key === 'namespace' ? '--namespace' : display} needs a non-empty value`);
        globals[spec.key as Key] = raw;
        return;
      case 'list':
        (spec.key === 'asUserExtra' ? globals.asUserExtra : globals.asGroups).push(raw);
        return;
      case 'verbosity': {
        if (!/^\d+$/.test(raw)) throw usageError(`invalid value "${raw}" for ${display}: expected a log level 0-9`);
        globals.verbosity = Number(raw);
        return;
      }
      case 'duration':
        globals.requestTimeoutMs = parseDuration(raw, display, { bareSeconds: true });
        return;
    }
  };

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      const spec = BY_LONG.get(name);
      if (!spec || shadowedFlags(words).includes(name)) {
        rest.push(arg);
        continue;
      }
      if (eq !== -1) set(spec, arg.slice(eq + 1), `--${name}`);
      else if (spec.kind === 'bool') set(spec, undefined, `--${name}`);
      else {
        const next = argv[i + 1];
        if (next === undefined) throw usageError(`flag needs an argument: --${name}`);
        set(spec, next, `--${name}`);
        i++;
      }
      continue;
    }
    if (arg.length >= 2 && arg[0] === '-' && arg[1] !== '-') {
      const spec = BY_SHORT.get(arg[1]!);
      if (!spec) {
        // kubectl (pflag) reads `-o=json` as `-o json`; commander would take "=json" as the value,
        // so the command's own short flags get the attached form it understands (`-ojson`, `-wfalse`).
        if (arg[2] === '=') rest.push(...(arg.length > 3 ? [`-${arg[1]}${arg.slice(3)}`] : [`-${arg[1]}`, '']));
        else rest.push(arg);
        continue;
      }
      if (arg.length > 2) {
        set(spec, arg[2] === '=' ? arg.slice(3) : arg.slice(2), `-${arg[1]}`);
      } else {
        const next = argv[i + 1];
        if (next === undefined) throw usageError(`flag needs an argument: -${arg[1]}`);
        set(spec, next, `-${arg[1]}`);
        i++;
      }
      continue;
    }
    words.push(arg);
    rest.push(arg);
  }
  if (globals.verbosity > 9) throw usageError(`invalid log level ${globals.verbosity} for -v: expected 0-9`);
  return { globals, rest };
}
