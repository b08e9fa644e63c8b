import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescriptorWriter, decorationAllowed, isTerminal, linuxMajor } from '../../../src/cli/terminal';
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
  assert.match(r.stdout, /compdef _kubectl-kruise kubectl-kruise\nfi\n$/);
});

test('/dev/null is no terminal, decided from its device number alone (node:tty not needed)', { skip: process.platform !== 'linux' }, () => {
  const fd = openSync('/dev/null', 'w');
  try {
    assert.equal(isTerminal(fd), false);
  } finally {
    closeSync(fd);
  }
  // glibc's gnu_dev_major: /dev/null is 1:3, /dev/tty 5:0, a pty slave 136:N, and a large major
  // keeps its high bits (major 4097 must not read as 1).
  assert.equal(linuxMajor(0x103), 1);
  assert.equal(linuxMajor(0x500), 5);
  assert.equal(linuxMajor(0x8807), 136);
  assert.equal(linuxMajor(0x1000_0000_0100), 4097);
});

test('a command whose output goes to /dev/null or a pipe loads no terminal or network module', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kk-term-'));
  const log = join(dir, 'modules.txt');
  writeFileSync(join(dir, 'record.cjs'), `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(log)}, process.moduleLoadList.join('\\n')));\n`);
  for (const stdout of ['ignore', 'pipe'] as const) {
    const r = spawnSync(process.execPath, ['--require', join(dir, 'record.cjs'), join(REPO_ROOT, 'bin/kubectl-kruise'), 'version', '--client'], { stdio: ['ignore', stdout, 'pipe'], encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const loaded = readFileSync(log, 'utf8').split('\n');
    assert.ok(loaded.includes('NativeModule vm'), 'the recorder works');
    assert.deepEqual(loaded.filter((m) => /^NativeModule (tty|net|http|https)$/.test(m)), [], `stdout ${stdout}`);
  }
});
