// The JSONPath subset CRD printer columns use: `.a.b`, `.a[0]`, `.a[*].b`,
// `.a[?(@.type=="Ready")].status`, with optional `{...}` braces around the expression.

type Step = { kind: 'field'; name: string } | { kind: 'index'; index: number } | { kind: 'all' } | { kind: 'filter'; path: string[]; op: '==' | '!='; value: string };

function parse(expr: string): Step[] {
  let e = expr.trim();
  if (e.startsWith('{') && e.endsWith('}')) e = e.slice(1, -1);
  if (e.startsWith('$')) e = e.slice(1);
  const steps: Step[] = [];
  let i = 0;
  while (i < e.length) {
    if (e[i] === '.') {
      i++;
      let name = '';
      while (i < e.length && e[i] !== '.' && e[i] !== '[') {
        // `\.` is a literal dot inside a key (label keys like crr\.apps\.kruise\.io/node-name).
        if (e[i] === '\\' && e[i + 1] === '.') {
          name += '.';
          i += 2;
        } else name += e[i++];
      }
      if (name) steps.push({ kind: 'field', name });
    } else if (e[i] === '[') {
      const end = e.indexOf(']', i);
      if (end < 0) break;
      const inner = e.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === '*') steps.push({ kind: 'all' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^'.*'$/.test(inner) || /^".*"$/.test(inner)) steps.push({ kind: 'field', name: inner.slice(1, -1) });
      else {
        const m = inner.match(/^\?\(@((?:\.[\w-]+)+)\s*(==|!=)\s*["']?([^"']*)["']?\)$/);
        if (m) steps.push({ kind: 'filter', path: m[1]!.split('.').filter(Boolean), op: m[2] as '==' | '!=', value: m[3]! });
      }
    } else {
      let name = '';
      while (i < e.length && e[i] !== '.' && e[i] !== '[') name += e[i++];
      if (name) steps.push({ kind: 'field', name });
    }
  }
  return steps;
}

const cache = new Map<string, Step[]>();

/** All values the path selects (empty when nothing matches). */
export function jsonPathValues(obj: unknown, expr: string): unknown[] {
  let steps = cache.get(expr);
  if (!steps) cache.set(expr, (steps = parse(expr)));
  let cur: unknown[] = [obj];
  for (const s of steps) {
    const next: unknown[] = [];
    for (const v of cur) {
      if (v === null || v === undefined) continue;
      if (s.kind === 'field') {
        if (typeof v === 'object' && !Array.isArray(v) && s.name in (v as object)) next.push((v as Record<string, unknown>)[s.name]);
      } else if (s.kind === 'index') {
        if (Array.isArray(v)) {
          const x = v[s.index < 0 ? v.length + s.index : s.index];
          if (x !== undefined) next.push(x);
        }
      } else if (s.kind === 'all') {
        if (Array.isArray(v)) next.push(...v);
        else if (typeof v === 'object') next.push(...Object.values(v as object));
      } else if (Array.isArray(v)) {
        for (const item of v) {
          let field: unknown = item;
          for (const p of s.path) field = field && typeof field === 'object' ? (field as Record<string, unknown>)[p] : undefined;
          const eq = String(field) === s.value;
          if (s.op === '==' ? eq : !eq) next.push(item);
        }
      }
    }
    cur = next;
  }
  return cur;
}
