import { test } from 'node:test';
import assert from 'node:assert/strict';
import { subcommandFilter } from '../../../src/commands/subcommands';

const NAMES = ['status', 'undo', 'pause'];

test('a named subcommand is registered alone', () => {
  const want = subcommandFilter('pause', NAMES);
  assert.deepEqual(NAMES.filter(want), ['pause']);
});

test('no word, a flag or a typo registers every subcommand (help, suggestions)', () => {
  for (const word of [undefined, '--help', 'pase', 'cloneset/web']) assert.deepEqual(NAMES.filter(subcommandFilter(word, NAMES)), NAMES, String(word));
});
