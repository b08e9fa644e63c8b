import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractGlobalFlags, parseDuration } from '../../../src/cli/globals';
import { CliError } from '../../../src/cli/exit';

test('global flags are taken from anywhere on the command line', () => {
  const { globals, rest } = extractGlobalFlags([
    'rollout', '-n', 'prod', 'status', 'cloneset/web', '--context=kind', '--timeout=30s', '-v=6', '--as-group', 'a', '--as-group=b',
    '--as-uid=u-1', '--as-user-extra', 'scopes=openid', '--as-user-extra=scopes=profile',
  ]);
  assert.equal(globals.namespace, 'prod');
  assert.equal(globals.context, 'kind');
  assert.equal(globals.verbosity, 6);
  assert.deepEqual(globals.asGroups, ['a', 'b']);
  assert.equal(globals.asUid, 'u-1');
  assert.deepEqual(globals.asUserExtra, ['scopes=openid', 'scopes=profile']);
  assert.deepEqual(rest, ['rollout', 'status', 'cloneset/web', '--timeout=30s']);
});

test('short flags accept attached values and bools accept =false', () => {
  const { globals } = extractGlobalFlags(['-nfoo', '-v9', '--insecure-skip-tls-verify=false', '--no-color', '-s', 'https://x:6443']);
  assert.equal(globals.namespace, 'foo');
  assert.equal(globals.verbosity, 9);
  assert.equal(globals.insecureSkipTlsVerify, false);
  assert.equal(globals.noColor, true);
  assert.equal(globals.server, 'https://x:6443');
});

test('a command\'s short flag written -x=VALUE (kubectl\'s form) reaches commander as -xVALUE', () => {
  const { rest } = extractGlobalFlags(['rollout', 'status', 'cloneset', '-l=app=web', '-o=json', '-w=false', '-f=a.yaml', '-o=', '--', '-l=x']);
  assert.deepEqual(rest, ['rollout', 'status', 'cloneset', '-lapp=web', '-ojson', '-wfalse', '-fa.yaml', '-o', '', '--', '-l=x']);
});

test('set subject --user is the subject flag (kubectl: a local flag shadows the global one); before the command it is still the kubeconfig user', () => {
  const sub = extractGlobalFlags(['-n', 'team', 'set', 'subject', 'rolebinding/admin', '--user=alice', '--user', 'bob', '--context=kind']);
  assert.equal(sub.globals.user, undefined);
  assert.equal(sub.globals.namespace, 'team');
  assert.equal(sub.globals.context, 'kind');
  assert.deepEqual(sub.rest, ['set', 'subject', 'rolebinding/admin', '--user=alice', '--user', 'bob']);
  assert.equal(extractGlobalFlags(['--user=admin', 'set', 'subject', 'rolebinding/admin', '--group=devs']).globals.user, 'admin');
  assert.equal(extractGlobalFlags(['set', 'image', 'deploy/x', 'a=b:1', '--user=admin']).globals.user, 'admin', 'other commands keep the global --user');
});

test('arguments after -- are left alone', () => {
  const { globals, rest } = extractGlobalFlags(['restart', '--', '-n', 'x']);
  assert.equal(globals.namespace, undefined);
  assert.deepEqual(rest, ['restart', '--', '-n', 'x']);
});

test('bad global flag values are usage errors (exit 2)', () => {
  for (const argv of [['-v', '10'], ['-v', 'x'], ['--request-timeout', '5 parsecs'], ['--namespace'], ['--insecure-skip-tls-verify=maybe']]) {
    assert.throws(() => extractGlobalFlags(argv), (e: unknown) => e instanceof CliError && e.exitCode === 2, argv.join(' '));
  }
});

test('durations follow kubectl: Go time.ParseDuration behind pflag DurationVar ("time: missing unit"), bare seconds only for --request-timeout (client-go clientcmd.ParseTimeout)', () => {
  assert.equal(parseDuration('30s', 'x'), 30_000);
  assert.equal(parseDuration('1m30s', 'x'), 90_000);
  assert.equal(parseDuration('500ms', 'x'), 500);
  assert.equal(parseDuration('2h', 'x'), 7_200_000);
  assert.throws(() => parseDuration('5', '--timeout'), { message: 'invalid argument "5" for "--timeout" flag: time: missing unit in duration "5"' });
  assert.equal(parseDuration('5', '--request-timeout', { bareSeconds: true }), 5000);
  assert.equal(parseDuration('0', 'x'), 0);
  assert.throws(() => parseDuration('-1s', 'x'));
  assert.throws(() => parseDuration('1d', 'x'));
  assert.throws(() => parseDuration('', 'x'));
});
