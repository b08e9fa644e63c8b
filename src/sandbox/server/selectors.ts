// Label and field selectors as the API server parses them (the query-string syntax,
// not the LabelSelector struct): `a=b,c!=d,e in (x,y),f notin (z),g,!h`.
import type { KubeObject } from '../../kruise/types';
import { ApiError } from './errors';

export type LabelRequirement =
  | { key: string; op: 'eq' | 'neq'; value: string }
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | 'notexists' }
  | { key: string; op: 'gt' | 'lt'; value: number };

export type LabelMatcher = (labels: Record<string, string> | undefined) => boolean;

/** Splits on commas that are not inside parentheses. */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      terms.push(cur);
      cur = '';
    } else cur += ch;
  }
  terms.push(cur);
  return terms.map((t) => t.trim()).filter((t) => t !== '');
}

const KEY = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?\/)?[a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?$/;

const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function checkValue(value: string, selector: string): string {
  if (!VALUE.test(value) || value.length > 63) throw ApiError.badRequest(`unable to parse requirement: invalid label value: "${value}" in selector "${selector}"`);
  return value;
}

function checkKey(key: string, selector: string): string {
  if (!KEY.test(key) || key.length > 316) throw ApiError.badRequest(`unable to parse requirement: invalid label key "${key}" in selector "${selector}"`);
  return key;
}

export function parseLabelSelector(selector: string | undefined): LabelRequirement[] {
  if (!selector || selector.trim() === '') return [];
  const reqs: LabelRequirement[] = [];
  for (const term of splitTerms(selector)) {
    let m: RegExpMatchArray | null;
    if ((m = term.match(/^(\S+?)\s+(in|notin)\s*\((.*)\)$/))) {
      const values = m[3]!.split(',').map((v) => checkValue(v.trim(), selector)).filter((v) => v !== '');
      reqs.push({ key: checkKey(m[1]!, selector), op: m[2] as 'in' | 'notin', values });
    } else if ((m = term.match(/^!\s*(\S+)$/))) {
      reqs.push({ key: checkKey(m[1]!, selector), op: 'notexists' });
    } else if ((m = term.match(/^([^=!<>\s]+)\s*(==|=|!=)\s*(\S*)$/))) {
      reqs.push({ key: checkKey(m[1]!, selector), op: m[2] === '!=' ? 'neq' : 'eq', value: checkValue(m[3]!, selector) });
    } else if ((m = term.match(/^([^=!<>\s]+)\s*([<>])\s*(-?\d+)$/))) {
      reqs.push({ key: checkKey(m[1]!, selector), op: m[2] === '>' ? 'gt' : 'lt', value: Number(m[3]) });
    } else if ((m = term.match(/^([^=!<>\s(),]+)$/))) {
      reqs.push({ key: checkKey(m[1]!, selector), op: 'exists' });
    } else {
      throw ApiError.badRequest(`unable to parse requirement: found '${term}', expected: in, notin, =, ==, !=, gt, lt`);
    }
  }
  return reqs;
}

export function matchesLabels(reqs: LabelRequirement[], labels: Record<string, string> | undefined): boolean {
  for (const r of reqs) {
    const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
    const v = has ? labels![r.key]! : undefined;
    switch (r.op) {
      case 'eq':
        if (v !== r.value) return false;
        break;
      case 'neq':
        if (v === r.value) return false;
        break;
      case 'in':
        if (v === undefined || !r.values.includes(v)) return false;
        break;
      case 'notin':
        if (v !== undefined && r.values.includes(v)) return false;
        break;
      case 'exists':
        if (!has) return false;
        break;
      case 'notexists':
        if (has) return false;
        break;
      case 'gt':
      case 'lt': {
        const n = Number(v);
        if (v === undefined || !Number.isFinite(n)) return false;
        if (r.op === 'gt' ? !(n > r.value) : !(n < r.value)) return false;
        break;
      }
    }
  }
  return true;
}

export function labelMatcher(selector: string | undefined): LabelMatcher {
  const reqs = parseLabelSelector(selector);
  return reqs.length === 0 ? () => true : (labels) => matchesLabels(reqs, labels);
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
