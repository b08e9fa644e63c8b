// kubectl conventions scripts rely on (issue #14 items 9 and 10): durations without a unit are
// refused as kubectl refuses them (Go's time.ParseDuration behind pflag: `time: missing unit in
// duration "5"`; --request-timeout alone takes bare seconds, client-go clientcmd.ParseTimeout),
// before anything is sent; and every command group's help reads the same way.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli';
import { startSandbox, type Sandbox } from '../helpers/sandbox';

let sb: Sandbox;
const cli = (args: string[]) => runCli(args, { kubeconfig: sb.kubeconfig, timeoutMs: 30_000 });

before(async () => {
  sb = await startSandbox({ kruise: 'v1.9', readyDelay: '50ms' });
});

after(async () => {
  await sb?.stop();
});

test('a duration without a unit exits 2 with Go\'s words and sends nothing; a bare 0 is accepted', async () => {
  for (const args of [
    ['rollout', 'status', 'cloneset/web', '--timeout', '5'],
    ['rollout', 'status', 'cloneset/web', '--failure-grace=30'],
    ['restart', 'cloneset/web', '--timeout=5'],
    ['predownload', '--image', 'nginx:1.27', '--timeout', '5'],
  ]) {
    sb.clearAudit();
    const r = await cli(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    const flag = args.find((a) => a.startsWith('--timeout') || a.startsWith('--failure-grace'))!.split('=')[0];
    const value = args.includes('--timeout') ? '5' : args.join(' ').match(/=(\d+)/)![1];
    assert.match(r.stderr, new RegExp(`^error: invalid argument "${value}" for "${flag}" flag: time: missing unit in duration "${value}"\n`), args.join(' '));
    assert.deepEqual(sb.audit(), [], `${args.join(' ')} sent requests`);
  }
  const zero = await cli(['predownload', '--image', 'nginx:1.27', '--timeout', '0', '--dry-run=client']);
  assert.doesNotMatch(zero.stderr, /missing unit/);
  // --request-timeout: bare seconds, like kubectl.
  const rt = await cli(['--request-timeout=5', 'get', 'pps']);
  assert.equal(rt.code, 0, rt.stderr);
});

test('every command group prints the same help shape: no "help [command]", no commander "[options] [command]"', async () => {
  for (const group of ['rollout', 'set', 'create', 'get', 'describe', 'explain']) {
    const r = await runCli([group, '--help'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 0, `${group}: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`\nUsage:\n {2}kubectl[ -]kruise ${group} \\S`), group);
    assert.doesNotMatch(r.stdout, /help \[command\]/, group);
    assert.doesNotMatch(r.stdout, /\[options\] \[command\]/, group);
  }
});

// kubectl's DefaultSubCommandRun (pkg/cmd/util/helpers.go): a group without its subcommand prints its
// help and exits 1 (ErrExit); `kubectl rollout` to stdout (pkg/cmd/rollout/rollout.go: streams.Out),
// `kubectl set` to stderr (pkg/cmd/set/set.go: streams.ErrOut). Before: stderr and exit 0 for all.
test('a group named without its subcommand prints its help and exits 1, on the stream kubectl uses for it', async () => {
  const rollout = await runCli(['rollout'], { kubeconfig: sb.kubeconfig });
  assert.equal(rollout.code, 1, rollout.stderr);
  assert.match(rollout.stdout, /\nAvailable Commands:\n/);
  assert.equal(rollout.stderr, '');
  const set = await runCli(['set'], { kubeconfig: sb.kubeconfig });
  assert.equal(set.code, 1, set.stdout);
  assert.equal(set.stdout, '');
  assert.match(set.stderr, /\nAvailable Commands:\n/);
  // Asked for, help is an answer: stdout, exit 0.
  const asked = await runCli(['rollout', '--help'], { kubeconfig: sb.kubeconfig });
  assert.equal(asked.code, 0);
  assert.match(asked.stdout, /\nAvailable Commands:\n/);
});
