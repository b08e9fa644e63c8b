// The standalone executable (Bun) sends plain requests and watches through fetch, the npm form (Node)
// through node:http (src/kube/http.ts fetchUsable). The same scenarios (bun/fetch-probe.ts: JSON,
// warnings, -v=9 redaction, a PATCH body, no redirects, Retry-After, bounded bodies, --request-timeout,
// a reset mid-body, a list decoded item by item, a watch's stream and its reset, Ctrl-C) must give the
// same results on both paths, run under each runtime.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../helpers/cli';

const probe = join(REPO_ROOT, 'test', 'unit', 'kube', 'bun', 'fetch-probe.ts');
// The bun dev dependency (the executable's runtime): its platform package, or where its postinstall put it.
const bun = [join(REPO_ROOT, 'node_modules', '@oven', `bun-${process.platform}-${process.arch}`, 'bin', 'bun'), join(REPO_ROOT, 'node_modules', 'bun', 'bin', 'bun.exe')].find(
  (f) => existsSync(f) && statSync(f).size > 1_000_000,
);

function results(cmd: string, args: string[]): Array<Record<string, unknown>> {
  const r = spawnSync(cmd, args, { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.stderr}`);
  // The port differs from run to run.
  return r.stdout.trim().split('\n').map((l) => JSON.parse(l.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT')) as Record<string, unknown>);
}

test('fetch (Bun) and node:http (Node) give the same answers, errors and retries', () => {
  assert.ok(bun, 'Bun, the bun dev dependency, is installed (npm ci)');
  const viaNode = results(process.execPath, ['--import', 'tsx', probe]);
  const viaBun = results(bun!, [probe]);
  assert.deepEqual(viaNode[0], { name: 'uses fetch', requests: 0, ok: false });
  assert.deepEqual(viaBun[0], { name: 'uses fetch', requests: 0, ok: true });
  assert.deepEqual(viaBun.slice(1), viaNode.slice(1));
  assert.deepEqual(viaBun.find((r) => String(r.name).startsWith('--as-group twice')), { name: '--as-group twice: two Impersonate-Group headers (node:http; fetch would join them)', requests: 1, ok: { fetch: false, groups: ['devs', 'ops'] } });
  const by = Object.fromEntries(viaBun.map((r) => [r.name, r]));
  assert.deepEqual(by['redirects are not followed'], { name: 'redirects are not followed', requests: 1, ok: 302 });
  assert.equal((by['json, warnings once, -v=9 headers redacted']!.ok as { leaked: boolean }).leaked, false);
  assert.deepEqual((by['json, warnings once, -v=9 headers redacted']!.ok as { warnings: string[] }).warnings, ['Warning: apps.kruise.io/v1alpha1 CloneSet is deprecated']);
  assert.match(String(by['an endless body stops at the limit']!.error), /too large: more than 4 MiB/);
  assert.equal(by['--request-timeout']!.error, 'the request to http://127.0.0.1:PORT timed out after 300ms (--request-timeout)');
  assert.deepEqual([by['a reset mid-body fails as a reset connection']!.requests, by['a reset mid-body fails as a reset connection']!.error], [2, 'the connection to the server at http://127.0.0.1:PORT was reset']);
  assert.deepEqual((by['a list decoded item by item as it arrives']!.ok as { items: unknown[] }).items, [{ metadata: { name: 'a' } }]);
  assert.deepEqual(by['a watch: its events as they come, then a reset the watch resumes after']!.ok, { text: '{"type":"ADDED","object":{}}\n{"type":"MODIFIED","object":{}}\n', resumes: true, fetch: true });
  assert.equal(by['Ctrl-C aborts']!.errorName, 'AbortError');
});
