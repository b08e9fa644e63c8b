// src/lib/compare.ts: name orders without Intl (the first localeCompare of a process costs ~8 ms on Node 20).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { compareNatural, compareText } from '../../../src/lib/compare';
import { REPO_ROOT } from '../../helpers/cli';

test('compareNatural: digit runs by value (web-2 before web-10, node-9 before node-10), otherwise code-unit order', () => {
  assert.deepEqual(['web-10', 'web-2', 'web-1', 'web-a', 'web-02x'].sort(compareNatural), ['web-1', 'web-2', 'web-02x', 'web-10', 'web-a']);
  assert.deepEqual(['node-10', 'node-9', 'node-100'].sort(compareNatural), ['node-9', 'node-10', 'node-100']);
  assert.ok(compareNatural('web-123456789012345678901234567890', 'web-123456789012345678901234567891') < 0, 'long runs keep their precision');
  assert.ok(compareNatural('a', 'a-1') < 0);
  assert.equal(compareNatural('web-7', 'web-7'), 0);
});

test('compareText: code-unit order, as Go sort.Strings and kubectl', () => {
  assert.deepEqual(['web-b', 'web-a1', 'web-a', '2026-11-25T05:00:00Z', '2026-11-24T23:59:59Z'].sort(compareText), ['2026-11-24T23:59:59Z', '2026-11-25T05:00:00Z', 'web-a', 'web-a1', 'web-b']);
});

test('src/ never calls String#localeCompare (its first call builds an ICU collator: ~8 ms of a command start)', () => {
  const offenders: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ts') && /\.localeCompare\(/.test(readFileSync(p, 'utf8'))) offenders.push(p.slice(REPO_ROOT.length + 1));
    }
  };
  walk(join(REPO_ROOT, 'src'));
  assert.deepEqual(offenders, []);
});
