// scripts/release-tar.mjs, the reproducible tar.gz writer of `npm run release`, read back by GNU tar.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tarGz, type TarEntry } from '../../../scripts/release-tar.mjs';

const work = mkdtempSync(join(tmpdir(), 'kk-tar-'));
const longDir = `${'d'.repeat(60)}/${'e'.repeat(60)}`; // 121 characters: needs ustar's prefix field
const entries: TarEntry[] = [
  { path: 'z-last', type: 'file', data: Buffer.from('z\n') },
  { path: 'bin', type: 'dir' },
  { path: 'bin/tool', type: 'file', data: Buffer.alloc(1000, 7), executable: true },
  { path: longDir, type: 'dir' },
  { path: `${longDir}/file.txt`, type: 'file', data: Buffer.from('deep\n') },
  { path: 'empty', type: 'file', data: Buffer.alloc(0) },
];

describe('release-tar.mjs', () => {
  after(() => rmSync(work, { recursive: true, force: true }));

  it('GNU tar lists and extracts the entries sorted, with their contents, modes and the given time', () => {
    const file = join(work, 'a.tar.gz');
    writeFileSync(file, tarGz(entries, 1_700_000_000));
    const list = spawnSync('tar', ['-tvzf', file, '--numeric-owner', '--full-time'], { encoding: 'utf8', env: { ...process.env, TZ: 'UTC' } });
    assert.equal(list.status, 0, list.stderr);
    const rows = list.stdout.trim().split('\n').map((l) => l.split(/\s+/));
    assert.deepEqual(rows.map((r) => r.at(-1)), ['bin/', 'bin/tool', `${longDir}/`, `${longDir}/file.txt`, 'empty', 'z-last']);
    assert.deepEqual(rows.map((r) => r[0]), ['drwxr-xr-x', '-rwxr-xr-x', 'drwxr-xr-x', '-rw-r--r--', '-rw-r--r--', '-rw-r--r--']);
    for (const r of rows) {
      assert.equal(r[1], '0/0');
      assert.equal(`${r[3]} ${r[4]}`, '2023-11-14 22:13:20');
    }
    const dest = join(work, 'x');
    mkdirSync(dest);
    const x = spawnSync('tar', ['-xzf', file, '-C', dest], { encoding: 'utf8' });
    assert.equal(x.status, 0, x.stderr);
    assert.equal(readFileSync(join(dest, longDir, 'file.txt'), 'utf8'), 'deep\n');
    assert.ok(readFileSync(join(dest, 'bin', 'tool')).equals(Buffer.alloc(1000, 7)));
    assert.equal(statSync(join(dest, 'bin', 'tool')).mode & 0o777, 0o755);
  });

  it('the same entries in any order give the same bytes; another time gives other bytes', () => {
    const a = tarGz(entries, 1);
    assert.ok(tarGz([...entries].reverse(), 1).equals(a));
    assert.ok(!tarGz(entries, 2).equals(a));
    assert.equal(a.readUInt32LE(4), 0, 'no time in the gzip header');
  });

  it('refuses paths an extractor would refuse or that ustar cannot hold', () => {
    assert.throws(() => tarGz([{ path: '../x', type: 'file', data: Buffer.from('') }], 0), /unsafe path/);
    assert.throws(() => tarGz([{ path: '/etc/x', type: 'file', data: Buffer.from('') }], 0), /unsafe path/);
    assert.throws(() => tarGz([{ path: 'f'.repeat(101), type: 'file', data: Buffer.from('') }], 0), /too long/);
    assert.throws(() => tarGz([{ path: 'a', type: 'dir' }, { path: 'a', type: 'dir' }], 0), /given twice/);
  });
});
