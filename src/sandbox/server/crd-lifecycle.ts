// CustomResourceDefinitions as the apiextensions server treats them: validated on write,
// given Established/NamesAccepted status, served as soon as they are stored, and their
// objects deleted with them.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../kruise/types';
import { ApiError, type StatusCause } from './errors';
import type { CrdSpec, ResourceRegistry } from './registry';
import { nowTimestamp, type MemoryStore } from './store';

const CRD_GR = { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' };

function validateCrd(crd: KubeObject): void {
  const spec = crd.spec as Partial<CrdSpec> | undefined;
  const name = crd.metadata.name ?? '';
  const causes: StatusCause[] = [];
  if (!spec || typeof spec !== 'object') causes.push({ field: 'spec', message: 'Required value', reason: 'FieldValueRequired' });
  else {
    if (!spec.group) causes.push({ field: 'spec.group', message: 'Required value', reason: 'FieldValueRequired' });
    if (!spec.names?.plural) causes.push({ field: 'spec.names.plural', message: 'Required value', reason: 'FieldValueRequired' });
    if (!spec.names?.kind) causes.push({ field: 'spec.names.kind', message: 'Required value', reason: 'FieldValueRequired' });
    if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
      causes.push({ field: 'spec.scope', message: `Unsupported value: "${String(spec.scope)}": supported values: "Cluster", "Namespaced"`, reason: 'FieldValueNotSupported' });
    }
    if (!Array.isArray(spec.versions) || spec.versions.length === 0) causes.push({ field: 'spec.versions', message: 'Invalid value: null: must have exactly one version marked as storage version', reason: 'FieldValueInvalid' });
    else if (spec.versions.filter((v) => v.storage).length !== 1) {
      causes.push({ field: 'spec.versions', message: `Invalid value: ${JSON.stringify(spec.versions.map((v) => v.name))}: must have exactly one version marked as storage version`, reason: 'FieldValueInvalid' });
    }
    if (spec.group && spec.names?.plural && name !== `${spec.names.plural}.${spec.group}`) {
      causes.push({ field: 'metadata.name', message: `Invalid value: "${name}": must be spec.names.plural+"."+spec.group`, reason: 'FieldValueInvalid' });
    }
  }
  if (causes.length) throw ApiError.invalid('apiextensions.k8s.io', 'CustomResourceDefinition', name, causes);
}

function withStatus(crd: KubeObject, old: KubeObject | undefined): KubeObject {
  const spec = crd.spec as CrdSpec;
  const now = (old?.status as { conditions?: Array<{ type: string; lastTransitionTime?: string }> } | undefined)?.conditions?.[0]?.lastTransitionTime ?? nowTimestamp();
  const storage = spec.versions.find((v) => v.storage)?.name;
  const previous = ((old?.status as { storedVersions?: string[] } | undefined)?.storedVersions ?? []).slice();
  if (storage && !previous.includes(storage)) previous.push(storage);
  return {
    ...crd,
    spec: { ...spec, conversion: (crd.spec as { conversion?: unknown }).conversion ?? { strategy: 'None' } },
    status: {
      conditions: [
        { type: 'NamesAccepted', status: 'True', lastTransitionTime: now, reason: 'NoConflicts', message: 'no conflicts found' },
        { type: 'Established', status: 'True', lastTransitionTime: now, reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
      ],
      acceptedNames: { ...spec.names, singular: spec.names.singular ?? spec.names.kind.toLowerCase(), listKind: spec.names.listKind ?? `${spec.names.kind}List` },
      storedVersions: previous,
    },
  };
}

/** Wires CRDs into the store: admission (validation + status) and serving on commit. */
export function attachCrdLifecycle(store: MemoryStore, registry: ResourceRegistry): void {
  store.addAdmissionHooks([
    {
      gr: CRD_GR,
      operations: ['CREATE', 'UPDATE'],
      admit(_op, obj, old) {
        validateCrd(obj);
        return withStatus(obj, old);
      },
    },
  ]);
  store.subscribeRaw((ev) => {
    if (ev.gr.group !== CRD_GR.group || ev.gr.resource !== CRD_GR.resource) return;
    if (ev.type === 'DELETED') {
      const spec = ev.object.spec as CrdSpec;
      const gr = { group: spec.group, resource: spec.names.plural };
      for (const o of store.listRefs(gr)) {
        try {
          store.deleteRef(gr, o.metadata.namespace, o.metadata.name!);
        } catch {
          /* already gone */
        }
      }
      registry.removeCrd(ev.object);
    } else if (!ev.object.metadata.deletionTimestamp) {
      registry.installCrd(ev.object);
    }
  });
}

/**
 * The documents of a YAML file. The Kruise CRDs are large (up to 180 KB each) and YAML parsing
 * dominated sandbox start, so parsed files are cached as JSON in the temp folder, keyed by content hash.
 */
function parseYamlCached(path: string): Array<KubeObject | null> {
  const text = readFileSync(path, 'utf8');
  const dir = join(tmpdir(), 'kruise-sandbox-yaml-cache');
  const cached = join(dir, `${createHash('sha256').update(text).digest('hex').slice(0, 32)}.json`);
  try {
    return JSON.parse(readFileSync(cached, 'utf8')) as Array<KubeObject | null>;
  } catch {
    /* not cached yet */
  }
  const docs = parseAllDocuments(text).map((doc) => {
    if (doc.errors.length) throw new Error(`${path}: ${doc.errors[0]!.message.split('\n')[0]}`);
    return doc.toJS() as KubeObject | null;
  });
  try {
    mkdirSync(dir, { recursive: true });
    const tmp = `${cached}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(docs));
    renameSync(tmp, cached);
  } catch {
    /* a cache is optional */
  }
  return docs;
}

/** Every CustomResourceDefinition in the YAML/JSON files of `dir` (sorted by file name). */
export async function readCrdFolder(dir: string): Promise<KubeObject[]> {
  let files: string[];
  try {
    files = readdirSync(dir).sort();
  } catch (err) {
    throw new Error(`cannot read the CRD folder ${dir}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const out: KubeObject[] = [];
  for (const f of files) {
    const path = join(dir, f);
    if (!/\.(ya?ml|json)$/.test(f) || !statSync(path).isFile()) continue;
    for (const o of parseYamlCached(path)) {
      if (o && o.kind === 'CustomResourceDefinition') out.push(o);
    }
  }
  if (out.length === 0) throw new Error(`no CustomResourceDefinition found in ${dir}`);
  return out;
}

export function installCrds(store: MemoryStore, crds: KubeObject[]): void {
  for (const crd of crds) {
    const existing = store.getRef(CRD_GR, undefined, crd.metadata.name!);
    if (existing) store.updateRef(CRD_GR, { ...structuredClone(crd), metadata: { ...crd.metadata, resourceVersion: existing.metadata.resourceVersion } });
    else store.createRef(CRD_GR, structuredClone(crd));
  }
}
