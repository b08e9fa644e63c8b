// The plugin version without importing the CLI entry (which runs main()).
declare const __PLUGIN_VERSION__: string;

export const KUBE_PLUGIN_VERSION = typeof __PLUGIN_VERSION__ === 'string' ? __PLUGIN_VERSION__ : '0.0.0-dev';

/** "linux/amd64": Go's architecture names, as kubectl reports them. */
export function pluginPlatform(): string {
  return `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`;
}

export function userAgent(): string {
  return `kubectl-kruise/v${KUBE_PLUGIN_VERSION} (${pluginPlatform()}) node/${process.versions.node}`;
}
