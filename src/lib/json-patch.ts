// RFC 6902 JSON patch (add, remove, replace, move, copy, test; RFC 6901 pointers) and RFC 7396 JSON
// merge patch, pure, for every side that applies one: the sandbox's PATCH (server/patch/json-patch.ts
// turns a JsonPatchError into the answer kube-apiserver gives) and kubectl's --overrides (overrides.ts).
// Operations apply in order to a copy; the first that fails throws, its message naming the path.
import { jsonEqual } from './json-equal';

type Json = unknown;
type Obj = Record<string, Json>;

/**
 * Why a JSON patch was refused: the patch itself is malformed (not a list, an operation without a string
 * op/path, a pointer not starting with "/", an unknown op), or it does not apply to this document.
 */
export type JsonPatchFault = 'not-a-list' | 'bad-operation' | 'bad-pointer' | 'unknown-op' | 'not-applicable';

export class JsonPatchError extends Error {
  constructor(
    readonly fault: JsonPatchFault,
    message: string,
    /** The pointer (bad-pointer) or op (unknown-op) at fault. */
    readonly subject = '',
  ) {
    super(message);
    this.name = 'JsonPatchError';
  }
}

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
const isContainer = (v: Json): v is Obj | Json[] => typeof v === 'object' && v !== null;

function notApplicable(message: string): never {
  throw new JsonPatchError('not-applicable', message);
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new JsonPatchError('bad-pointer', `invalid JSON pointer "${pointer}": must start with "/"`, pointer);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function arrayIndex(arr: Json[], token: string, forAdd: boolean, path: string): number {
  if (forAdd && token === '-') return arr.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) notApplicable(`invalid array index "${token}" in "${path}"`);
  const i = Number(token);
  if (i > arr.length || (!forAdd && i === arr.length)) notApplicable(`array index ${i} out of bounds in "${path}"`);
  return i;
}

/** The container holding the last token of `tokens`. */
function parentOf(doc: Json, tokens: string[], path: string): Obj | Json[] {
  let cur = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[arrayIndex(cur, t, false, path)];
    else if (isContainer(cur) && hasOwn(cur, t)) cur = (cur as Obj)[t];
    else notApplicable(`path "${path}" does not exist in the object`);
  }
  if (!isContainer(cur)) notApplicable(`path "${path}" does not exist in the object`);
  return cur;
}

function getAt(doc: Json, path: string): Json {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return doc;
  const parent = parentOf(doc, tokens, path);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) return parent[arrayIndex(parent, last, false, path)];
  if (!hasOwn(parent, last)) notApplicable(`path "${path}" does not exist in the object`);
  return parent[last];
}

function addAt(doc: Json, path: string, value: Json): Json {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return value;
  const parent = parentOf(doc, tokens, path);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, true, path), 0, value);
  else parent[last] = value;
  return doc;
}

function removeAt(doc: Json, path: string): Json {
  const tokens = parsePointer(path);
  if (tokens.length === 0) notApplicable('cannot remove the whole object');
  const parent = parentOf(doc, tokens, path);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, false, path), 1);
  else {
    if (!hasOwn(parent, last)) notApplicable(`path "${path}" does not exist in the object`);
    delete parent[last];
  }
  return doc;
}

/** RFC 6902: `ops` (a JSON array of operations) applied to a copy of `doc`; throws JsonPatchError. */
export function jsonPatch(doc: Json, ops: Json): Json {
  if (!Array.isArray(ops)) throw new JsonPatchError('not-a-list', 'a json patch must be a JSON array of operations');
  let out = structuredClone(doc);
  for (const op of ops) {
    if (!isContainer(op) || Array.isArray(op)) throw new JsonPatchError('bad-operation', 'every json patch operation must be an object');
    if (typeof op.path !== 'string') throw new JsonPatchError('bad-operation', 'json patch operation is missing a string "path"');
    if (typeof op.op !== 'string') throw new JsonPatchError('bad-operation', `unexpected json patch operation ${JSON.stringify(op.op ?? null)}`);
    const path = op.path;
    if ((op.op === 'add' || op.op === 'replace' || op.op === 'test') && !hasOwn(op, 'value')) notApplicable(`json patch "${op.op}" at "${path}" has no value`);
    const from = (): string => (typeof op.from === 'string' ? op.from : notApplicable(`json patch "${op.op}" at "${path}" has no "from"`));
    switch (op.op) {
      case 'add':
        out = addAt(out, path, structuredClone(op.value));
        break;
      case 'remove':
        out = removeAt(out, path);
        break;
      case 'replace':
        getAt(out, path);
        out = parsePointer(path).length === 0 ? structuredClone(op.value) : addAt(removeAt(out, path), path, structuredClone(op.value));
        break;
      case 'move': {
        const source = from();
        const value = getAt(out, source);
        out = addAt(removeAt(out, source), path, value);
        break;
      }
      case 'copy':
        out = addAt(out, path, structuredClone(getAt(out, from())));
        break;
      case 'test':
        if (!jsonEqual(getAt(out, path), op.value)) notApplicable(`testing value at "${path}" failed`);
        break;
      default:
        throw new JsonPatchError('unknown-op', `unexpected json patch operation ${JSON.stringify(op.op)}`, op.op);
    }
  }
  return out;
}

/** RFC 7396: objects merge recursively, null deletes, anything else replaces. */
export function mergePatch(target: Json, patch: Json): Json {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return structuredClone(patch);
  const base: Obj = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Obj) } : {};
  for (const [k, v] of Object.entries(patch as Obj)) {
    if (v === null) delete base[k];
    else base[k] = mergePatch(base[k], v);
  }
  return base;
}
