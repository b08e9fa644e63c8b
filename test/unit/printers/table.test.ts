import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatTable, visibleLength } from '../../../src/printers/table';

const green = (s: string): string => `\x1b[32m${s}\x1b[39m`;
const red = (s: string): string => `\x1b[31m${s}\x1b[39m`;

test('columns are as wide as their cells show: colour escape codes take no column (describe rollout padded its header to the coloured cell)', () => {
  const plain = formatTable(['NAME', 'READY', 'STATUS'], [['web-0', 'yes', 'Running'], ['web-1', 'no', 'CrashLoopBackOff']]);
  const coloured = formatTable(['NAME', 'READY', 'STATUS'], [['web-0', green('yes'), 'Running'], ['web-1', red('no'), red('CrashLoopBackOff')]]);
  // Without the escape codes, the coloured table is the plain one, column for column.
  assert.equal(coloured.replace(/\x1b\[[0-9;]*m/g, ''), plain);
  assert.equal(plain.split('\n')[0], 'NAME    READY   STATUS');
  assert.equal(visibleLength(green('yes')), 3);
  assert.equal(visibleLength('yes'), 3);
});
