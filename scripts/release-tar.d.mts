// Types of release-tar.mjs, for the tests that import it.
export type TarEntry = { path: string; type: 'file'; data: Buffer; executable?: boolean } | { path: string; type: 'dir' };
export function tarBytes(entries: TarEntry[], mtime: number): Buffer;
export function gzipReproducible(data: Buffer): Buffer;
export function tarGz(entries: TarEntry[], mtime: number): Buffer;
