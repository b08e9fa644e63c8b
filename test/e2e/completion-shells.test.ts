// The generated completions/ scripts loaded in real bash, zsh and fish, and `kubectl kruise <TAB>`
// through kubectl's own bash completion, asked what <TAB> offers for a command, a kind, an object
// name (in the namespace given by -n), a namespace after -n and a container after -c, against a
// sandbox holding a CloneSet `web` in `default` (container app) and in `team-a` (init container
// migrate, containers app and log-shipper), a CloneSet `worker` and a pod `debug` only in team-a.
// - bash: the script is sourced, COMP_WORDS/COMP_CWORD/COMP_LINE/COMP_POINT are set as bash sets them
//   (words split at = and :), the completion function runs and COMPREPLY is read; `compopt` is
//   recorded (outside a real completion the builtin refuses to run);
// - zsh: an interactive zsh on a pseudo-terminal (zsh/zpty, completion-shells/zsh-capture.zsh) with
//   compinit finding completions/ on $fpath (or sourcing the script), TAB pressed, compadd's matches
//   recorded;
// - fish: `complete -C LINE` after sourcing the script.
// The CLI on PATH is the one under test (CLI_BIN: KUBECTL_KRUISE_BIN, else bin/kubectl-kruise), beside a copy of
// bin/kubectl_complete-kruise, so every path ends in it. Skipped when a shell is missing
// (scripts/test-deps.sh installs zsh, fish and bash-completion).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLI_BIN, KUBECTL_BIN, REPO_ROOT, kubectl, testEnv } from '../helpers/cli';
import { startSandbox, type Sandbox } from '../helpers/sandbox';

const COMPLETIONS = join(REPO_ROOT, 'completions');
const SCRIPTS = { bash: join(COMPLETIONS, 'kubectl-kruise.bash'), zsh: join(COMPLETIONS, '_kubectl-kruise'), fish: join(COMPLETIONS, 'kubectl-kruise.fish') };
const BASH_COMPLETION = '/usr/share/bash-completion/bash_completion';
const ZSH_CAPTURE = join(REPO_ROOT, 'test', 'e2e', 'completion-shells', 'zsh-capture.zsh');

const has = (cmd: string): boolean => spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0;
const missing = [...['bash', 'zsh', 'fish'].filter((s) => !has(s)), ...(existsSync(BASH_COMPLETION) ? [] : ['bash-completion'])];
const skip = missing.length ? `missing ${missing.join(', ')} (scripts/test-deps.sh installs them: apt-get install -y zsh fish bash-completion)` : false;

interface Offer {
  /** What the shell offers, sorted (fish sorts, the others keep the CLI's order). */
  words: string[];
  /** The shell was told to add no space after the candidate (bash compopt, zsh compadd -S ''). */
  noSpace: boolean;
  /** bash: `compopt -o default`, the shell's own file-name completion. */
  files: boolean;
}

/** COMP_WORDS as bash builds it: split at blanks, then at the word breaks = and : (kept as words). */
function bashWords(line: string): string[] {
  const words: string[] = [];
  for (const token of line.split(/[ \t]+/)) words.push(...(token === '' ? [''] : token.match(/[=:]+|[^=:]+/g)!));
  return words;
}

describe('completion scripts in real shells', { skip }, () => {
  let sb: Sandbox;
  let work: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    for (const file of Object.values(SCRIPTS)) assert.ok(existsSync(file), `${file} is missing: run \`npm run build\` first`);
    sb = await startSandbox();
    const apply = await kubectl(['apply', '-f', join(REPO_ROOT, 'test', 'fixtures', 'completion', 'objects.yaml')], sb.kubeconfig);
    assert.equal(apply.code, 0, apply.stderr);
    work = mkdtempSync(join(tmpdir(), 'kk-completion-shells-'));
    const bin = join(work, 'bin');
    mkdirSync(bin);
    symlinkSync(CLI_BIN, join(bin, 'kubectl-kruise'));
    // A copy, not a link: it runs the kubectl-kruise beside it, the one under test.
    copyFileSync(join(REPO_ROOT, 'bin', 'kubectl_complete-kruise'), join(bin, 'kubectl_complete-kruise'));
    env = testEnv(sb.kubeconfig, { PATH: [bin, dirname(process.execPath), dirname(KUBECTL_BIN), '/usr/bin', '/bin'].join(':') });
  });
  after(async () => {
    await sb?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const run = (cmd: string, args: string[]): string => {
    const r = spawnSync(cmd, args, { env, cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, `${cmd} exited ${r.status} ${r.signal ?? ''}: ${r.stderr}`);
    return r.stdout;
  };

  /** Calls `fn` (the script's completion function) as bash calls it for <TAB> at the end of `line`. */
  const bashOffer = (line: string, setup: string, fn: string): Offer => {
    const script = `${setup}
__kk_opts=()
compopt() { __kk_opts+=("$*"); }
COMP_WORDS=("$@"); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 )); COMP_LINE=$KK_LINE; COMP_POINT=\${#COMP_LINE}; COMPREPLY=()
${fn} "\${COMP_WORDS[0]}" "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
for w in "\${COMPREPLY[@]}"; do printf 'reply:%s\\n' "$w"; done
for o in "\${__kk_opts[@]}"; do printf 'compopt:%s\\n' "$o"; done`;
    env.KK_LINE = line;
    const out = run('bash', ['--norc', '--noprofile', '-c', script, 'bash', ...bashWords(line)]);
    const lines = out.split('\n');
    const opts = lines.filter((l) => l.startsWith('compopt:'));
    return {
      words: lines.filter((l) => l.startsWith('reply:')).map((l) => l.slice(6)).sort(),
      noSpace: opts.includes('compopt:-o nospace'),
      files: opts.includes('compopt:-o default'),
    };
  };

  const shells: Record<'bash' | 'zsh' | 'fish', (line: string) => Offer> = {
    bash: (line) => bashOffer(line, `source ${SCRIPTS.bash}`, '__kubectl_kruise_complete'),
    zsh: (line) => zshOffer(line, `fpath=(${COMPLETIONS} $fpath)\nautoload -Uz compinit && compinit -u -D`),
    fish: (line) => {
      const out = run('fish', ['--no-config', '-c', 'source $argv[1]; complete -C $argv[2]', SCRIPTS.fish, line]);
      return { words: out.split('\n').filter(Boolean).map((l) => l.split('\t')[0]!).sort(), noSpace: false, files: false };
    },
  };

  const zshOffer = (line: string, setup: string): Offer => {
    const file = join(work, `zsh-setup-${Math.random().toString(36).slice(2)}.zsh`);
    writeFileSync(file, `${setup}\n`);
    const out = run('zsh', ['-f', ZSH_CAPTURE, file, line]);
    assert.match(out, /__KK_DONE__/, `zsh did not finish completing "${line}": ${out}`);
    return { words: [...new Set([...out.matchAll(/__KK_MATCH__:([^\r\n]*)/g)].map((m) => m[1]!))].sort(), noSpace: out.includes('__KK_NOSPACE__'), files: false };
  };

  // What <TAB> at the end of each line offers; `--namespace=` differs by shell: bash completes the text
  // after the = (readline's word), zsh and fish the whole word.
  const cases: Array<{ what: string; line: string; words: string[] | Record<string, string[]>; noSpace?: boolean }> = [
    { what: 'a command', line: 'kubectl-kruise rollout st', words: ['status'] },
    { what: 'a kind', line: 'kubectl-kruise rollout status clo', words: ['cloneset/'], noSpace: true },
    { what: 'object names (context namespace)', line: 'kubectl-kruise rollout status cloneset/', words: ['cloneset/web'] },
    { what: 'object names after -n NS', line: 'kubectl-kruise -n team-a rollout status cloneset/', words: ['cloneset/web', 'cloneset/worker'] },
    { what: 'object names after a later --namespace NS', line: 'kubectl-kruise rollout status --namespace team-a cloneset/w', words: ['cloneset/web', 'cloneset/worker'] },
    { what: 'a namespace after -n', line: 'kubectl-kruise rollout status -n te', words: ['team-a'] },
    { what: 'namespaces after -n', line: 'kubectl-kruise -n ', words: ['default', 'kube-node-lease', 'kube-public', 'kube-system', 'team-a'] },
    {
      what: 'a namespace after --namespace=',
      line: 'kubectl-kruise rollout status --namespace=te',
      words: { bash: ['team-a'], zsh: ['--namespace=team-a'], fish: ['--namespace=team-a'] },
    },
    { what: 'containers after -c (context namespace)', line: 'kubectl-kruise restart cloneset/web -c ', words: ['app'] },
    { what: 'containers after -c in team-a', line: 'kubectl-kruise -n team-a restart cloneset/web -c ', words: ['app', 'log-shipper'] },
    { what: 'the rest of a -c list', line: 'kubectl-kruise -n team-a restart cloneset/web -c app,', words: ['app,log-shipper'] },
    { what: "a pod's containers after -c", line: 'kubectl-kruise -n team-a restart pod/debug -c ', words: ['probe', 'shell'] },
    { what: 'CONTAINER= after set image TYPE/NAME', line: 'kubectl-kruise -n team-a set image cloneset/web ', words: ['app=', 'log-shipper=', 'migrate='], noSpace: true },
  ];

  for (const [shell, offer] of Object.entries(shells)) {
    it(`${shell}: command, kind, object names in the -n namespace, namespaces, containers`, () => {
      for (const c of cases) {
        const got = offer(c.line);
        const want = Array.isArray(c.words) ? c.words : c.words[shell]!;
        assert.deepEqual(got.words, [...want].sort(), `${shell}, ${c.what}: "${c.line}<TAB>"`);
        if (shell !== 'fish') assert.equal(got.noSpace, c.noSpace ?? false, `${shell}, ${c.what}: no space after the candidate`);
      }
    });
  }

  it('completions/ holds what the CLI under test prints for `completion <shell>`', () => {
    for (const [shell, file] of Object.entries(SCRIPTS)) {
      assert.equal(readFileSync(file, 'utf8'), run('kubectl-kruise', ['completion', shell]), `${file} is stale: run \`npm run build\``);
    }
  });

  it('each shell falls back to file names for a flag that takes a file, and offers nothing for other values', () => {
    const bash = shells.bash('kubectl-kruise sandbox --crds ');
    assert.deepEqual(bash.words, []);
    assert.ok(bash.files, 'bash: compopt -o default (file names)');
    assert.equal(shells.bash('kubectl-kruise rollout status cloneset/web --timeout ').files, false);
    const fish = shells.fish('kubectl-kruise sandbox --crds test/fix');
    assert.deepEqual(fish.words, ['test/fixtures/']);
    assert.deepEqual(shells.fish('kubectl-kruise rollout status cloneset/web --timeout ').words, []);
    // zsh's _files offers the path's components.
    assert.ok(shells.zsh('kubectl-kruise sandbox --crds test/fix').words.includes('fixtures'));
    assert.deepEqual(shells.zsh('kubectl-kruise rollout status cloneset/web --timeout ').words, []);
  });

  it('installed where the README puts them: bash-completion loads it on demand, fish autoloads it', () => {
    const home = join(work, 'home');
    const bashDir = join(home, '.local', 'share', 'bash-completion', 'completions');
    const fishDir = join(home, '.config', 'fish', 'completions');
    mkdirSync(bashDir, { recursive: true });
    mkdirSync(fishDir, { recursive: true });
    copyFileSync(SCRIPTS.bash, join(bashDir, 'kubectl-kruise'));
    copyFileSync(SCRIPTS.fish, join(fishDir, 'kubectl-kruise.fish'));
    const saved = { ...env };
    env.HOME = home;
    for (const k of ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'BASH_COMPLETION_USER_DIR']) delete env[k];
    try {
      // bash-completion's loader finds the file by the command's name, as it does on <TAB>.
      const loaded = `source ${BASH_COMPLETION}\n__load_completion kubectl-kruise`;
      assert.deepEqual(bashOffer('kubectl-kruise rollout st', loaded, '__kubectl_kruise_complete').words, ['status']);
      assert.deepEqual(bashOffer('kubectl-kruise -n team-a rollout status cloneset/', loaded, '__kubectl_kruise_complete').words, ['cloneset/web', 'cloneset/worker']);
      // fish with its configuration (no --no-config, no source): ~/.config/fish/completions is autoloaded.
      const fish = (line: string): string[] => run('fish', ['-c', 'complete -C $argv[1]', line]).split('\n').filter(Boolean).map((l) => l.split('\t')[0]!).sort();
      assert.deepEqual(fish('kubectl-kruise rollout st'), ['status']);
      assert.deepEqual(fish('kubectl-kruise -n team-a restart cloneset/web -c '), ['app', 'log-shipper']);
    } finally {
      for (const k of Object.keys(env)) delete env[k];
      Object.assign(env, saved);
    }
  });

  it('zsh: the script also works sourced after compinit (source <(kubectl-kruise completion zsh))', () => {
    const setup = 'autoload -Uz compinit && compinit -u -D\nsource <(kubectl-kruise completion zsh)';
    assert.deepEqual(zshOffer('kubectl-kruise rollout st', setup).words, ['status']);
    assert.deepEqual(zshOffer('kubectl-kruise -n team-a restart cloneset/web -c ', setup).words, ['app', 'log-shipper']);
  });

  it('`kubectl kruise <TAB>` through kubectl\'s own bash completion and kubectl_complete-kruise', () => {
    const setup = `source ${BASH_COMPLETION}\nsource <(kubectl completion bash)`;
    const offer = (line: string): string[] => bashOffer(line, setup, '__start_kubectl').words;
    const plugins = offer('kubectl kru');
    assert.ok(plugins.includes('kruise'), `kubectl offers the plugin: ${plugins.join(' ')}`);
    assert.deepEqual(offer('kubectl kruise rollout st'), ['status']);
    assert.deepEqual(offer('kubectl kruise rollout status clo'), ['cloneset/']);
    assert.deepEqual(offer('kubectl kruise -n team-a rollout status cloneset/'), ['cloneset/web', 'cloneset/worker']);
    assert.deepEqual(offer('kubectl kruise rollout status -n te'), ['team-a']);
    assert.deepEqual(offer('kubectl kruise -n team-a restart cloneset/web -c '), ['app', 'log-shipper']);
  });
});

describe('kubectl_complete-kruise runs the kubectl-kruise installed beside it', () => {
  const work = mkdtempSync(join(tmpdir(), 'kk-complete-beside-'));
  after(() => rmSync(work, { recursive: true, force: true }));
  const COMPLETER = join(REPO_ROOT, 'bin', 'kubectl_complete-kruise');

  // A different kubectl-kruise first on PATH (an older install, a krew copy): it answers "fake".
  const fake = join(work, 'fake');
  mkdirSync(fake);
  writeFileSync(join(fake, 'kubectl-kruise'), '#!/bin/sh\nprintf "fake\\n:4\\n"\n', { mode: 0o755 });

  /** The package laid out as npm -g does: <prefix>/bin/kubectl_complete-kruise -> ../lib/node_modules/kubectl-kruise/bin/... */
  const prefix = join(work, 'prefix');
  const pkgBin = join(prefix, 'lib', 'node_modules', 'kubectl-kruise', 'bin');
  mkdirSync(pkgBin, { recursive: true });
  mkdirSync(join(prefix, 'bin'));
  symlinkSync(CLI_BIN, join(pkgBin, 'kubectl-kruise'));
  copyFileSync(COMPLETER, join(pkgBin, 'kubectl_complete-kruise'));
  symlinkSync('../lib/node_modules/kubectl-kruise/bin/kubectl_complete-kruise', join(prefix, 'bin', 'kubectl_complete-kruise'));

  const complete = (dirs: string[], command: string): { code: number | null; stdout: string } => {
    const env = testEnv(undefined, { PATH: [...dirs, dirname(process.execPath), '/usr/bin', '/bin'].join(':') });
    const r = spawnSync(command, ['rollout', 'st'], { env, cwd: work, encoding: 'utf8', timeout: 30_000 });
    return { code: r.status, stdout: r.stdout };
  };

  it('through npm\'s relative symlink, with a fake kubectl-kruise first on PATH', () => {
    assert.deepEqual(complete([fake, join(prefix, 'bin')], 'kubectl_complete-kruise'), { code: 0, stdout: 'status\n:4\n' });
  });

  it('through a chain of absolute and relative symlinks (a krew-style link to a link)', () => {
    const links = join(work, 'links');
    mkdirSync(links);
    symlinkSync(join(prefix, 'bin', 'kubectl_complete-kruise'), join(links, 'hop'));
    const onPath = join(work, 'on-path');
    mkdirSync(onPath);
    symlinkSync(join(links, 'hop'), join(onPath, 'kubectl_complete-kruise'));
    assert.deepEqual(complete([fake, onPath], 'kubectl_complete-kruise'), { code: 0, stdout: 'status\n:4\n' });
  });

  it('falls back to PATH only when no kubectl-kruise is beside it', () => {
    const alone = join(work, 'alone');
    mkdirSync(alone);
    copyFileSync(COMPLETER, join(alone, 'kubectl_complete-kruise'));
    assert.deepEqual(complete([alone, pkgBin], 'kubectl_complete-kruise'), { code: 0, stdout: 'status\n:4\n' });
    assert.deepEqual(complete([alone, fake], 'kubectl_complete-kruise'), { code: 0, stdout: 'fake\n:4\n' });
  });
});
