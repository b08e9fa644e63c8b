import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescriptorWriter, decorationAllowed, isTerminal } from '../../../src/cli/terminal';
import { REPO_ROOT } from '../../helpers/cli';

test('DescriptorWriter writes every byte, strings and buffers, and calls write callbacks', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'kk-term-')), 'out.txt');
  const fd = openSync(file, 'w');
  const w = new DescriptorWriter(fd);
  let called = false;
  w.write('héllo ');
  w.write(Buffer.from('wörld\n'), () => (called = true));
  w.write('x'.repeat(1 << 20));
  closeSync(fd);
  assert.equal(called, true);
  const text = readFileSync(file, 'utf8');
  assert.ok(text.startsWith('héllo wörld\n'));
  assert.equal(text.length, 'héllo wörld\n'.length + (1 << 20));
  assert.equal(isTerminal(fd + 1000), false, 'a closed descriptor is no terminal');
});

test('a pipe or file is never a terminal, so nothing is decorated', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'kk-term-')), 'f');
  const fd = openSync(file, 'w');
  assert.equal(isTerminal(fd), false);
  closeSync(fd);
  assert.equal(decorationAllowed({}, false, false), false);
  assert.equal(decorationAllowed({ CI: 'true' }, true, false), false);
  assert.equal(decorationAllowed({ NO_COLOR: '1' }, true, false), false);
  assert.equal(decorationAllowed({ TERM: 'dumb' }, true, false), false);
  assert.equal(decorationAllowed({}, true, true), false);
  assert.equal(decorationAllowed({}, true, false), true);
});

test('large help output through a pipe arrives whole (synchronous descriptor writes before exit)', () => {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/kubectl-kruise'), 'completion', 'zsh'], { encoding: 'utf8' });
  assert.equal(r.status, 0);
  assert.match(r.stdout, /compdef _kubectl_kruise kubectl-kruise\n$/);
});
