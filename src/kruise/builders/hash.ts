// Short, stable hashes for generated object names (pure: no crypto module needed).
import { DNS1123_SUBDOMAIN_MAX } from '../names';

const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** FNV-1a 64-bit over UTF-16 code units, rendered in 10 characters of a vowel-free alphabet. */
export function shortHash(text: string, length = 10): string {
  let hash = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  const mask = 0xffffffffffffffffn;
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * prime) & mask;
  }
  let out = '';
  const base = BigInt(ALPHABET.length);
  for (let i = 0; i < length; i++) {
    out += ALPHABET[Number(hash % base)];
    hash /= base;
  }
  return out;
}

/** `<base>-<hash>` within an object name's 253 characters: a long base is cut (and trailing "-"/"." dropped). */
export function hashSuffixedName(base: string, hash: string): string {
  const room = DNS1123_SUBDOMAIN_MAX - hash.length - 1;
  const b = base.length > room ? base.slice(0, room).replace(/[-.]+$/, '') : base;
  return `${b}-${hash}`;
}
