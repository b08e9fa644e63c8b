// The sandbox containers' command set and shell (src/sandbox/exec/shell.ts) and the environment the
// kubelet gives them (src/sandbox/exec/container-env.ts): what `kubectl exec` shows a user.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { KubeObject, Pod } from '../../../../src/kruise/types';
import { containerEnv } from '../../../../src/sandbox/exec/container-env';
import { ExecNotFound, InputQueue, Interrupted, runInContainer } from '../../../../src/sandbox/exec/shell';

interface Ran {
  code: number;
  out: string;
  err: string;
}

async function run(argv: string[], opts: { stdin?: string[]; env?: Array<[string, string]>; terminal?: { rows: number; cols: number }; signal?: AbortSignal } = {}): Promise<Ran> {
  let out = '';
  let err = '';
  const stdin = new InputQueue();
  for (const chunk of opts.stdin ?? []) stdin.push(chunk);
  stdin.end();
  const signal = opts.signal ?? new AbortController().signal;
  const code = await runInContainer(argv, {
    env: opts.env ?? [['PATH', '/bin'], ['HOSTNAME', 'web-0'], ['GREETING', 'hello world']],
    hostname: 'web-0',
    stdin,
    io: { out: (t) => (out += t), err: (t) => (err += t) },
    signal: () => signal,
    terminal: opts.terminal ? () => opts.terminal : undefined,
    now: () => new Date('2026-03-05T07:08:09Z'),
  });
  return { code, out, err };
}
const sh = (script: string, opts: Parameters<typeof run>[1] = {}) => run(['sh', '-c', script], opts);

test('the commands: echo, printenv (exit 1 for a missing name), env, hostname, cat of stdin and /etc/hostname, date, true/false', async () => {
  assert.deepEqual(await run(['echo', 'a', 'b']), { code: 0, out: 'a b\n', err: '' });
  assert.deepEqual(await run(['echo', '-n', 'a']), { code: 0, out: 'a', err: '' });
  assert.deepEqual(await run(['echo', '-e', 'a\\tb']), { code: 0, out: 'a\tb\n', err: '' });
  assert.deepEqual(await run(['printenv', 'GREETING', 'HOSTNAME']), { code: 0, out: 'hello world\nweb-0\n', err: '' });
  assert.deepEqual(await run(['printenv', 'GREETING', 'NOPE']), { code: 1, out: 'hello world\n', err: '' });
  assert.equal((await run(['/usr/bin/env'])).out, 'PATH=/bin\nHOSTNAME=web-0\nGREETING=hello world\n');
  assert.deepEqual(await run(['hostname']), { code: 0, out: 'web-0\n', err: '' });
  assert.deepEqual(await run(['cat'], { stdin: ['line 1\n', 'line 2\n'] }), { code: 0, out: 'line 1\nline 2\n', err: '' });
  assert.deepEqual(await run(['cat', '/etc/hostname']), { code: 0, out: 'web-0\n', err: '' });
  assert.deepEqual(await run(['cat', '/etc/shadow']), { code: 1, out: '', err: "cat: can't open '/etc/shadow': No such file or directory\n" });
  assert.equal((await run(['date'])).out, 'Thu Mar  5 07:08:09 UTC 2026\n');
  assert.equal((await run(['true'])).code, 0);
  assert.equal((await run(['/bin/false'])).code, 1);
  assert.deepEqual(await run(['stty', 'size']), { code: 1, out: '', err: 'stty: standard input: Not a tty\n' });
  assert.deepEqual(await run(['stty', 'size'], { terminal: { rows: 33, cols: 101 } }), { code: 0, out: '33 101\n', err: '' });
});

test('exec of a command the container does not have fails to start (ExecNotFound); inside sh it is "not found", 127', async () => {
  await assert.rejects(run(['ls', '/']), (e: unknown) => e instanceof ExecNotFound && e.message === 'exec: "ls": executable file not found in $PATH');
  assert.deepEqual(await sh('ls /; echo "status $?"'), { code: 0, out: 'status 127\n', err: 'sh: ls: not found\n' });
});

test('sh -c: quoting, $VAR / ${VAR} / $?, assignments, ; && ||, redirections, comments, exit codes', async () => {
  assert.deepEqual(await sh('exit 3'), { code: 3, out: '', err: '' });
  assert.deepEqual(await sh("echo 'single $GREETING' \"double $GREETING\" ${HOSTNAME}x \\$HOME"), { code: 0, out: 'single $GREETING double hello world web-0x $HOME\n', err: '' });
  assert.deepEqual(await sh('false; echo $?; true && echo and; false && echo never; false || echo or'), { code: 0, out: '1\nand\nor\n', err: '' });
  assert.deepEqual(await sh('echo out; echo err >&2; echo quiet >/dev/null; echo merged 2>&1'), { code: 0, out: 'out\nmerged\n', err: 'err\n' });
  assert.deepEqual(await sh('X=1; echo $X; Y=2 printenv Y; printenv Y'), { code: 1, out: '1\n2\n', err: '' });
  assert.deepEqual(await sh('echo $EMPTY a # a comment\necho b'), { code: 0, out: 'a\nb\n', err: '' });
  assert.deepEqual(await sh('exit 300'), { code: 44, out: '', err: '' });
  assert.deepEqual(await sh('echo before; exit 4; echo after'), { code: 4, out: 'before\n', err: '' });
  assert.deepEqual(await run(['bash', '-c', 'sh -c "exit 5"; echo inner=$?']), { code: 0, out: 'inner=5\n', err: '' });
  assert.deepEqual(await sh('echo "unterminated'), { code: 2, out: '', err: 'sh: syntax error: unterminated quoted string\n' });
  assert.deepEqual(await sh('echo a | cat'), { code: 2, out: '', err: 'sh: syntax error: pipes are not simulated in the sandbox\n' });
  assert.deepEqual(await run(['sh', '-c']), { code: 2, out: '', err: 'sh: -c requires an argument\n' });
});

test('sh without -c runs stdin line by line; sleep ends early when the connection goes away', async () => {
  assert.deepEqual(await run(['sh'], { stdin: ['echo one\nprintenv GREE', 'TING\nexit 6\necho never\n'] }), { code: 6, out: 'one\nhello world\n', err: '' });
  const gone = new AbortController();
  const started = Date.now();
  setTimeout(() => gone.abort(), 50);
  await assert.rejects(run(['sleep', '30'], { signal: gone.signal }), Interrupted);
  assert.ok(Date.now() - started < 5000);
  assert.deepEqual(await run(['sleep', 'soon']), { code: 1, out: '', err: "sleep: invalid number 'soon'\n" });
});

test('the kubelet\'s environment: PATH, HOSTNAME, envFrom with prefix, env in order with $(VAR), the downward API, ConfigMap and Secret keys, Service variables, HOME', () => {
  const pod = parse(readFileSync(new URL('../../../fixtures/exec/sidecars-pod.yaml', import.meta.url), 'utf8')) as Pod;
  pod.status = { ...pod.status, podIP: '10.244.1.7' };
  const objects: Record<string, KubeObject> = {
    'configmaps/app': { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app' }, data: { MODE: 'blue', LEVEL: 'debug' } } as KubeObject,
    'secrets/db': { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, data: { password: Buffer.from('s3cret').toString('base64') } } as KubeObject,
  };
  const store = { get: (gr: { resource: string }, _ns: string, name: string) => objects[`${gr.resource}/${name}`] };
  const env = containerEnv(
    pod,
    {
      envFrom: [{ configMapRef: { name: 'app' }, prefix: 'APP_' }],
      env: [
        { name: 'A', value: 'x' },
        { name: 'B', value: '$(A)-$(MISSING)-$$(A)' },
        { name: 'VERSION', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['version.sidecarset.kruise.io/mesh-2']" } } },
        { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
        { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
        { name: 'MODE', valueFrom: { configMapKeyRef: { name: 'app', key: 'MODE' } } },
        { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
        { name: 'GONE', valueFrom: { secretKeyRef: { name: 'nope', key: 'k', optional: true } } },
      ],
    },
    store,
    true,
  );
  assert.deepEqual(env.slice(0, 13), [
    ['PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
    ['HOSTNAME', 'web-7xk2p'],
    ['TERM', 'xterm'],
    ['APP_MODE', 'blue'],
    ['APP_LEVEL', 'debug'],
    ['A', 'x'],
    ['B', 'x-$(MISSING)-$(A)'],
    ['VERSION', '7'],
    ['POD_IP', '10.244.1.7'],
    ['NODE', 'node-2'],
    ['MODE', 'blue'],
    ['DB_PASSWORD', 's3cret'],
    ['KUBERNETES_SERVICE_HOST', '10.96.0.1'],
  ]);
  assert.deepEqual(env[env.length - 1], ['HOME', '/root']);
  assert.ok(!env.some(([k]) => k === 'GONE'), 'an optional key that does not exist is left out');
});
