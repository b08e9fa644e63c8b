// When a rerun may take a lease whose holder has exited without waiting for it to expire: only
// when the holder ran on this machine, in this pid namespace, as the same process the holder
// identity names (engine/lease.ts reads /proc and asks the kernel whether the pid lives).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { comparableHolderPid, formatHolderProcess } from '../../../../src/kruise/plans/lease';

const here = { boot: '3f1c0e52-8a41-4d3c-9f0a-6b2de1c7a901', pidNamespace: 'pid:[4026531836]' };
const identity = 'alice@build-7 pid 4242 #k3f9';

test('the annotation round-trips: boot id, pid namespace, pid', () => {
  const a = formatHolderProcess({ ...here, pid: 4242 });
  assert.equal(a, '3f1c0e52-8a41-4d3c-9f0a-6b2de1c7a901 pid:[4026531836] 4242');
  assert.equal(comparableHolderPid(a, identity, here), 4242);
});

for (const [why, annotation, holder] of [
  ['no annotation (another OS, or an older version)', undefined, identity],
  ['another boot of the machine (the pid was reused since)', `00000000-0000-0000-0000-000000000000 ${here.pidNamespace} 4242`, identity],
  ['another pid namespace (a container beside us: its pid 4242 is not ours)', `${here.boot} pid:[4026532999] 4242`, identity],
  ['the identity names another process (an older version took the lease and kept the annotation)', `${here.boot} ${here.pidNamespace} 4242`, 'bob@build-7 pid 17 #aa00'],
  ['a pid that is a prefix of the named one', `${here.boot} ${here.pidNamespace} 424`, identity],
  ['garbage', 'x y', identity],
  ['pid 0', `${here.boot} ${here.pidNamespace} 0`, 'alice@build-7 pid 0 #k3f9'],
] as const) {
  test(`not comparable: ${why}`, () => {
    assert.equal(comparableHolderPid(annotation, holder, here), undefined);
  });
}
