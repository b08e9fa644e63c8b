// The kubeconfig a sandbox hands out: one cluster, the admin context (current), and under
// --tls a second context `viewer` whose user may only read; under --require-client-cert each user
// also has a client certificate.
import { renameSync, writeFileSync } from 'node:fs';

export interface KubeconfigInput {
  server: string;
  caPem?: string;
  adminToken?: string;
  viewerToken?: string;
  /** More users (--user): a user and a context of each name. */
  userTokens?: Record<string, string>;
  /** Client certificates (PEM) by user: admin, viewer. */
  clientCerts?: Record<string, { certPem: string; keyPem: string }>;
}

const b64 = (pem: string): string => Buffer.from(pem).toString('base64');

export function buildKubeconfig(k: KubeconfigInput): string {
  const lines: string[] = ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: kruise-sandbox', '  cluster:', `    server: ${k.server}`];
  if (k.caPem) lines.push(`    certificate-authority-data: ${Buffer.from(k.caPem).toString('base64')}`);
  lines.push('users:', '- name: kruise-sandbox-admin', '  user:');
  const cert = (user: string): string[] => {
    const c = k.clientCerts?.[user];
    return c ? [`    client-certificate-data: ${b64(c.certPem)}`, `    client-key-data: ${b64(c.keyPem)}`] : [];
  };
  if (k.adminToken) lines.push(`    token: ${k.adminToken}`, ...cert('admin'));
  else lines[lines.length - 1] = '  user: {}';
  if (k.viewerToken) lines.push('- name: viewer', '  user:', `    token: ${k.viewerToken}`, ...cert('viewer'));
  for (const [name, token] of Object.entries(k.userTokens ?? {})) lines.push(`- name: ${name}`, '  user:', `    token: ${token}`, ...cert(name));
  lines.push('contexts:', '- name: kruise-sandbox', '  context:', '    cluster: kruise-sandbox', '    user: kruise-sandbox-admin', '    namespace: default');
  if (k.viewerToken) lines.push('- name: viewer', '  context:', '    cluster: kruise-sandbox', '    user: viewer', '    namespace: default');
  for (const name of Object.keys(k.userTokens ?? {})) lines.push(`- name: ${name}`, '  context:', '    cluster: kruise-sandbox', `    user: ${name}`, '    namespace: default');
  lines.push('current-context: kruise-sandbox', 'preferences: {}', '');
  return lines.join('\n');
}

/** Temp file + rename, so a reader never sees half a kubeconfig (tests wait for the file). */
export function writeFileAtomic(path: string, text: string, mode = 0o600): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text, { mode });
  renameSync(tmp, path);
}
