// Types of krew.mjs, for the tests that import it.
export const TEMPLATE: string;
export const KREW_PLUGIN_NAME: string;
export const KREW_INDEX_NAME: string;
export interface ManifestPlatform {
  os: string;
  arch: string;
  uri: string;
  sha256: string;
  bin: string;
}
export function renderManifest(template: string, values: { version: string; homepage: string; platforms: ManifestPlatform[] }): string;
export function readTemplate(): string;
export function defaultIndexUrl(repositoryUrl: string | undefined): string | undefined;
export function krewIndexFiles(input: { manifest: string; version: string; indexUrl: string }): Array<{ path: string; data: string }>;
