// The objects the GitOps health checks are proven on (issue #31, "proof by running them"): the
// snapshots scripts/gitops-corpus.ts took from the sandbox during real rollouts
// (test/fixtures/gitops/corpus/<kind>/<scenario>-<n>.yaml) plus every fixture of the gate tests
// (test/fixtures/**) of a kind `gitops export` writes a health check for (argocd.ts HEALTH_KINDS).
// Shared by the Argo CD Lua test and the Flux CEL test, so both judge the same objects.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { HEALTH_KINDS } from '../../src/kruise/gitops/argocd';
import type { KubeObject } from '../../src/kruise/types';

export const FIXTURES_DIR = resolve(import.meta.dirname, '..', 'fixtures');
/** Where the sandbox snapshots are, relative to FIXTURES_DIR. */
export const CORPUS_DIR = join('gitops', 'corpus');

export interface CorpusObject {
  /** test/fixtures-relative path, with `#<document>` when the file holds several. */
  file: string;
  object: KubeObject;
  /**
   * The exit code of `rollout status --watch=false` run against the sandbox while it held this very
   * state (the snapshot header's `# cli:` line), for the snapshots taken at a settled point.
   */
  cliExit?: number;
}

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? walk(p) : /\.ya?ml$/.test(n) ? [p] : [];
    });
}

/** Whether a health check is generated for the object: a HEALTH_KINDS group and kind (Rollouts: the two API versions served). */
export function hasHealthCheck(o: unknown): o is KubeObject {
  const obj = o as KubeObject | null;
  if (!obj || typeof obj !== 'object' || typeof obj.apiVersion !== 'string' || !obj.metadata) return false;
  const group = obj.apiVersion.split('/')[0];
  if (!HEALTH_KINDS.some((k) => k.kind === obj.kind && k.group === group)) return false;
  return obj.kind !== 'Rollout' || /^rollouts\.kruise\.io\/v1(alpha|beta)1$/.test(obj.apiVersion);
}

let cache: CorpusObject[] | undefined;

/** Every object of test/fixtures/** with a generated health check, the sandbox corpus among them. */
export function loadGitopsCorpus(): Array<CorpusObject> {
  if (cache) return cache;
  const out: CorpusObject[] = [];
  for (const path of walk(FIXTURES_DIR)) {
    const text = readFileSync(path, 'utf8');
    // Deliberately broken fixtures (bad-input, alias bombs) are not objects of any kind: skipped.
    let docs;
    try {
      docs = parseAllDocuments(text);
    } catch {
      continue;
    }
    if (!Array.isArray(docs)) continue;
    const cli = /^# cli: .* exited (\d+) on this state$/m.exec(text);
    const rel = relative(FIXTURES_DIR, path);
    docs.forEach((doc, i) => {
      if (doc.errors.length > 0) return;
      let value: unknown;
      try {
        value = doc.toJS({ maxAliasCount: 100 });
      } catch {
        return;
      }
      const list = (value as { kind?: string } | null)?.kind === 'List' ? ((value as { items?: unknown[] }).items ?? []) : [value];
      list.forEach((o, j) => {
        if (!hasHealthCheck(o)) return;
        const file = docs.length > 1 || list.length > 1 ? `${rel}#${i}${list.length > 1 ? `.${j}` : ''}` : rel;
        out.push({ file, object: o, ...(cli && docs.length === 1 ? { cliExit: Number(cli[1]) } : {}) });
      });
    });
  }
  cache = out;
  return out;
}

/** Whether the object is one of the sandbox snapshots (not a hand-written fixture). */
export const isSnapshot = (c: CorpusObject): boolean => c.file.startsWith(`${CORPUS_DIR}/`);
