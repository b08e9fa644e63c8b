import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Command } from 'commander';
import { bareOptionalFlagsLast } from '../../../src/cli/optional-values';

function tree(): Command {
  const program = new Command('kubectl kruise');
  const rollout = program.command('rollout');
  rollout.command('status').argument('[resources...]').option('-w, --watch [bool]').option('-o, --output <format>');
  rollout.command('undo').argument('[resources...]').option('--dry-run [mode]');
  return program;
}

test('a bare optional-value flag does not swallow the resource after it (kubectl: values only after =)', () => {
  const p = tree();
  assert.deepEqual(bareOptionalFlagsLast(p, ['rollout', 'status', '-w', 'cloneset/web']), ['rollout', 'status', 'cloneset/web', '-w']);
  assert.deepEqual(bareOptionalFlagsLast(p, ['rollout', 'status', '--watch', 'cloneset', 'web', '-o', 'json']), ['rollout', 'status', 'cloneset', 'web', '-o', 'json', '--watch']);
  assert.deepEqual(bareOptionalFlagsLast(p, ['rollout', 'undo', '--dry-run', 'deploy/api']), ['rollout', 'undo', 'deploy/api', '--dry-run']);
});

test('explicit values, = forms, flags taking a value and words after -- are left alone', () => {
  const p = tree();
  for (const args of [
    ['rollout', 'status', '-w', 'false', 'cloneset/web'],
    ['rollout', 'status', '--watch=false', 'cloneset/web'],
    ['rollout', 'undo', '--dry-run', 'server', 'deploy/api'],
    ['rollout', 'status', 'cloneset/web', '-w'],
    ['rollout', 'status', '-w', '-o', 'json', 'cloneset/web'],
    ['rollout', 'status', '-o', 'json', 'cloneset/web'],
    ['rollout', 'status', '--', '-w', 'x'],
  ]) {
    assert.deepEqual(bareOptionalFlagsLast(p, args), args, args.join(' '));
  }
});

test('a required value whose placeholder contains [ (e.g. <key[:weight],...>) is not an optional value', () => {
  const program = new Command('kubectl kruise');
  program.command('create').command('pps').argument('[name]').option('--preferred-topology <key[:weight],...>');
  const args = ['create', 'pps', 'web', '--preferred-topology', 'topology.kubernetes.io/zone:50'];
  assert.deepEqual(bareOptionalFlagsLast(program, args), args);
});
