// How the CLI names itself and runs itself again, under Node (launcher) and as a Bun standalone executable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { invokedAs, isStandaloneExecutable, programNameFor, selfCommand, useFullJit } from '../../../src/cli/self';

const NODE_ARGV = ['/usr/bin/node', '/usr/lib/node_modules/kubectl-kruise/bin/kubectl-kruise', 'version'];
const BUN_ARGV = ['bun', '/$bunfs/root/kubectl-kruise', 'version'];
const BUN_WINDOWS_ARGV = ['bun', 'B:\\~BUN\\root\\kubectl-kruise.exe', 'version'];

test('under Node the launcher path in argv[1] names the program; argv0 is node', () => {
  assert.equal(isStandaloneExecutable(NODE_ARGV), false);
  assert.equal(invokedAs(NODE_ARGV, 'node'), NODE_ARGV[1]);
  assert.equal(programNameFor(invokedAs(NODE_ARGV, 'node')), 'kubectl kruise');
});

test('in the executable the name it was run by (argv0) names the program, not the embedded module path', () => {
  for (const argv of [BUN_ARGV, BUN_WINDOWS_ARGV]) assert.equal(isStandaloneExecutable(argv), true);
  assert.equal(programNameFor(invokedAs(BUN_ARGV, 'kruise')), 'kruise');
  assert.equal(programNameFor(invokedAs(BUN_ARGV, '/home/me/.krew/bin/kubectl-kruise')), 'kubectl kruise');
});

test('running itself again: the executable alone, or Node with the launcher', () => {
  assert.deepEqual(selfCommand(['rollout', 'status'], BUN_ARGV), [process.execPath, ['rollout', 'status']]);
  assert.deepEqual(selfCommand(['rollout', 'status'], NODE_ARGV), [process.execPath, [NODE_ARGV[1], 'rollout', 'status']]);
});

test('useFullJit: under Bun the sandbox asks for the normal JIT tier-up again (the executable starts at 1/10); under Node it does nothing', () => {
  const g = globalThis as { Bun?: unknown };
  const calls: number[] = [];
  useFullJit(); // Node: no Bun global, no error
  g.Bun = { unsafe: { setJITPolicy: (scale: number) => calls.push(scale) } };
  try {
    useFullJit();
  } finally {
    delete g.Bun;
  }
  assert.deepEqual(calls, [1]);
});
