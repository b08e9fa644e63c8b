// Starts the sandbox: storage, CRDs (built-in minimal ones or a folder), the simulated
// controllers (if present), nodes, and the HTTP(S) API server on loopback.
import { closeSync, openSync, writeSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { KubeObject } from '../kruise/types';
import type { ControllerWithAdmission, CrashBackoffSetting, SimulationSettings } from './store-api';
import { builtinKruiseCrds, type KruiseRelease } from './crds/builtin-crds';
import { builtinRolloutCrds, type RolloutRelease } from './crds/builtin-rollout-crds';
import { attachCrdLifecycle, installCrds, readCrdFolder } from './server/crd-lifecycle';
import { FaultInjector, type FaultSpec } from './server/faults';
import { createRequestHandler, type AuthConfig } from './server/http';
import { createUpgradeHandler } from './server/exec';
import { buildKubeconfig } from './server/kubeconfig';
import { ResourceRegistry } from './server/registry';
import type { AuditRecord } from './server/request';
import { MemoryStore } from './server/store';

// What the `sandbox` command needs besides startSandbox: the build puts this module and
// everything under src/sandbox into dist/sandbox.cjs, so the command reaches it only here.
export { parseKruiseRelease } from './crds/builtin-crds';
export { parseRolloutRelease, rolloutVersionsOf, ROLLOUT_GROUP, type RolloutRelease } from './crds/builtin-rollout-crds';
export { validateFaultSpec, type FaultSpec } from './server/faults';
export { writeFileAtomic } from './server/kubeconfig';
export { readCrdFolder } from './server/crd-lifecycle';
export { parseFeatureGates } from './feature-gates';
export { parseCrashBackoff } from './controllers/kubelet-backoff';

export interface SandboxOptions {
  /** 0 = a free port. */
  port: number;
  host?: string;
  nodes: number;
  kruise: KruiseRelease;
  /** Install the CRDs of these folders; a group they hold no CRD of gets the built-in minimal definitions. */
  crdsDirs?: string[];
  /** Kruise Rollout release whose built-in definitions serve rollouts.kruise.io (default v0.6). */
  kruiseRollout?: RolloutRelease;
  tls: boolean;
  /** Under tls: more names (DNS names or addresses) the server certificate is valid for, besides 127.0.0.1 and localhost. */
  tlsSans?: readonly string[];
  /**
   * Under tls: the TLS handshake requires a client certificate signed by the sandbox's CA, as a server or
   * load balancer set to require client certificates does (kube-apiserver itself only asks for one);
   * the kubeconfig's users get one each. The bearer tokens still say who the user is.
   */
  requireClientCert?: boolean;
  /**
   * Under tls: more users, each with a bearer token and a kubeconfig context of its name, whose requests
   * the Roles, ClusterRoles and bindings stored in the sandbox authorize (kube's RBAC: server/rbac.ts).
   */
  users?: readonly string[];
  auditLog?: string;
  faults?: FaultSpec;
  readyDelayMs: number;
  /** --crash-backoff (absent: the kubelet's, 10 s doubling to 5 min). */
  crashBackoff?: CrashBackoffSetting;
  /** kruise-manager's feature gates (parseFeatureGates); absent: every gate at its default. */
  featureGates?: Readonly<Record<string, boolean>>;
  /** Skip the simulated controllers (unit tests of the server itself). */
  noControllers?: boolean;
  /** How long a watch may keep more than 8 MiB unread, reading nothing, before it is dropped (default 5 s; tests shorten it). */
  slowWatcherGraceMs?: number;
}

export interface RunningSandbox {
  url: string;
  port: number;
  store: MemoryStore;
  registry: ResourceRegistry;
  /** The kubeconfig text (admin context current; `viewer` context under tls). */
  kubeconfig: string;
  tokens: { admin?: string; viewer?: string; users?: Record<string, string> };
  caPem?: string;
  stop(): Promise<void>;
}

async function loadControllers(settings: SimulationSettings): Promise<ControllerWithAdmission[]> {
  try {
    const mod = (await import('./controllers/index')) as { createControllers?: (s: SimulationSettings) => ControllerWithAdmission[] };
    return mod.createControllers ? mod.createControllers(settings) : [];
  } catch (err) {
    process.stderr.write(`sandbox: running without controllers (${err instanceof Error ? err.message : String(err)})\n`);
    return [];
  }
}

function nodeObject(i: number): KubeObject {
  const name = `node-${i}`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'topology.kubernetes.io/zone': ['zone-a', 'zone-b', 'zone-c'][(i - 1) % 3]! } },
    spec: {},
    status: {
      capacity: { cpu: '8', memory: '32Gi', pods: '2000' },
      allocatable: { cpu: '8', memory: '32Gi', pods: '2000' },
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
      addresses: [{ type: 'InternalIP', address: `172.18.0.${i + 1}` }, { type: 'Hostname', address: name }],
      nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'Sandbox Linux', kernelVersion: '6.1.0', containerRuntimeVersion: 'containerd://1.7.0', architecture: 'amd64', operatingSystem: 'linux' },
    },
  };
}

/** The CRDs of every --crds folder, plus built-in definitions of the groups (Kruise, Kruise Rollout) they leave out. */
async function crdsToInstall(opts: SandboxOptions): Promise<KubeObject[]> {
  const fromFolders: KubeObject[] = [];
  for (const dir of opts.crdsDirs ?? []) fromFolders.push(...(await readCrdFolder(dir)));
  const groups = new Set(fromFolders.map((c) => (c.spec as { group?: string } | undefined)?.group));
  return [
    // A folder of Kruise CRDs is the whole of Kruise (a partial one serves only its kinds).
    ...(groups.has('apps.kruise.io') || groups.has('policy.kruise.io') ? [] : builtinKruiseCrds(opts.kruise)),
    ...(groups.has('rollouts.kruise.io') ? [] : builtinRolloutCrds(opts.kruiseRollout ?? 'v0.6')),
    ...fromFolders,
  ];
}

export async function startSandbox(opts: SandboxOptions): Promise<RunningSandbox> {
  const registry = new ResourceRegistry();
  const store = new MemoryStore(registry, opts.faults?.expireResourceVersionsAfter || 20_000);
  attachCrdLifecycle(store, registry);
  installCrds(store, await crdsToInstall(opts));

  const settings: SimulationSettings = { readyDelayMs: opts.readyDelayMs, kruise: opts.kruise, kruiseRollout: opts.kruiseRollout ?? 'v0.6', nodes: opts.nodes, featureGates: opts.featureGates, crashBackoff: opts.crashBackoff };
  const controllers = opts.noControllers ? [] : await loadControllers(settings);
  for (const c of controllers) if (c.admission) store.addAdmissionHooks(c.admission);
  store.hasKubelet = controllers.some((c) => c.name === 'kubelet');
  for (const c of controllers) c.start(store, settings);
  // The nodes controller normally creates the nodes; without it the server still has them.
  if (store.listRefs({ group: '', resource: 'nodes' }).length === 0) {
    for (let i = 1; i <= opts.nodes; i++) store.createRef({ group: '', resource: 'nodes' }, nodeObject(i));
  }

  let auditFd: number | undefined;
  if (opts.auditLog) auditFd = openSync(opts.auditLog, 'a');
  const audit = (r: AuditRecord): void => {
    if (auditFd === undefined) return;
    try {
      writeSync(auditFd, `${JSON.stringify(r)}\n`);
    } catch {
      /* the log is best effort */
    }
  };

  let tokens: RunningSandbox['tokens'] = {};
  let auth: AuthConfig | undefined;
  let tlsMaterial: import('./server/tls').TlsMaterial | undefined;
  if (opts.tls) {
    const { generateTlsMaterial, randomToken } = await import('./server/tls');
    const users = [...new Set(opts.users ?? [])];
    tlsMaterial = await generateTlsMaterial({ sans: opts.tlsSans, clientUsers: opts.requireClientCert ? ['admin', 'viewer', ...users] : [] });
    tokens = { admin: randomToken(), viewer: randomToken(), users: Object.fromEntries(users.map((u) => [u, randomToken()])) };
    auth = {
      tokens: new Map([[tokens.admin!, 'admin'], [tokens.viewer!, 'viewer'], ...users.map((u): [string, string] => [tokens.users![u]!, u])]),
      readOnlyUsers: new Set(['viewer']),
      rbacUsers: new Set(users),
    };
  }

  let ready = false;
  let address = '';
  const faults = new FaultInjector(opts.faults ?? {});
  // pods/log reaches the kubelet controller's logs, as kube-apiserver proxies it to the node's kubelet.
  const podLogs = controllers.find((c) => c.podLogs)?.podLogs;
  const handler = createRequestHandler({ store, registry, faults, auth, audit, serverAddress: () => address, isReady: () => ready, slowWatcherGraceMs: opts.slowWatcherGraceMs, podLogs });
  // requestCert + rejectUnauthorized: no certificate fails the handshake (alert certificate_required);
  // one the CA did not sign ends the connection right after the handshake (Node checks it then).
  const clientAuth = tlsMaterial && opts.requireClientCert ? { requestCert: true, rejectUnauthorized: true, ca: tlsMaterial.caPem } : {};
  const server: Server = tlsMaterial ? createHttpsServer({ cert: tlsMaterial.certPem, key: tlsMaterial.keyPem, ...clientAuth }, handler) : createHttpServer(handler);
  // pods/exec (WebSocket): the only upgrade the sandbox answers.
  const upgrades = createUpgradeHandler({ store, faults, auth, audit });
  server.on('upgrade', upgrades);
  server.keepAliveTimeout = 60_000;
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  address = `${host}:${port}`;
  const url = `${tlsMaterial ? 'https' : 'http'}://${address}`;
  ready = true;

  return {
    url,
    port,
    store,
    registry,
    tokens,
    caPem: tlsMaterial?.caPem,
    kubeconfig: buildKubeconfig({ server: url, caPem: tlsMaterial?.caPem, adminToken: tokens.admin, viewerToken: tokens.viewer, userTokens: tokens.users, clientCerts: opts.requireClientCert ? tlsMaterial?.clients : undefined }),
    async stop() {
      ready = false;
      for (const c of controllers) {
        try {
          c.stop();
        } catch {
          /* stopping is best effort */
        }
      }
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        upgrades.closeAll();
      });
      if (auditFd !== undefined) closeSync(auditFd);
    },
  };
}
