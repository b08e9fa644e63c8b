// kubectl's JSONPath template dialect (k8s.io/client-go/util/jsonpath): text with
// {expressions}, {range ...}{end}, filters [?(@.x=="y")], unions, slices, "..",
// quoted keys and string literals. Results of one expression are space-separated.

type Node =
  | { type: 'text'; value: string }
  | { type: 'expr'; path: Segment[] }
  | { type: 'range'; path: Segment[]; body: Node[] };

type Segment =
  | { kind: 'root' } // $ or @ at start
  | { kind: 'field'; name: string } // .name or ['name']
  | { kind: 'wildcard' } // .* or [*]
  | { kind: 'recursive' } // ..
  | { kind: 'index'; indices: Array<number | { start?: number; end?: number; step?: number }> }
  | { kind: 'fields'; names: string[] } // ['a','b']
  | { kind: 'filter'; left: Segment[]; op?: string; right?: Segment[] | string | number | boolean }
  | { kind: 'literal'; value: string };

export class JsonPathError extends Error {}

/** Index of the bracket closing the one at `from` (`{`…`}` or `[`…`]`), skipping quoted strings; -1 when unclosed. */
function closingBracket(s: string, from: number, open: string, close: string): number {
  let depth = 0;
  let inStr: string | null = null;
  for (let j = from; j < s.length; j++) {
    const c = s[j]!;
    if (inStr) {
      if (c === '\\') j++;
      else if (c === inStr) inStr = null;
      continue;
    }
    if (c === '"' || c === "'") inStr = c;
    else if (c === open) depth++;
    else if (c === close && --depth === 0) return j;
  }
  return -1;
}

function splitTemplate(template: string): Array<{ text?: string; expr?: string }> {
  const parts: Array<{ text?: string; expr?: string }> = [];
  let i = 0;
  let text = '';
  while (i < template.length) {
    const ch = template[i]!;
    if (ch === '{') {
      if (text) parts.push({ text });
      text = '';
      const j = closingBracket(template, i, '{', '}');
      if (j === -1) throw new JsonPathError(`unclosed action in template "${template}"`);
      parts.push({ expr: template.slice(i + 1, j).trim() });
      i = j + 1;
    } else {
      text += ch;
      i++;
    }
  }
  if (text) parts.push({ text });
  return parts;
}

function unquote(s: string): string {
  const q = s[0];
  const body = s.slice(1, -1);
  if (q === '"') {
    try {
      return JSON.parse(s) as string;
    } catch {
      return body;
    }
  }
  return body.replace(/\\'/g, "'");
}

function parseLiteral(v: string): string | number | boolean {
  const t = v.trim();
  if ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'"))) return unquote(t);
  if (t === 'true') return true;
  if (t === 'false') return false;
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  throw new JsonPathError(`unrecognized literal ${t}`);
}

export function parsePath(expr: string): Segment[] {
  const segs: Segment[] = [];
  let i = 0;
  const s = expr.trim();
  if (s.startsWith('"') || s.startsWith("'")) return [{ kind: 'literal', value: unquote(s) }];
  segs.push({ kind: 'root' });
  if (s[0] === '$' || s[0] === '@') i = 1;
  while (i < s.length) {
    const c = s[i]!;
    if (c === '.') {
      if (s[i + 1] === '.') {
        segs.push({ kind: 'recursive' });
        i += 2;
        if (s[i] === '[') continue;
      } else i++;
      if (s[i] === '*') {
        segs.push({ kind: 'wildcard' });
        i++;
        continue;
      }
      let name = '';
      while (i < s.length && s[i] !== '.' && s[i] !== '[') {
        if (s[i] === '\\' && i + 1 < s.length) {
          name += s[i + 1];
          i += 2;
          continue;
        }
        name += s[i];
        i++;
      }
      if (name) segs.push({ kind: 'field', name });
      continue;
    }
    if (c === '[') {
      const j = closingBracket(s, i, '[', ']');
      if (j === -1) throw new JsonPathError(`unterminated array notation in "${expr}"`);
      const inner = s.slice(i + 1, j).trim();
      i = j + 1;
      if (inner === '*') segs.push({ kind: 'wildcard' });
      else if (inner.startsWith('?(') && inner.endsWith(')')) segs.push(parseFilter(inner.slice(2, -1)));
      else if (inner.startsWith("'") || inner.startsWith('"')) {
        segs.push({ kind: 'fields', names: inner.split(/\s*,\s*/).map(unquote) });
      } else {
        const indices = inner.split(',').map((part) => {
          const p = part.trim();
          if (p.includes(':')) {
            const [a, b, c2] = p.split(':').map((x) => (x.trim() === '' ? undefined : Number(x)));
            return { start: a, end: b, step: c2 };
          }
          if (!/^-?\d+$/.test(p)) throw new JsonPathError(`invalid array index ${p}`);
          return Number(p);
        });
        segs.push({ kind: 'index', indices });
      }
      continue;
    }
    // bare name at the start ("status.replicas" without the dot)
    let name = '';
    while (i < s.length && s[i] !== '.' && s[i] !== '[') name += s[i++];
    segs.push({ kind: 'field', name });
  }
  return segs;
}

function parseFilter(body: string): Segment {
  const m = /^(.*?)\s*(==|!=|<=|>=|<|>|=~)\s*(.*)$/.exec(body);
  if (!m) return { kind: 'filter', left: parsePath(body) };
  const right = m[3]!.trim();
  const rhs = right.startsWith('@') || right.startsWith('$') ? parsePath(right) : parseLiteral(right);
  return { kind: 'filter', left: parsePath(m[1]!), op: m[2], right: rhs };
}

function evalPath(segs: Segment[], current: unknown): unknown[] {
  let values: unknown[] = [current];
  for (const seg of segs) {
    const next: unknown[] = [];
    for (const v of values) {
      switch (seg.kind) {
        case 'root':
          next.push(v);
          break;
        case 'literal':
          next.push(seg.value);
          break;
        case 'field':
          if (v && typeof v === 'object' && !Array.isArray(v) && seg.name in (v as object)) next.push((v as Record<string, unknown>)[seg.name]);
          break;
        case 'fields':
          if (v && typeof v === 'object') for (const n of seg.names) if (n in (v as object)) next.push((v as Record<string, unknown>)[n]);
          break;
        case 'wildcard':
          if (Array.isArray(v)) next.push(...v);
          else if (v && typeof v === 'object') next.push(...Object.values(v as object));
          break;
        case 'recursive': {
          const walk = (x: unknown): void => {
            next.push(x);
            if (Array.isArray(x)) x.forEach(walk);
            else if (x && typeof x === 'object') Object.values(x as object).forEach(walk);
          };
          walk(v);
          break;
        }
        case 'index':
          if (!Array.isArray(v)) break;
          for (const idx of seg.indices) {
            if (typeof idx === 'number') {
              const k = idx < 0 ? v.length + idx : idx;
              if (k < 0 || k >= v.length) throw new JsonPathError(`array index out of bounds: index ${idx}, length ${v.length}`);
              next.push(v[k]);
            } else {
              const step = idx.step ?? 1;
              let start = idx.start ?? 0;
              let end = idx.end ?? v.length;
              if (start < 0) start += v.length;
              if (end < 0) end += v.length;
              end = Math.min(end, v.length);
              for (let k = Math.max(0, start); k < end; k += step) next.push(v[k]);
            }
          }
          break;
        case 'filter': {
          const items = Array.isArray(v) ? v : v && typeof v === 'object' ? Object.values(v as object) : [];
          for (const item of items) {
            const lefts = evalPath(seg.left, item);
            if (!seg.op) {
              if (lefts.length > 0) next.push(item);
              continue;
            }
            const rights = Array.isArray(seg.right) ? evalPath(seg.right as Segment[], item) : [seg.right];
            if (lefts.length && rights.length && compare(lefts[0], seg.op, rights[0])) next.push(item);
          }
          break;
        }
      }
    }
    values = next;
  }
  return values;
}

function compare(a: unknown, op: string, b: unknown): boolean {
  switch (op) {
    case '==':
      return a === b || String(a) === String(b);
    case '!=':
      return !(a === b || String(a) === String(b));
    case '<':
      return Number(a) < Number(b);
    case '>':
      return Number(a) > Number(b);
    case '<=':
      return Number(a) <= Number(b);
    case '>=':
      return Number(a) >= Number(b);
    case '=~':
      return new RegExp(String(b)).test(String(a));
    default:
      return false;
  }
}

function parseNodes(parts: Array<{ text?: string; expr?: string }>, pos: { i: number }, inRange: boolean): Node[] {
  const nodes: Node[] = [];
  while (pos.i < parts.length) {
    const p = parts[pos.i++]!;
    if (p.text !== undefined) {
      nodes.push({ type: 'text', value: p.text });
      continue;
    }
    const e = p.expr!;
    if (e === 'end') {
      if (!inRange) throw new JsonPathError('not in range, nothing to end');
      return nodes;
    }
    if (e.startsWith('range ')) {
      const path = parsePath(e.slice(6));
      const body = parseNodes(parts, pos, true);
      nodes.push({ type: 'range', path, body });
      continue;
    }
    nodes.push({ type: 'expr', path: parsePath(e) });
  }
  if (inRange) throw new JsonPathError('range without matching end');
  return nodes;
}

function stringify(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** A compiled template; a missing key prints nothing, `execute` throws JsonPathError on an array index out of bounds. */
export interface JsonPathTemplate {
  execute(data: unknown): string;
}

export function compileJsonPath(template: string): JsonPathTemplate {
  // kubectl accepts a bare path without braces ("-o jsonpath=.status.replicas").
  const t = template.includes('{') ? template : `{${template}}`;
  const nodes = parseNodes(splitTemplate(t), { i: 0 }, false);
  const run = (ns: Node[], current: unknown): string => {
    let out = '';
    for (const n of ns) {
      if (n.type === 'text') out += n.value;
      else if (n.type === 'expr') out += evalPath(n.path, current).map(stringify).join(' ');
      else for (const item of evalPath(n.path, current).flatMap((x) => (Array.isArray(x) ? x : [x]))) out += run(n.body, item);
    }
    return out;
  };
  return { execute: (data) => run(nodes, data) };
}

/** Compiles and runs a template in one call. */
export function evaluateJsonPath(template: string, data: unknown): string {
  return compileJsonPath(template).execute(data);
}
