// KYAML (KEP-5295; kubectl -o kyaml, on by default since 1.35): YAML in flow style, so that no
// indentation or implicit typing decides what a value is. Following sigs.k8s.io/yaml/kyaml's
// conventions: a `---` header, `{}` for maps and `[]` for lists with a trailing comma after each
// item, strings always double-quoted, keys quoted only where a YAML reader could take them for
// something else, a list of maps cuddled (`[{ ... }, { ... }]`). Any YAML parser reads it back.

/** One KYAML document (with its `---` header and a final newline). */
export function kyamlDocument(value: unknown): string {
  return `---\n${render(value, '')}\n`;
}

function render(v: unknown, indent: string): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return quote(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : quote(String(v));
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    if (v.every(isNonEmptyMap)) return `[${v.map((item) => renderMap(item as Record<string, unknown>, indent)).join(', ')}]`;
    const inner = `${indent}  `;
    return `[\n${v.map((item) => `${inner}${render(item, inner)},\n`).join('')}${indent}]`;
  }
  if (typeof v === 'object') return renderMap(v as Record<string, unknown>, indent);
  return quote(String(v));
}

function renderMap(o: Record<string, unknown>, indent: string): string {
  const entries = Object.entries(o).filter(([, x]) => x !== undefined);
  if (entries.length === 0) return '{}';
  const inner = `${indent}  `;
  return `{\n${entries.map(([k, x]) => `${inner}${key(k)}: ${render(x, inner)},\n`).join('')}${indent}}`;
}

function isNonEmptyMap(v: unknown): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.values(v).some((x) => x !== undefined);
}

// Words a YAML 1.1 reader (kubectl's sigs.k8s.io/yaml among them) would take for a boolean or null.
const AMBIGUOUS = /^(?:y|yes|n|no|true|false|on|off|null|~)$/i;
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_./-]*$/;

function key(k: string): string {
  return PLAIN_KEY.test(k) && !AMBIGUOUS.test(k) ? k : quote(k);
}

/**
 * A YAML double-quoted scalar. JSON's escapes are YAML's too; characters YAML reads as line breaks
 * or may not carry unescaped (NEL, LS, PS, BOM, DEL and the C1 controls) are escaped as well.
 */
function quote(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\u009f\u2028\u2029\ufeff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
