// get all's printer (src/printers/kind-tables.ts): server-side Tables in, kubectl's multi-kind text out.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cellText, formatKindNames, formatKindTables, kindTablesView, type KindTable } from '../../../src/printers/kind-tables';

// Columns as kube-apiserver prints a v1.9.0 CloneSet and SidecarSet (Name first, the CRD's columns after).
const CLONESET: KindTable = {
  kind: 'CloneSet',
  group: 'apps.kruise.io',
  namespaced: true,
  columns: [
    { name: 'Name', type: 'string', format: 'name', priority: 0 },
    { name: 'DESIRED', type: 'integer', priority: 0 },
    { name: 'UPDATED_READY', type: 'integer', priority: 0 },
    { name: 'AGE', type: 'date', priority: 0 },
    { name: 'IMAGES', type: 'string', priority: 1 },
  ],
  rows: [
    { cells: ['worker', 1, 1, '5s', 'busybox:1.36'], object: { metadata: { name: 'worker', namespace: 'batch' } } },
    { cells: ['web', 2, null, '7s', 'nginx:1.25'], object: { metadata: { name: 'web', namespace: 'shop' } } },
  ],
};
const SIDECARSET: KindTable = {
  kind: 'SidecarSet',
  group: 'apps.kruise.io',
  namespaced: false,
  columns: [
    { name: 'Name', type: 'string', format: 'name' },
    { name: 'MATCHED', type: 'integer' },
    { name: 'AGE', type: 'date' },
  ],
  rows: [{ cells: ['log', 0, '9s'], object: { metadata: { name: 'log' } } }],
};
const EMPTY: KindTable = { kind: 'Rollout', group: 'rollouts.kruise.io', namespaced: true, columns: SIDECARSET.columns, rows: [] };

describe('kindTablesView / formatKindTables', () => {
  it('one table per kind with rows, blank line between, NAME prefixed kind.group/, missing values empty, priority columns hidden', () => {
    const text = formatKindTables(kindTablesView([CLONESET, EMPTY, SIDECARSET], { allNamespaces: false, wide: false }));
    assert.equal(
      text,
      [
        'NAME                             DESIRED   UPDATED_READY   AGE',
        'cloneset.apps.kruise.io/worker   1         1               5s',
        'cloneset.apps.kruise.io/web      2                         7s',
        '',
        'NAME                            MATCHED   AGE',
        'sidecarset.apps.kruise.io/log   0         9s',
        '',
      ].join('\n'),
    );
  });

  it('-A: NAMESPACE first for namespaced kinds only (kubectl drops it for cluster-scoped ones); -o wide adds priority > 0 columns', () => {
    const [cs, ss] = kindTablesView([CLONESET, SIDECARSET], { allNamespaces: true, wide: true });
    assert.deepEqual(cs!.headers, ['NAMESPACE', 'NAME', 'DESIRED', 'UPDATED_READY', 'AGE', 'IMAGES']);
    assert.deepEqual(cs!.rows[1], ['shop', 'cloneset.apps.kruise.io/web', '2', '', '7s', 'nginx:1.25']);
    assert.deepEqual(ss!.headers, ['NAME', 'MATCHED', 'AGE']);
  });

  it('no kind with rows: nothing to print', () => {
    assert.deepEqual(kindTablesView([EMPTY], { allNamespaces: true, wide: false }), []);
    assert.equal(formatKindTables([]), '');
  });

  it('cells print as kubectl prints decoded JSON: null empty, numbers and booleans as text', () => {
    assert.deepEqual([null, undefined, 'x', 0, 2.5, true, false].map(cellText), ['', '', 'x', '0', '2.5', 'true', 'false']);
  });
});

describe('formatKindNames (-o name)', () => {
  it('kind.group/name per object, kinds in the order given, no namespace', () => {
    assert.equal(formatKindNames([CLONESET, EMPTY, SIDECARSET]), 'cloneset.apps.kruise.io/worker\ncloneset.apps.kruise.io/web\nsidecarset.apps.kruise.io/log\n');
  });
});
