// Label selectors in the query-string syntax the API server parses (not the LabelSelector struct):
// `a=b,c!=d,e in (x,y),f notin (z),g,!h`. Shared by the sandbox's server and the CLI's shared watches
// (src/kube/shared-watches.ts), which match the objects of one list against several selectors.

/** A selector the API server would refuse; the sandbox turns it into its 400. */
export class SelectorSyntaxError extends Error {}

export type LabelRequirement =
  | { key: string; op: 'eq' | 'neq'; value: string }
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | 'notexists' }
  | { key: string; op: 'gt' | 'lt'; value: number };

export type LabelMatcher = (labels: Record<string, string> | undefined) => boolean;

/**
 * Splits at the commas outside parentheses (`a in (x,y),b` → `a in (x,y)`, `b`); undefined when the
 * parentheses do not balance or nest deeper than `maxDepth`.
 */
export function splitTopLevel(text: string, maxDepth = Infinity): string[] | undefined {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (depth < 0 || depth > maxDepth) return undefined;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (depth !== 0) return undefined;
  parts.push(cur);
  return parts;
}

/** The requirements of a selector, trimmed, empty ones dropped (the API server's split). */
export function splitTerms(text: string): string[] {
  return (splitTopLevel(text) ?? [text]).map((t) => t.trim()).filter((t) => t !== '');
}

const KEY = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?\/)?[a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?$/;

const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function checkValue(value: string, selector: string): string {
  if (!VALUE.test(value) || value.length > 63) throw new SelectorSyntaxError(`unable to parse requirement: invalid label value: "${value}" in selector "${selector}"`);
  return value;
}

function checkKey(key: string, selector: string): string {
  if (!KEY.test(key) || key.length > 316) throw new SelectorSyntaxError(`unable to parse requirement: invalid label key "${key}" in selector "${selector}"`);
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
      throw new SelectorSyntaxError(`unable to parse requirement: found '${term}', expected: in, notin, =, ==, !=, gt, lt`);
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
