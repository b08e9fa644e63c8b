// A reproducible .tar.gz: the same entries give the same bytes on any machine, whatever the files'
// times, owners, umask or the order a folder lists them in.
//
// - tar: ustar headers written here (POSIX.1-1988 as extended by POSIX.1-2001), entries sorted by
//   name, mtime fixed by the caller, uid/gid 0, uname/gname "root", modes 0755 (folders and
//   executables) or 0644. Only regular files and folders: krew's extractor
//   (internal/download/downloader.go, extractTARGZ) refuses every other entry type.
// - gzip: Node's zlib, whose header carries no file name and a zero mtime; the OS byte is set to
//   3 (Unix) so a release built on Windows gives the same bytes. Same zlib, same output: a
//   different Node (zlib) release may compress differently, so releases pin the Node that builds.
import { gzipSync } from 'node:zlib';

const BLOCK = 512;

/** Writes `value` as a NUL-terminated octal field of `width` bytes at `offset`. */
function octal(header, offset, width, value) {
  const digits = value.toString(8);
  if (digits.length > width - 1) throw new Error(`tar: ${value} does not fit a ${width}-byte field`);
  header.write(digits.padStart(width - 1, '0') + '\0', offset, width, 'ascii');
}

/** Splits a path into ustar's name (100 bytes) and prefix (155 bytes) fields. */
function splitName(path) {
  if (Buffer.byteLength(path) <= 100) return { name: path, prefix: '' };
  const cut = path.lastIndexOf('/', path.length - 2);
  const name = path.slice(cut + 1);
  const prefix = path.slice(0, cut);
  if (cut <= 0 || Buffer.byteLength(name) > 100 || Buffer.byteLength(prefix) > 155) throw new Error(`tar: path too long for ustar: ${path}`);
  return { name, prefix };
}

function header(entry, mtime) {
  const h = Buffer.alloc(BLOCK);
  const dir = entry.type === 'dir';
  const { name, prefix } = splitName(dir && !entry.path.endsWith('/') ? `${entry.path}/` : entry.path);
  h.write(name, 0, 100, 'utf8');
  octal(h, 100, 8, dir || entry.executable ? 0o755 : 0o644);
  octal(h, 108, 8, 0); // uid
  octal(h, 116, 8, 0); // gid
  octal(h, 124, 12, dir ? 0 : entry.data.length);
  octal(h, 136, 12, mtime);
  h.write('        ', 148, 8, 'ascii'); // checksum field counts as spaces while summing
  h.write(dir ? '5' : '0', 156, 1, 'ascii');
  h.write('ustar\0', 257, 6, 'ascii');
  h.write('00', 263, 2, 'ascii');
  h.write('root', 265, 32, 'ascii'); // uname
  h.write('root', 297, 32, 'ascii'); // gname
  octal(h, 329, 8, 0); // devmajor
  octal(h, 337, 8, 0); // devminor
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return h;
}

/**
 * The tar of `entries` ({path, type: 'file', data: Buffer, executable?} or {path, type: 'dir'}),
 * sorted by path (byte order), every entry stamped with `mtime` (seconds since the epoch).
 */
export function tarBytes(entries, mtime) {
  const sorted = [...entries].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  const seen = new Set();
  const parts = [];
  for (const entry of sorted) {
    if (seen.has(entry.path)) throw new Error(`tar: ${entry.path} given twice`);
    seen.add(entry.path);
    if (entry.path.startsWith('/') || entry.path.split('/').includes('..')) throw new Error(`tar: unsafe path ${entry.path}`);
    parts.push(header(entry, mtime));
    if (entry.type === 'dir') continue;
    parts.push(entry.data);
    const pad = (BLOCK - (entry.data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(2 * BLOCK)); // end of archive: two zero blocks
  return Buffer.concat(parts);
}

/** gzip with a fixed header: no name, mtime 0, OS 3. */
export function gzipReproducible(data) {
  const gz = gzipSync(data, { level: 6 });
  // RFC 1952: ID1 ID2 CM FLG MTIME(4) XFL OS. Node's zlib sets FLG 0 and MTIME 0; checked, not assumed.
  if (gz[0] !== 0x1f || gz[1] !== 0x8b || gz[3] !== 0 || gz.readUInt32LE(4) !== 0) throw new Error('gzip: unexpected header from zlib (name or mtime set)');
  gz[9] = 3;
  return gz;
}

/** The .tar.gz of `entries` (see tarBytes). */
export function tarGz(entries, mtime) {
  return gzipReproducible(tarBytes(entries, mtime));
}
