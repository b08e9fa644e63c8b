// A fast reader for the YAML subset kubeconfig files are written in (block
// mappings and sequences of plain or quoted scalars, as kubectl, kind and the
// sandbox write them). Importing the `yaml` package costs ~10 ms per command;
// anything outside the subset returns undefined and the caller falls back to it.

type Value = string | boolean | null | Value[] | { [key: string]: Value };

interface Line {
  indent: number;
  text: string;
  no: number;
}

class Unsupported extends Error {}

function stripComment(s: string): string {
  // A comment starts at "#" after whitespace, outside quotes.
  let quote: string | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      if (i === 0 || /[\s:[{,-]/.test(s[i - 1]!)) quote = c;
    } else if (c === '#' && (i === 0 || s[i - 1] === ' ' || s[i - 1] === '\t')) {
      return s.slice(0, i).trimEnd();
    }
  }
  if (quote) throw new Unsupported('unterminated quote');
  return s.trimEnd();
}

function scalar(raw: string): Value {
  const s = raw.trim();
  if (s === '' || s === '~' || s === 'null' || s === 'Null' || s === 'NULL') return null;
  if (s === 'true' || s === 'True' || s === 'TRUE') return true;
  if (s === 'false' || s === 'False' || s === 'FALSE') return false;
  if (s === '{}') return {};
  if (s === '[]') return [];
  const first = s[0]!;
  if (first === '"') {
    if (!s.endsWith('"') || s.length < 2) throw new Unsupported('quote');
    const body = s.slice(1, -1);
    if (/(?<!\\)"/.test(body.replace(/\\\\/g, ''))) throw new Unsupported('quote');
    return body.replace(/\\(["\\/nrt])/g, (_m, c: string) => ({ n: '\n', r: '\r', t: '\t' })[c] ?? c).replace(/\\./g, () => {
      throw new Unsupported('escape');
    });
  }
  if (first === "'") {
    if (!s.endsWith("'") || s.length < 2) throw new Unsupported('quote');
    const body = s.slice(1, -1);
    if (/'(?!')/.test(body.replace(/''/g, ''))) throw new Unsupported('quote');
    return body.replace(/''/g, "'");
  }
  // Flow collections, block scalars, anchors, aliases, tags, directives: leave to the full parser.
  if ('[{|>&*!%@`'.includes(first)) throw new Unsupported(`indicator ${first}`);
  if (/:\s|:$/.test(s) || s.startsWith('- ') || s === '-') throw new Unsupported('ambiguous plain scalar');
  // Numbers stay strings: every kubeconfig field is a string or a boolean.
  return s;
}

/** "key: rest" → [key, rest]; undefined when the line is not a mapping entry. */
function splitKey(text: string): [string, string] | undefined {
  const q = text[0];
  if (q === '"' || q === "'") {
    const end = text.indexOf(q, 1);
    if (end === -1 || text[end + 1] !== ':') return undefined;
    const after = text.slice(end + 2);
    if (after !== '' && !/^\s/.test(after)) return undefined;
    return [scalar(text.slice(0, end + 1)) as string, after.trim()];
  }
  const m = /^([^\s:#][^:]*?):(?:\s+|$)/.exec(text);
  if (!m) return undefined;
  if ('[]{},&*!|>%@`?'.includes(m[1]![0]!)) throw new Unsupported('complex key');
  return [m[1]!.trimEnd(), text.slice(m[0].length).trim()];
}

class Parser {
  private i = 0;
  constructor(private readonly lines: Line[]) {}

  parseDocument(): Value {
    if (this.lines.length === 0) return null;
    const v = this.block(this.lines[0]!.indent);
    if (this.i < this.lines.length) throw new Unsupported(`unexpected indentation at line ${this.lines[this.i]!.no}`);
    return v;
  }

  private block(indent: number): Value {
    const line = this.lines[this.i]!;
    if (line.indent !== indent) throw new Unsupported('indent');
    return line.text === '-' || line.text.startsWith('- ') ? this.sequence(indent) : this.mapping(indent);
  }

  private mapping(indent: number): { [key: string]: Value } {
    const out: { [key: string]: Value } = {};
    while (this.i < this.lines.length) {
      const line = this.lines[this.i]!;
      if (line.indent < indent) break;
      if (line.indent > indent) throw new Unsupported(`indentation at line ${line.no}`);
      if (line.text.startsWith('- ') || line.text === '-') break;
      const kv = splitKey(line.text);
      if (!kv) throw new Unsupported(`not a key at line ${line.no}`);
      const [key, rest] = kv;
      if (Object.prototype.hasOwnProperty.call(out, key)) throw new Unsupported('duplicate key');
      this.i++;
      out[key] = rest === '' ? this.nested(indent) : scalar(rest);
    }
    return out;
  }

  /** The value of a key with nothing after the colon: a nested block, or null. */
  private nested(parentIndent: number): Value {
    const next = this.lines[this.i];
    if (!next) return null;
    if (next.indent > parentIndent) return this.block(next.indent);
    // kubectl writes sequences under a key at the key's own indentation.
    if (next.indent === parentIndent && (next.text.startsWith('- ') || next.text === '-')) return this.sequence(parentIndent);
    return null;
  }

  private sequence(indent: number): Value[] {
    const out: Value[] = [];
    while (this.i < this.lines.length) {
      const line = this.lines[this.i]!;
      if (line.indent !== indent || !(line.text.startsWith('- ') || line.text === '-')) {
        if (line.indent > indent) throw new Unsupported(`indentation at line ${line.no}`);
        break;
      }
      const rest = line.text === '-' ? '' : line.text.slice(2).trimStart();
      if (rest === '') {
        this.i++;
        const next = this.lines[this.i];
        out.push(next && next.indent > indent ? this.block(next.indent) : null);
        continue;
      }
      const itemIndent = indent + (line.text.length - rest.length);
      if (splitKey(rest)) {
        // "- key: value" starts a mapping whose keys sit at the item's indentation.
        this.lines[this.i] = { indent: itemIndent, text: rest, no: line.no };
        out.push(this.mapping(itemIndent));
      } else {
        if (rest.startsWith('- ')) throw new Unsupported('nested inline sequence');
        out.push(scalar(rest));
        this.i++;
      }
    }
    return out;
  }
}

/** Parses kubeconfig text in the simple subset, or returns undefined to ask for the full parser. */
export function parseSimpleYaml(text: string): unknown {
  const lines: Line[] = [];
  const raw = text.split(/\r?\n/);
  let started = false;
  for (let n = 0; n < raw.length; n++) {
    const full = raw[n]!;
    if (full.includes('\t') && /^\s*\t/.test(full)) return undefined;
    const body = full.trimStart();
    if (body === '' || body.startsWith('#')) continue;
    if (body.startsWith('---') || body.startsWith('...') || body.startsWith('%')) {
      if (body === '---' && !started) continue;
      return undefined;
    }
    started = true;
    try {
      const stripped = stripComment(body);
      if (stripped === '') continue;
      lines.push({ indent: full.length - body.length, text: stripped, no: n + 1 });
    } catch {
      return undefined;
    }
  }
  try {
    return new Parser(lines).parseDocument();
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
}
