// Label and field selectors as the API server parses them (the query-string syntax,
// not the LabelSelector struct): `a=b,c!=d,e in (x,y),f notin (z),g,!h`.
import type { KubeObject } from '../../kruise/types';
import { ApiError } from './errors';
import { labelMatcher as parseMatcher, SelectorSyntaxError, splitTerms, type LabelMatcher } from '../../lib/label-selector';

export type { LabelMatcher };
/** The API server's 400 for a selector it cannot parse. */
export function labelMatcher(selector: string | undefined): LabelMatcher {
  try {
    return parseMatcher(selector);
  } catch (err) {
    if (err instanceof SelectorSyntaxError) throw ApiError.badRequest(err.message);
    throw err;
  }
}

interface FieldRequirement {
  path: string;
  negate: boolean;
  value: string;
}

/** Fields every kind supports, plus the per-kind ones kube offers (pods: spec.nodeName, status.phase...). */
const FIELD_GETTERS: Record<string, (o: KubeObject) => unknown> = {
  'metadata.name': (o) => o.metadata.name,
  'metadata.namespace': (o) => o.metadata.namespace ?? '',
  'spec.nodeName': (o) => (o.spec as { nodeName?: string } | undefined)?.nodeName ?? '',
  'spec.restartPolicy': (o) => (o.spec as { restartPolicy?: string } | undefined)?.restartPolicy ?? '',
  'spec.schedulerName': (o) => (o.spec as { schedulerName?: string } | undefined)?.schedulerName ?? '',
  'spec.serviceAccountName': (o) => (o.spec as { serviceAccountName?: string } | undefined)?.serviceAccountName ?? '',
  'spec.unschedulable': (o) => String((o.spec as { unschedulable?: boolean } | undefined)?.unschedulable ?? false),
  'status.phase': (o) => (o.status as { phase?: string } | undefined)?.phase ?? '',
  'status.podIP': (o) => (o.status as { podIP?: string } | undefined)?.podIP ?? '',
  'status.nominatedNodeName': (o) => (o.status as { nominatedNodeName?: string } | undefined)?.nominatedNodeName ?? '',
  'involvedObject.name': (o) => (o.involvedObject as { name?: string } | undefined)?.name ?? '',
  'involvedObject.namespace': (o) => (o.involvedObject as { namespace?: string } | undefined)?.namespace ?? '',
  'involvedObject.kind': (o) => (o.involvedObject as { kind?: string } | undefined)?.kind ?? '',
  'involvedObject.uid': (o) => (o.involvedObject as { uid?: string } | undefined)?.uid ?? '',
  'involvedObject.apiVersion': (o) => (o.involvedObject as { apiVersion?: string } | undefined)?.apiVersion ?? '',
  'involvedObject.resourceVersion': (o) => (o.involvedObject as { resourceVersion?: string } | undefined)?.resourceVersion ?? '',
  'involvedObject.fieldPath': (o) => (o.involvedObject as { fieldPath?: string } | undefined)?.fieldPath ?? '',
  type: (o) => (o as { type?: string }).type ?? '',
  reason: (o) => (o as { reason?: string }).reason ?? '',
  // Events (pkg/registry/core/event/strategy.go ToSelectableFields): `source` falls back to the reporting controller.
  reportingComponent: (o) => (o as { reportingComponent?: string }).reportingComponent ?? '',
  source: (o) => (o.source as { component?: string } | undefined)?.component || ((o as { reportingComponent?: string }).reportingComponent ?? ''),
};

export type FieldMatcher = (o: KubeObject) => boolean;

export function fieldMatcher(selector: string | undefined, resourceLabel = 'the resource'): FieldMatcher {
  if (!selector || selector.trim() === '') return () => true;
  const reqs: FieldRequirement[] = [];
  for (const term of splitTerms(selector)) {
    const m = term.match(/^([^=!]+?)\s*(==|=|!=)\s*(.*)$/);
    if (!m) throw ApiError.badRequest(`invalid selector: '${selector}'; can't understand '${term}'`);
    const path = m[1]!.trim();
    if (!FIELD_GETTERS[path]) throw ApiError.badRequest(`field label not supported: ${path}`);
    reqs.push({ path, negate: m[2] === '!=', value: m[3]!.trim() });
  }
  void resourceLabel;
  return (o) => reqs.every((r) => (String(FIELD_GETTERS[r.path]!(o)) === r.value) !== r.negate);
}
