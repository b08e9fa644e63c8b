// The plugin version without importing the CLI entry (which runs main()).
declare const __PLUGIN_VERSION__: string;

export const KUBE_PLUGIN_VERSION = typeof __PLUGIN_VERSION__ === 'string' ? __PLUGIN_VERSION__ : '0.0.0-dev';

export function userAgent(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  return `kubectl-kruise/v${KUBE_PLUGIN_VERSION} (${process.platform}/${arch}) node/${process.versions.node}`;
}
