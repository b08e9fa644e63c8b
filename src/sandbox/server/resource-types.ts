// What the server knows about each kind it serves: names, scope, versions, subresources,
// printer columns and schemas. Built-in kinds come from builtin-resources.ts, the rest
// from CustomResourceDefinitions (crd-registry.ts).

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  priority?: number;
  format?: string;
  description?: string;
}

/** The OpenAPI v3 subset CRDs use (JSONSchemaProps). */
export interface JsonSchema {
  type?: string;
  format?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  not?: JsonSchema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: unknown[];
  [key: string]: unknown;
}

export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface ServedVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: JsonSchema;
  printerColumns?: PrinterColumn[];
  status: boolean;
  scale?: ScaleSubresource;
  deprecated?: boolean;
  deprecationWarning?: string;
}

export interface ResourceType {
  group: string;
  resource: string;
  kind: string;
  listKind: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  versions: ServedVersion[];
  /** Name of the storage version, e.g. "v1beta1". */
  storageVersion: string;
  /** Name of the CRD that defines it; undefined for built-in kinds. */
  crd?: string;
  /** Strategic merge patch is only accepted for built-in kinds. */
  builtin: boolean;
  /** Extra subresources served for discovery only (e.g. pods/log, pods/eviction). */
  extraSubresources?: string[];
  /** Stored as another kind (events.k8s.io Events are core Events): read and written there, converted on the way. */
  storedAs?: { group: string; resource: string };
}

export const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function groupVersion(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/**
 * Kubernetes version priority: GA > beta > alpha, then higher major, then higher minor;
 * versions that do not look like kube versions come last, alphabetically.
 */
export function compareVersionPriority(a: string, b: string): number {
  const parse = (v: string): [number, number, number] | undefined => {
    const m = v.match(/^v(\d+)(?:(alpha|beta)(\d+))?$/);
    if (!m) return undefined;
    const level = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
    return [level, Number(m[1]), m[3] === undefined ? 0 : Number(m[3])];
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa && !pb) return -1;
  if (!pa && pb) return 1;
  if (!pa && !pb) return a < b ? -1 : a > b ? 1 : 0;
  for (let i = 0; i < 3; i++) if (pa![i] !== pb![i]) return pb![i]! - pa![i]!;
  return 0;
}
