// The CLI as users meet it first: help, usage errors, completion, and kubectl's plugin mechanism.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pluginDir } from '../helpers/cli';

// The folder kubectl finds the plugin in (bin/, or one linking to KUBECTL_KRUISE_BIN).
const bin = pluginDir();
const cleanEnv = { PATH: `${bin}:${process.env.PATH}`, HOME: mkdtempSync(join(tmpdir(), 'kk-home-')), CI: 'true' };

function run(cmd: string, args: string[]) {
  const r = spawnSync(cmd, args, { env: cleanEnv, encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('--help lists the subcommands, global flags and exit codes, and exits 0', () => {
  const r = run(join(bin, 'kubectl-kruise'), ['--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^OpenKruise workloads from the command line/);
  assert.match(r.stdout, /\nUsage:\n {2}kubectl kruise \[flags\] \[options\]\n/);
  assert.match(r.stdout, /^Available Commands:\n(?: {2}\S.*\n)*? {2}completion {3,}Print a shell completion script/m);
  assert.match(r.stdout, /--kubeconfig/);
  assert.match(r.stdout, /^ {2}3 {4}timed out/m);
  assert.match(r.stdout, /^ {2}130 {2}interrupted \(Ctrl-C\)/m);
  assert.match(r.stdout, /\nUse "kubectl kruise <command> --help" for more information about a given command\.\n$/);
  assert.equal(r.stderr, '');
});

test('--version prints the plugin version as `version --client` does, exit 0, nothing sent', () => {
  const r = run(join(bin, 'kubectl-kruise'), ['--version']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Plugin Version: v\d+\.\d+\.\d+\S*\n$/);
  assert.equal(r.stderr, '');
});

test('usage errors point at the help of the command they are about; a --flag=value typo gets its suggestion; a lone name is an unknown type, as in kubectl', () => {
  const k = join(bin, 'kubectl-kruise');
  const typo = run(k, ['rollout', 'status', 'deployment/web', '--timout=5s']);
  assert.equal(typo.code, 2);
  assert.equal(typo.stderr, "error: unknown option '--timout'\n(Did you mean --timeout?)\nSee 'kubectl kruise rollout status --help' for usage.\n");
  const sub = run(k, ['rollout', 'statu', 'deployment/web']);
  assert.equal(sub.code, 2);
  assert.match(sub.stderr, /\nSee 'kubectl kruise rollout --help' for usage\.\n$/);
  const set = run(k, ['set', 'image', '--frob', 'cloneset/web', 'a=b:1']);
  assert.match(set.stderr, /\nSee 'kubectl kruise set image --help' for usage\.\n$/);
  const top = run(k, ['frobnicate']);
  assert.match(top.stderr, /\nSee 'kubectl kruise --help' for usage\.\n$/);
  // "web" is a name given without its type: not a hint about --all, which rollout status refuses.
  for (const args of [['rollout', 'status', 'web'], ['set', 'image', 'web', 'app=nginx:1.27'], ['restart', 'web']]) {
    const lone = run(k, [...args, '-s', 'http://127.0.0.1:1']);
    assert.equal(lone.code, 2, args.join(' '));
    assert.equal(lone.stderr, 'error: the server doesn\'t have a resource type "web"\n', args.join(' '));
  }
});

test('an unknown subcommand or flag is a usage error: one error line, exit 2', () => {
  const r = run(join(bin, 'kubectl-kruise'), ['frobnicate']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^error: unknown command 'frobnicate'/);
  assert.doesNotMatch(r.stderr, /at .*\.js:\d+/);
  const f = run(join(bin, 'kubectl-kruise'), ['completion', 'bash', '--frob']);
  assert.equal(f.code, 2);
  assert.match(f.stderr, /^error: unknown option '--frob'/);
});

test('a group lists all its subcommands, runs one with only its own flags, and suggests on a typo', () => {
  const k = join(bin, 'kubectl-kruise');
  const group = run(k, ['rollout', '--help']);
  assert.equal(group.code, 0);
  for (const sub of ['status', 'undo', 'history', 'pause', 'resume', 'restart']) assert.match(group.stdout, new RegExp(`^  ${sub} `, 'm'));
  const pause = run(k, ['rollout', 'pause', '--help']);
  assert.equal(pause.code, 0);
  assert.match(pause.stdout, /\nUsage:\n {2}kubectl kruise rollout pause TYPE\/NAME\.\.\. \[flags\] \[options\]\n/);
  const typo = run(k, ['rollout', 'pase', 'cloneset/web']);
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /^error: unknown command 'pase'\n\(Did you mean pause\?\)/);
  const setTypo = run(k, ['set', 'imag', 'cloneset/web', 'app=nginx:1.27']);
  assert.equal(setTypo.code, 2);
  assert.match(setTypo.stderr, /Did you mean image\?/);
  // A subcommand's own flags are still parsed when it is the only one registered.
  const flag = run(k, ['set', 'image', '--frob', 'cloneset/web', 'app=nginx:1.27']);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /^error: unknown option '--frob'/);
});

/** The names of a help page's "Available Commands:" section. */
function commandNames(help: string): string[] {
  const section = /^Available Commands:\n([\s\S]*?)(?:\n\n|(?![\s\S]))/m.exec(help)?.[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((m) => m[1]!);
}

/** kubectl's section headers (templates.go: Examples, Available Commands, Options, Usage), in the order a help page has them. */
function kubectlSections(help: string): string[] {
  return [...help.matchAll(/^(Examples|Available Commands|Options|Usage):$/gm)].map((m) => m[1]!);
}

const KUBECTL_ORDER = ['Examples', 'Available Commands', 'Options', 'Usage'];
const OPTIONS_TIP = 'Use "kubectl kruise options" for a list of global command-line options (applies to all commands).\n';

/** Asserts kubectl's layout: description first, kubectl's sections in its order, Examples as `# comment` then commands. */
function assertKubectlShape(help: string, what: string): void {
  assert.match(help, /^[A-Z`]/, `${what}: starts with its description`);
  const sections = kubectlSections(help);
  assert.deepEqual(sections, KUBECTL_ORDER.filter((s) => sections.includes(s)), `${what}: section order`);
  assert.ok(sections.includes('Usage'), `${what}: a Usage section`);
  const examples = /^Examples:\n([\s\S]*?)\n\n(?:Available Commands|Options|Usage):$/m.exec(help)?.[1];
  if (examples !== undefined) {
    assert.match(examples, /^ {2}# \S/, `${what}: examples open with a comment`);
    assert.deepEqual(examples.split('\n').filter((l) => l !== '' && !l.startsWith('  ')), [], `${what}: examples indented`);
  }
  assert.deepEqual(help.split('\n').filter((l) => /\s$/.test(l)), [], `${what}: trailing blanks`);
}

test('every group and every subcommand answers --help with its own usage, laid out like the rest', () => {
  // Each subcommand is registered alone when named, so each needs its own check: a subcommand
  // whose registration the filter skipped would answer with its group's help instead.
  const k = join(bin, 'kubectl-kruise');
  const groups = commandNames(run(k, ['--help']).stdout);
  assert.ok(groups.length >= 10 && groups.includes('rollout') && groups.includes('set'), groups.join(' '));
  let subcommands = 0;
  for (const group of groups) {
    const g = run(k, [group, '--help']);
    assert.equal(g.code, 0, `${group} --help: ${g.stderr}`);
    assert.match(g.stdout, new RegExp(`\nUsage:\n {2}kubectl kruise ${group} `), group);
    assertKubectlShape(g.stdout, group);
    const subs = commandNames(g.stdout);
    // A group closes with where to go next; a command that runs, with where the global flags are.
    if (subs.length) assert.ok(g.stdout.endsWith(`\nUse "kubectl kruise ${group} <command> --help" for more information about a given command.\n`), group);
    else assert.ok(g.stdout.endsWith(`\n\n${OPTIONS_TIP}`), group);
    for (const sub of subs) {
      subcommands++;
      const s = run(k, [group, sub, '--help']);
      assert.equal(s.code, 0, `${group} ${sub} --help: ${s.stderr}`);
      assert.match(s.stdout, new RegExp(`\nUsage:\n {2}kubectl kruise ${group} ${sub} .*\\[options\\]\n\n`), `${group} ${sub}`);
      assertKubectlShape(s.stdout, `${group} ${sub}`);
      assert.match(s.stdout, /^Examples:\n {2}# /m, `${group} ${sub}: examples`);
      assert.ok(s.stdout.endsWith(`\n\n${OPTIONS_TIP}`), `${group} ${sub}: closing line`);
    }
  }
  assert.ok(subcommands >= 10, `subcommands checked: ${subcommands}`);
});

test('help reads as kubectl\'s: `rollout status --help` has kubectl\'s sections in kubectl\'s order, and `options` lists the global flags', () => {
  const ours = run(join(bin, 'kubectl-kruise'), ['rollout', 'status', '--help']);
  const theirs = run('/usr/bin/kubectl', ['rollout', 'status', '--help']);
  assert.equal(ours.code, 0, ours.stderr);
  assert.equal(theirs.code, 0, theirs.stderr);
  // The headers kubectl prints, in its order; ours, of those, in ours.
  const headers = (help: string) => [...help.matchAll(/^([A-Z][A-Za-z ]*):$/gm)].map((m) => m[1]!);
  const kubectlHeaders = headers(theirs.stdout);
  assert.deepEqual(kubectlHeaders, ['Examples', 'Options', 'Usage']);
  assert.deepEqual(headers(ours.stdout).filter((h) => kubectlHeaders.includes(h)), kubectlHeaders);
  // Both open with the description and close with the pointer to the global options.
  for (const help of [ours.stdout, theirs.stdout]) {
    assert.match(help, /^[A-Z][^\n]*\n\n/);
    assert.match(help, /\nUsage:\n {2}kubectl (?:kruise )?rollout status .*\[flags\] \[options\]\n\nUse "kubectl (?:kruise )?options" for a list of global command-line options \(applies to all commands\)\.\n$/);
  }
  // A flag as pflag prints it: the default after `=`, the description on the next line after a tab.
  assert.match(ours.stdout, /^ {4}-w, --watch=true:\n\tWatch until done/m);
  assert.match(theirs.stdout, /^ {4}-w, --watch=true:\n\t\S/m);
  assert.match(ours.stdout, /^ {4}--timeout='':\n\tGive up after this long \(exit 3\); not given: no limit; 0: check once/m);
  assert.match(ours.stdout, /^ {4}-f, --filename=\[\]:\n\t/m);
  assert.doesNotMatch(ours.stdout, /--help/);
  // Our own sections (states, exit codes, JSON fields) sit where kubectl has its long description: before Examples.
  assert.ok(ours.stdout.indexOf('Exit codes: 0 done') < ours.stdout.indexOf('\nExamples:\n'));

  const options = run(join(bin, 'kubectl-kruise'), ['options']);
  assert.equal(options.code, 0, options.stderr);
  assert.match(options.stdout, /^The following options can be passed to any command:\n\n/);
  assert.match(options.stdout, /^ {4}-n, --namespace='':\n\t\S/m);
  assert.match(options.stdout, /^ {4}--as-group=\[\]:\n\t\S/m);
  assert.match(options.stdout, /^ {4}--insecure-skip-tls-verify=false:\n\t\S/m);
  assert.doesNotMatch(run(join(bin, 'kubectl-kruise'), ['--help']).stdout, /^ {2}options\b/m, 'hidden from the list, as kubectl\'s');
});

test('through kubectl: `kubectl kruise --help` works and `kubectl plugin list` has no warnings', () => {
  const help = run('/usr/bin/kubectl', ['kruise', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /\nUsage:\n {2}kubectl kruise /);
  const list = run('/usr/bin/kubectl', ['plugin', 'list']);
  assert.equal(list.code, 0);
  assert.match(list.stdout, /bin\/kubectl-kruise$/m);
  assert.doesNotMatch(list.stdout + list.stderr, /warning/i);
});

test('completion: scripts for each shell, candidates for subcommands, and kubectl plugin completion', () => {
  for (const shell of ['bash', 'zsh', 'fish']) {
    const r = run(join(bin, 'kubectl-kruise'), ['completion', shell]);
    assert.equal(r.code, 0, shell);
    assert.match(r.stdout, /kubectl-kruise __complete/);
  }
  assert.equal(run(join(bin, 'kubectl-kruise'), ['completion', 'tcsh']).code, 2);
  const words = run(join(bin, 'kubectl-kruise'), ['__complete', 'completion', '']);
  assert.deepEqual(words.stdout.trim().split('\n'), ['bash', 'zsh', 'fish', ':4']);
  const flags = run(join(bin, 'kubectl-kruise'), ['__complete', '--namesp']);
  assert.match(flags.stdout, /^--namespace$/m);
  const viaKubectl = run('/usr/bin/kubectl', ['__complete', 'kruise', 'compl']);
  assert.match(viaKubectl.stdout, /^completion$/m);
});
