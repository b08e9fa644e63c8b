// What a sandbox container runs on `exec`: a handful of busybox-like commands (cat, date, echo,
// env, false, hostname, id, printenv, pwd, sleep, stty, true, uname, whoami, exit) and `sh`/`bash`
// with `-c SCRIPT` or a script on stdin (an interactive prompt on a TTY). The shell knows quoting,
// $VAR / ${VAR} / $?, VAR=value, `;` `&&` `||` and newlines, `N>&M` / `N>/dev/null`, and # comments;
// not pipes, globs or control flow. A command a container does not have: `sh: X: not found` (127)
// inside a shell, an OCI-style failure (ExecNotFound) when exec'd directly, as containerd reports it.

/** stdin of a process: chunks as they arrive, null once it ended. */
export class InputQueue {
  private chunks: string[] = [];
  private ended = false;
  private waiter: (() => void) | undefined;

  push(text: string): void {
    if (this.ended || text === '') return;
    this.chunks.push(text);
    this.wake();
  }

  end(): void {
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }

  /** The next chunk, or null at the end; rejects when `signal` aborts first. */
  async read(signal: AbortSignal): Promise<string | null> {
    for (;;) {
      if (this.chunks.length) return this.chunks.shift()!;
      if (this.ended) return null;
      if (signal.aborted) throw new Interrupted();
      await new Promise<void>((resolve) => {
        const onAbort = (): void => resolve();
        this.waiter = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        signal.addEventListener('abort', onAbort, { once: true });
      });
    }
  }

  /** The next line without its newline (the rest stays queued), or null at the end. */
  async readLine(signal: AbortSignal): Promise<string | null> {
    let line = '';
    for (;;) {
      const chunk = await this.read(signal);
      if (chunk === null) return line === '' ? null : line;
      const nl = chunk.indexOf('\n');
      if (nl === -1) {
        line += chunk;
        continue;
      }
      line += chunk.slice(0, nl);
      const rest = chunk.slice(nl + 1);
      if (rest) this.chunks.unshift(rest);
      return line;
    }
  }
}

/** A foreground command stopped by Ctrl-C (TTY) or the connection going away. */
export class Interrupted extends Error {
  constructor() {
    super('interrupted');
    this.name = 'Interrupted';
  }
}

/** A command the container does not have, exec'd directly: the runtime fails to start it. */
export class ExecNotFound extends Error {
  constructor(readonly command: string) {
    super(`exec: "${command}": executable file not found in $PATH`);
    this.name = 'ExecNotFound';
  }
}

export interface ProcessIo {
  out(text: string): void;
  err(text: string): void;
}

export interface ContainerProcess {
  /** The container's environment, in the order `env` prints it. */
  env: Array<[string, string]>;
  hostname: string;
  stdin: InputQueue;
  io: ProcessIo;
  /** Aborted when the client goes away, or (TTY) by Ctrl-C for the current foreground command. */
  signal: () => AbortSignal;
  /** Terminal rows and columns (TTY only). */
  terminal?: () => { rows: number; cols: number } | undefined;
  now?: () => Date;
}

interface Shell {
  proc: ContainerProcess;
  vars: Map<string, string>;
  status: number;
}

class ExitShell {
  constructor(readonly code: number) {}
}

type Builtin = (args: string[], sh: Shell, io: ProcessIo) => Promise<number> | number;

const BIN_DIRS = ['/bin/', '/usr/bin/', '/usr/local/bin/', '/sbin/', '/usr/sbin/', '/usr/local/sbin/'];

function commandName(word: string): string {
  for (const dir of BIN_DIRS) if (word.startsWith(dir) && !word.slice(dir.length).includes('/')) return word.slice(dir.length);
  return word;
}

const FILES: Record<string, (sh: Shell) => string> = {
  '/etc/hostname': (sh) => `${sh.proc.hostname}\n`,
};

function busyboxDate(d: Date): string {
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const p2 = (n: number) => String(n).padStart(2, '0');
  return `${days[d.getUTCDay()]} ${months[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`;
}

function sleepFor(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Interrupted());
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new Interrupted());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function echoEscapes(s: string): string {
  return s.replace(/\\([\\abfnrtv0]|c)/g, (_m, c: string) => ({ '\\': '\\', a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '0': '\0', c: '' })[c] ?? c);
}

const BUILTINS: Record<string, Builtin> = {
  true: () => 0,
  false: () => 1,
  pwd: (_a, _s, io) => (io.out('/\n'), 0),
  whoami: (_a, _s, io) => (io.out('root\n'), 0),
  id: (_a, _s, io) => (io.out('uid=0(root) gid=0(root) groups=0(root)\n'), 0),
  uname: (args, sh, io) => (io.out(args.includes('-a') ? `Linux ${sh.proc.hostname} 6.1.0 #1 SMP x86_64 GNU/Linux\n` : args.includes('-n') ? `${sh.proc.hostname}\n` : 'Linux\n'), 0),
  hostname: (_a, sh, io) => (io.out(`${sh.proc.hostname}\n`), 0),
  date: (_a, sh, io) => (io.out(`${busyboxDate(sh.proc.now?.() ?? new Date())}\n`), 0),
  echo: (args, _s, io) => {
    let newline = true;
    let escapes = false;
    while (args.length && /^-[ne]+$/.test(args[0]!)) {
      const flag = args.shift()!;
      if (flag.includes('n')) newline = false;
      if (flag.includes('e')) escapes = true;
    }
    const text = args.join(' ');
    io.out(`${escapes ? echoEscapes(text) : text}${newline ? '\n' : ''}`);
    return 0;
  },
  printenv: (args, sh, io) => {
    const env = exportedEnv(sh);
    if (args.length === 0) {
      for (const [k, v] of env) io.out(`${k}=${v}\n`);
      return 0;
    }
    let code = 0;
    for (const name of args) {
      const hit = env.find(([k]) => k === name);
      if (hit) io.out(`${hit[1]}\n`);
      else code = 1;
    }
    return code;
  },
  env: (args, sh, io) => {
    if (args.length > 0) {
      io.err(`env: '${args[0]}': the sandbox's env prints the environment and takes no arguments\n`);
      return 125;
    }
    for (const [k, v] of exportedEnv(sh)) io.out(`${k}=${v}\n`);
    return 0;
  },
  cat: async (args, sh, io) => {
    const files = args.length ? args : ['-'];
    let code = 0;
    for (const f of files) {
      if (f === '-') {
        for (;;) {
          const chunk = await sh.proc.stdin.read(sh.proc.signal());
          if (chunk === null) break;
          io.out(chunk);
        }
      } else if (FILES[f]) io.out(FILES[f]!(sh));
      else {
        io.err(`cat: can't open '${f}': No such file or directory\n`);
        code = 1;
      }
    }
    return code;
  },
  sleep: async (args, sh, io) => {
    const seconds = Number(args[0]);
    if (args.length !== 1 || !Number.isFinite(seconds) || seconds < 0) {
      io.err(`sleep: invalid number '${args[0] ?? ''}'\n`);
      return 1;
    }
    await sleepFor(seconds * 1000, sh.proc.signal());
    return 0;
  },
  stty: (args, sh, io) => {
    const size = sh.proc.terminal?.();
    if (!sh.proc.terminal) {
      io.err('stty: standard input: Not a tty\n');
      return 1;
    }
    if (args[0] === 'size') io.out(`${size?.rows ?? 0} ${size?.cols ?? 0}\n`);
    return 0;
  },
  exit: (args, sh, io) => {
    if (args.length && !/^-?\d+$/.test(args[0]!)) {
      io.err(`sh: exit: Illegal number: ${args[0]}\n`);
      throw new ExitShell(2);
    }
    throw new ExitShell(args.length ? ((Number(args[0]) % 256) + 256) % 256 : sh.status);
  },
  sh: (args, sh, io) => runShell(args, sh.proc, io, exportedEnv(sh)),
  bash: (args, sh, io) => runShell(args, sh.proc, io, exportedEnv(sh)),
};

/** The names exec finds in a sandbox container. */
export const SANDBOX_COMMANDS = Object.keys(BUILTINS).sort();

function exportedEnv(sh: Shell): Array<[string, string]> {
  return [...sh.vars.entries()];
}

// ───────────────────────────── the shell language ─────────────────────────────

type Part = { text: string; quoted: boolean } | { variable: string; quoted: boolean };
type Token = { kind: 'word'; parts: Part[] } | { kind: 'op'; op: ';' | '&&' | '||' | '|' | '&' } | { kind: 'redirect'; fd: number; dup?: number; target?: Part[] };

class SyntaxError_ extends Error {}

function lex(script: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let parts: Part[] | undefined;
  const addText = (text: string, quoted: boolean): void => {
    parts ??= [];
    const last = parts[parts.length - 1];
    if (last && 'text' in last && last.quoted === quoted) last.text += text;
    else parts.push({ text, quoted });
  };
  const flush = (): void => {
    if (parts) tokens.push({ kind: 'word', parts });
    parts = undefined;
  };
  const variable = (quoted: boolean): void => {
    // at "$"
    const rest = script.slice(i + 1);
    let m: RegExpExecArray | null;
    if ((m = /^\{([A-Za-z_][A-Za-z0-9_]*|\?)\}/.exec(rest)) || (m = /^([A-Za-z_][A-Za-z0-9_]*|\?|\$|#|[0-9])/.exec(rest))) {
      (parts ??= []).push({ variable: m[1]!, quoted });
      i += 1 + m[0].length;
    } else {
      addText('$', quoted);
      i++;
    }
  };
  while (i < script.length) {
    const c = script[i]!;
    if (c === ' ' || c === '\t') {
      flush();
      i++;
    } else if (c === '\n' || c === ';') {
      flush();
      tokens.push({ kind: 'op', op: ';' });
      i++;
    } else if (c === '#' && !parts) {
      while (i < script.length && script[i] !== '\n') i++;
    } else if (c === '&' || c === '|') {
      flush();
      if (script[i + 1] === c) {
        tokens.push({ kind: 'op', op: c === '&' ? '&&' : '||' });
        i += 2;
      } else {
        tokens.push({ kind: 'op', op: c });
        i++;
      }
    } else if (c === '>' || ((c === '1' || c === '2') && script[i + 1] === '>' && !parts)) {
      flush();
      const fd = c === '>' ? 1 : Number(c);
      i += c === '>' ? 1 : 2;
      if (script[i] === '>') i++; // >> appends; the sandbox has no files to append to
      if (script[i] === '&' && /[0-9]/.test(script[i + 1] ?? '')) {
        tokens.push({ kind: 'redirect', fd, dup: Number(script[i + 1]) });
        i += 2;
      } else tokens.push({ kind: 'redirect', fd });
    } else if (c === '<') {
      throw new SyntaxError_('input redirection is not simulated in the sandbox');
    } else if (c === "'") {
      const end = script.indexOf("'", i + 1);
      if (end === -1) throw new SyntaxError_('unterminated quoted string');
      addText(script.slice(i + 1, end), true);
      i = end + 1;
    } else if (c === '"') {
      i++;
      addText('', true);
      for (;;) {
        if (i >= script.length) throw new SyntaxError_('unterminated quoted string');
        const d = script[i]!;
        if (d === '"') {
          i++;
          break;
        }
        if (d === '\\' && /["\\$`\n]/.test(script[i + 1] ?? '')) {
          if (script[i + 1] !== '\n') addText(script[i + 1]!, true);
          i += 2;
        } else if (d === '$') variable(true);
        else {
          addText(d, true);
          i++;
        }
      }
    } else if (c === '\\') {
      if (script[i + 1] === '\n') i += 2;
      else {
        addText(script[i + 1] ?? '', true);
        i += 2;
      }
    } else if (c === '$') variable(false);
    else {
      addText(c, false);
      i++;
    }
  }
  flush();
  return tokens;
}

interface SimpleCommand {
  words: Part[][];
  redirects: Array<{ fd: number; dup?: number; target?: Part[] }>;
}
type Command = { cmd: SimpleCommand; next?: '&&' | '||' | ';' };

function parse(tokens: Token[]): Command[] {
  const out: Command[] = [];
  let cur: SimpleCommand = { words: [], redirects: [] };
  const end = (next: Command['next']): void => {
    if (cur.words.length === 0 && cur.redirects.length === 0) {
      if (next === '&&' || next === '||') throw new SyntaxError_(`unexpected "${next}"`);
      return;
    }
    out.push({ cmd: cur, next });
    cur = { words: [], redirects: [] };
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind === 'word') cur.words.push(t.parts);
    else if (t.kind === 'redirect') {
      if (t.dup !== undefined) cur.redirects.push({ fd: t.fd, dup: t.dup });
      else {
        const target = tokens[i + 1];
        if (target?.kind !== 'word') throw new SyntaxError_('missing redirection target');
        cur.redirects.push({ fd: t.fd, target: target.parts });
        i++;
      }
    } else if (t.op === '|') throw new SyntaxError_('pipes are not simulated in the sandbox');
    else if (t.op === '&') throw new SyntaxError_('background jobs are not simulated in the sandbox');
    else end(t.op);
  }
  end(undefined);
  if (out.length && (out[out.length - 1]!.next === '&&' || out[out.length - 1]!.next === '||')) throw new SyntaxError_('unexpected end of script');
  return out;
}

function expand(parts: Part[], sh: Shell): { text: string; vanished: boolean } {
  let text = '';
  let onlyUnquotedVars = true;
  for (const p of parts) {
    if ('text' in p) {
      text += p.text;
      onlyUnquotedVars = false;
    } else {
      if (p.quoted) onlyUnquotedVars = false;
      const v = p.variable;
      text += v === '?' ? String(sh.status) : v === '$' ? '1' : v === '#' ? '0' : v === '0' ? 'sh' : /^[1-9]$/.test(v) ? '' : (sh.vars.get(v) ?? '');
    }
  }
  return { text, vanished: onlyUnquotedVars && text === '' };
}

async function runSimple(c: SimpleCommand, sh: Shell, io: ProcessIo): Promise<number> {
  const words = c.words.map((w) => expand(w, sh)).filter((w) => !w.vanished).map((w) => w.text);
  const assignments: Array<[string, string]> = [];
  while (words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) {
    const w = words.shift()!;
    assignments.push([w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]);
  }
  let out = io.out;
  let err = io.err;
  const discard = (): void => undefined;
  for (const r of c.redirects) {
    const to = r.dup !== undefined ? (r.dup === 1 ? io.out : r.dup === 2 ? io.err : undefined) : expand(r.target!, sh).text === '/dev/null' ? discard : undefined;
    if (!to) {
      io.err(`sh: can't create ${r.target ? expand(r.target, sh).text : `&${r.dup}`}: the sandbox's containers have no writable files\n`);
      return 1;
    }
    if (r.fd === 1) out = to;
    else if (r.fd === 2) err = to;
  }
  const redirected: ProcessIo = { out: (t) => out(t), err: (t) => err(t) };
  if (words.length === 0) {
    for (const [k, v] of assignments) sh.vars.set(k, v);
    return 0;
  }
  const name = commandName(words[0]!);
  const builtin = Object.hasOwn(BUILTINS, name) ? BUILTINS[name]! : undefined;
  if (!builtin) {
    redirected.err(`sh: ${words[0]}: not found\n`);
    return 127;
  }
  if (assignments.length === 0) return builtin(words.slice(1), sh, redirected);
  const saved = new Map(sh.vars);
  for (const [k, v] of assignments) sh.vars.set(k, v);
  try {
    return await builtin(words.slice(1), sh, redirected);
  } finally {
    sh.vars = saved;
  }
}

async function runScript(script: string, sh: Shell, io: ProcessIo): Promise<void> {
  let commands: Command[];
  try {
    commands = parse(lex(script));
  } catch (err) {
    if (!(err instanceof SyntaxError_)) throw err;
    io.err(`sh: syntax error: ${err.message}\n`);
    sh.status = 2;
    return;
  }
  let skip = false;
  for (const { cmd, next } of commands) {
    if (!skip) {
      try {
        sh.status = await runSimple(cmd, sh, io);
      } catch (err) {
        if (!(err instanceof Interrupted)) throw err;
        sh.status = 130;
        if (sh.proc.signal().aborted) throw err;
      }
    }
    skip = (next === '&&' && sh.status !== 0) || (next === '||' && sh.status === 0);
  }
}

/** `sh [-c SCRIPT [NAME [ARGS...]]]`: the script, or stdin line by line (a prompt on a TTY). */
async function runShell(args: string[], proc: ContainerProcess, io: ProcessIo, env: Array<[string, string]>): Promise<number> {
  const sh: Shell = { proc, vars: new Map(env), status: 0 };
  const flags = args.filter((a) => /^-[a-z]+$/.test(a));
  try {
    if (args[0] === '-c' || flags.some((f) => f.includes('c'))) {
      const at = args.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a));
      const script = args[at + 1];
      if (script === undefined) {
        io.err('sh: -c requires an argument\n');
        return 2;
      }
      await runScript(script, sh, io);
      return sh.status;
    }
    const interactive = proc.terminal !== undefined;
    for (;;) {
      if (interactive) io.out('/ # ');
      let line: string | null;
      try {
        line = await proc.stdin.readLine(proc.signal());
      } catch (err) {
        if (!(err instanceof Interrupted) || !interactive || proc.signal().aborted) throw err;
        continue; // Ctrl-C at the prompt: a fresh line
      }
      if (line === null) {
        if (interactive) io.out('\n');
        return sh.status;
      }
      await runScript(line, sh, io);
    }
  } catch (err) {
    if (err instanceof ExitShell) return err.code;
    throw err;
  }
}

/**
 * Runs `argv` as the container's process; resolves with its exit code. Throws ExecNotFound when the
 * container has no such command, Interrupted when the client went away.
 */
export async function runInContainer(argv: string[], proc: ContainerProcess): Promise<number> {
  const name = commandName(argv[0] ?? '');
  const builtin = Object.hasOwn(BUILTINS, name) ? BUILTINS[name]! : undefined;
  if (!builtin) throw new ExecNotFound(argv[0] ?? '');
  const sh: Shell = { proc, vars: new Map(proc.env), status: 0 };
  try {
    return await builtin(argv.slice(1), sh, proc.io);
  } catch (err) {
    if (err instanceof ExitShell) return err.code;
    throw err;
  }
}
