// Template hashes shared by every workload controller of the sandbox. Kubernetes hashes a
// template with FNV-32a and encodes the decimal value with a vowel-free alphabet (so a hash
// never spells a word); we do the same over a canonical JSON form, which gives names that
// look like a real cluster's (`web-5d8f7b9c4`) and are stable for equal templates.
import { canonicalJson } from '../canonical-json';

/** The alphabet of k8s.io/apimachinery/pkg/util/rand (no vowels, no confusable digits). */
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** FNV-1a, 32 bit, over the UTF-8 bytes of `text`. */
export function fnv32a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** rand.SafeEncodeString: each character mapped into the safe alphabet. */
export function safeEncode(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) out += SAFE_ALPHABET[text.charCodeAt(i) % SAFE_ALPHABET.length];
  return out;
}

/**
 * Hash of a pod template (or any revision payload), like controller.ComputeHash:
 * `collisionCount` is mixed in so a controller can step past a name collision.
 */
export function templateHash(template: unknown, collisionCount?: number): string {
  let text = canonicalJson(template);
  if (collisionCount !== undefined && collisionCount > 0) text += `#${collisionCount}`;
  return safeEncode(String(fnv32a(text)));
}

/** Name of a ControllerRevision / ReplicaSet of a workload: `<workload>-<hash>`. */
export function revisionName(workloadName: string, hash: string): string {
  return `${workloadName}-${hash}`;
}

/** Random lowercase suffix like the API server's generateName (5 safe characters). */
export function randomSuffix(length = 5): string {
  let out = '';
  for (let i = 0; i < length; i++) out += SAFE_ALPHABET[Math.floor(Math.random() * SAFE_ALPHABET.length)];
  return out;
}

/**
 * A value with nulls, empty objects and empty arrays removed, recursively: the form in which
 * two templates compare like apimachinery's semantic equality (clients such as
 * `kubectl rollout undo` send `creationTimestamp: null` and `resources: {}`).
 */
export function semanticForm<T>(value: T): T {
  return strip(value) as T;
}

function strip(value: unknown): unknown {
  if (Array.isArray(value)) {
    const out = value.map(strip).filter((v) => v !== undefined);
    return out.length === 0 ? undefined : out;
  }
  if (value === null) return undefined;
  if (typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const s = strip(v);
    if (s !== undefined) out[k] = s;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}
