// --field-manager (src/commands/restart/flags.ts fieldManagerFlag), shared by set, scaledown and expose:
// the API server takes 1 to 128 characters; anything else is exit 2 before any request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CliError } from '../../../src/cli/exit';
import { fieldManagerFlag } from '../../../src/commands/restart/flags';

const refused = (e: unknown): boolean => e instanceof CliError && e.exitCode === 2 && e.message === '--field-manager must be 1 to 128 characters';

test('fieldManagerFlag: the default when absent, the value as given otherwise', () => {
  assert.equal(fieldManagerFlag(undefined, 'kubectl-expose'), 'kubectl-expose');
  assert.equal(fieldManagerFlag('ci-bot', 'kubectl-kruise'), 'ci-bot');
  assert.equal(fieldManagerFlag('m'.repeat(128), 'kubectl-kruise'), 'm'.repeat(128));
});

test('fieldManagerFlag: empty, blank or longer than 128 characters is a usage error', () => {
  for (const bad of ['', '   ', 'm'.repeat(129)]) assert.throws(() => fieldManagerFlag(bad, 'kubectl-kruise'), refused, JSON.stringify(bad));
});
