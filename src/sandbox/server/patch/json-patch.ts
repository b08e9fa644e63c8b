// RFC 6902 JSON Patch (add, remove, replace, move, copy, test) with RFC 6901 pointers.
// Errors are what kube returns for a patch that cannot be applied: a malformed patch is a 400
// naming the problem; a patch that does not apply to the stored object (a failed `test`, a
// missing path) is a bare 422 Invalid. The apiserver drops json-patch's own explanation there
// (NewGenericServerResponse(422, ..., isUnexpectedResponse=false): generic message, no causes),
// and so does the sandbox, so clients are tested against the answer they will really get.
import { ApiError } from '../errors';

type Json = unknown;
interface Operation {
  op: string;
  path: string;
  from?: string;
  value?: Json;
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw ApiError.badRequest(`the server rejected our request due to an error in our request: invalid JSON pointer "${pointer}"`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function isContainer(v: Json): v is Record<string, Json> | Json[] {
  return typeof v === 'object' && v !== null;
}

/** The apiserver's whole answer to a JSON patch that does not apply. */
const NOT_APPLIED = 'the server rejected our request due to an error in our request';

// `op` and `why` say what json-patch would report; like the apiserver, the answer leaves them out.
function fail(_op: Operation, _why: string): never {
  throw new ApiError(422, 'Invalid', NOT_APPLIED, {});
}

function arrayIndex(op: Operation, arr: Json[], token: string, forAdd: boolean): number {
  if (forAdd && token === '-') return arr.length;
  if (!/^(0|[1-9]\d*)$/.test(token)) fail(op, `invalid array index "${token}" in path "${op.path}"`);
  const i = Number(token);
  if (i > arr.length || (!forAdd && i === arr.length)) fail(op, `index ${i} out of range in path "${op.path}"`);
  return i;
}

/** The container holding the last token of `tokens`, or a failure when a step is missing. */
function parentOf(doc: Json, tokens: string[], op: Operation): Json {
  let cur = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[arrayIndex(op, cur, t, false)];
    else if (isContainer(cur) && Object.prototype.hasOwnProperty.call(cur, t)) cur = (cur as Record<string, Json>)[t];
    else fail(op, `doc is missing path: "${op.path}": missing value`);
  }
  if (!isContainer(cur)) fail(op, `doc is missing path: "${op.path}": missing value`);
  return cur;
}

function getAt(doc: Json, path: string, op: Operation): Json {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return doc;
  const parent = parentOf(doc, tokens, op);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) return parent[arrayIndex(op, parent, last, false)];
  const rec = parent as Record<string, Json>;
  if (!Object.prototype.hasOwnProperty.call(rec, last)) fail(op, `doc is missing path: "${path}": missing value`);
  return rec[last];
}

function addAt(doc: Json, path: string, value: Json, op: Operation): Json {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return value;
  const parent = parentOf(doc, tokens, op);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) parent.splice(arrayIndex(op, parent, last, true), 0, value);
  else (parent as Record<string, Json>)[last] = value;
  return doc;
}

function removeAt(doc: Json, path: string, op: Operation): Json {
  const tokens = parsePointer(path);
  if (tokens.length === 0) fail(op, 'cannot remove the whole document');
  const parent = parentOf(doc, tokens, op);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) parent.splice(arrayIndex(op, parent, last, false), 1);
  else {
    const rec = parent as Record<string, Json>;
    if (!Object.prototype.hasOwnProperty.call(rec, last)) fail(op, `Unable to remove nonexistent key: ${last}: missing value`);
    delete rec[last];
  }
  return doc;
}

export function deepEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as Json[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual((a as Record<string, Json>)[k], (b as Record<string, Json>)[k]));
}

/** Applies `patch` (an array of operations) to a copy of `doc`. */
export function applyJsonPatch(doc: Json, patch: Json): Json {
  if (!Array.isArray(patch)) throw ApiError.badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  let out = structuredClone(doc);
  for (const raw of patch) {
    if (!isContainer(raw) || Array.isArray(raw) || typeof (raw as unknown as Operation).op !== 'string' || typeof (raw as unknown as Operation).path !== 'string') {
      throw ApiError.badRequest('the server rejected our request due to an error in our request: invalid JSON patch operation');
    }
    const op = raw as unknown as Operation;
    const needsValue = op.op === 'add' || op.op === 'replace' || op.op === 'test';
    if (needsValue && !Object.prototype.hasOwnProperty.call(op, 'value')) fail(op, `missing value for ${op.op} at "${op.path}"`);
    switch (op.op) {
      case 'add':
        out = addAt(out, op.path, structuredClone(op.value), op);
        break;
      case 'remove':
        out = removeAt(out, op.path, op);
        break;
      case 'replace':
        getAt(out, op.path, op);
        if (parsePointer(op.path).length === 0) out = structuredClone(op.value);
        else {
          out = removeAt(out, op.path, op);
          out = addAt(out, op.path, structuredClone(op.value), op);
        }
        break;
      case 'move': {
        if (op.from === undefined) fail(op, 'missing from');
        const v = getAt(out, op.from, op);
        out = removeAt(out, op.from, op);
        out = addAt(out, op.path, v, op);
        break;
      }
      case 'copy': {
        if (op.from === undefined) fail(op, 'missing from');
        out = addAt(out, op.path, structuredClone(getAt(out, op.from, op)), op);
        break;
      }
      case 'test': {
        const actual = getAt(out, op.path, op);
        if (!deepEqual(actual, op.value)) {
          fail(op, `testing value ${op.path} failed`);
        }
        break;
      }
      default:
        throw ApiError.badRequest(`the server rejected our request due to an error in our request: Unexpected kind: ${op.op}`);
    }
  }
  return out;
}
