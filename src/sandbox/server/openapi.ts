// Just enough OpenAPI v3 for kubectl 1.32: per group-version documents whose PATCH operations
// declare the `fieldValidation` parameter (so kubectl leaves validation to the server, which
// checks custom resources against their schemas) and list the patch types each kind accepts.
// Built-in kinds do not advertise strategic merge here, so kubectl apply computes it from
// its own compiled-in types. /openapi/v2 is not served (404), which kubectl tolerates.
import { createHash } from 'node:crypto';
import type { ResourceRegistry } from './registry';
import { groupVersion, type JsonSchema } from './resource-types';

function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

export class OpenApiDocs {
  private cacheGen = -1;
  private docs = new Map<string, { json: string; hash: string }>();

  constructor(private readonly registry: ResourceRegistry) {}

  private rebuild(): void {
    if (this.cacheGen === this.registry.generation) return;
    this.cacheGen = this.registry.generation;
    this.docs.clear();
    const byGv = new Map<string, Array<{ group: string; version: string; resource: string; kind: string; namespaced: boolean; builtin: boolean; schema?: JsonSchema }>>();
    for (const t of this.registry.all()) {
      for (const v of t.versions) {
        if (!v.served) continue;
        const k = gvPath(t.group, v.name);
        if (!byGv.has(k)) byGv.set(k, []);
        byGv.get(k)!.push({ group: t.group, version: v.name, resource: t.resource, kind: t.kind, namespaced: t.namespaced, builtin: t.builtin, schema: v.schema });
      }
    }
    for (const [k, kinds] of byGv) {
      const paths: Record<string, unknown> = {};
      const schemas: Record<string, unknown> = {};
      for (const x of kinds) {
        const gvk = { group: x.group, version: x.version, kind: x.kind };
        const ref = `${x.group ? x.group.split('.').reverse().join('.') : 'io.k8s.api.core'}.${x.version}.${x.kind}`;
        schemas[ref] = { ...(x.schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }), 'x-kubernetes-group-version-kind': [gvk] };
        const content: Record<string, unknown> = {
          'application/json-patch+json': { schema: { type: 'object' } },
          'application/merge-patch+json': { schema: { type: 'object' } },
          'application/apply-patch+yaml': { schema: { type: 'object' } },
        };
        const params = [
          { name: 'dryRun', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'fieldManager', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } },
        ];
        const item = {
          get: { operationId: `read${x.kind}`, 'x-kubernetes-action': 'get', 'x-kubernetes-group-version-kind': gvk, responses: { '200': { content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } } } } },
          put: { operationId: `replace${x.kind}`, 'x-kubernetes-action': 'put', 'x-kubernetes-group-version-kind': gvk, parameters: params, requestBody: { content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } } }, responses: { '200': {} } },
          patch: { operationId: `patch${x.kind}`, 'x-kubernetes-action': 'patch', 'x-kubernetes-group-version-kind': gvk, parameters: params, requestBody: { content }, responses: { '200': {} } },
          delete: { operationId: `delete${x.kind}`, 'x-kubernetes-action': 'delete', 'x-kubernetes-group-version-kind': gvk, responses: { '200': {} } },
        };
        const base = `/${k}${x.namespaced ? '/namespaces/{namespace}' : ''}/${x.resource}`;
        paths[`${base}/{name}`] = item;
        paths[base] = {
          post: { operationId: `create${x.kind}`, 'x-kubernetes-action': 'post', 'x-kubernetes-group-version-kind': gvk, parameters: params, requestBody: { content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } } }, responses: { '201': {} } },
          get: { operationId: `list${x.kind}`, 'x-kubernetes-action': 'list', 'x-kubernetes-group-version-kind': gvk, responses: { '200': {} } },
        };
      }
      const doc = { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.32.0' }, paths, components: { schemas } };
      const json = JSON.stringify(doc);
      this.docs.set(k, { json, hash: createHash('sha512').update(json).digest('hex').slice(0, 128).toUpperCase() });
    }
  }

  index(): object {
    this.rebuild();
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const [k, d] of this.docs) paths[k] = { serverRelativeURL: `/openapi/v3/${k}?hash=${d.hash}` };
    return { paths };
  }

  /** The document of `api/v1` or `apis/<g>/<v>`, as JSON text, and its content hash. */
  document(path: string): { json: string; hash: string } | undefined {
    this.rebuild();
    return this.docs.get(path);
  }
}

export { groupVersion };
