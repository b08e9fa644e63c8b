// The sandbox's nodes: `node-1..N`, spread over three zones, Ready, with realistic capacity
// and nodeInfo so `kubectl get nodes -o wide` and topology-aware rules look like a cluster.
import type { KubeObject } from '../../kruise/types';
import type { ControllerWithAdmission, SimulationSettings, Store } from '../store-api';
import { NODES, kubeTime } from './pods';

export const ZONES = ['zone-a', 'zone-b', 'zone-c'];
export const KUBELET_VERSION = 'v1.32.0';

export function nodeName(index: number): string {
  return `node-${index}`;
}

/** InternalIP of node-`index` (1-based). */
export function nodeInternalIP(index: number): string {
  return `172.18.0.${index + 1}`;
}

/** The Node object for node-`index` (1-based), status included. */
export function newNode(index: number, nowMs: number = Date.now()): KubeObject {
  const name = nodeName(index);
  const now = kubeTime(nowMs);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'topology.kubernetes.io/zone': ZONES[(index - 1) % ZONES.length],
        'topology.kubernetes.io/region': 'sandbox',
      },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0' },
    },
    spec: { podCIDR: `10.244.${index}.0/24`, podCIDRs: [`10.244.${index}.0/24`] },
    status: {
      capacity: { cpu: '8', 'ephemeral-storage': '102400Mi', memory: '32Gi', pods: '2000' },
      allocatable: { cpu: '8', 'ephemeral-storage': '102400Mi', memory: '32Gi', pods: '2000' },
      conditions: [
        { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: now, lastTransitionTime: now, reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available' },
        { type: 'DiskPressure', status: 'False', lastHeartbeatTime: now, lastTransitionTime: now, reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure' },
        { type: 'PIDPressure', status: 'False', lastHeartbeatTime: now, lastTransitionTime: now, reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available' },
        { type: 'Ready', status: 'True', lastHeartbeatTime: now, lastTransitionTime: now, reason: 'KubeletReady', message: 'kubelet is posting ready status' },
      ],
      addresses: [
        { type: 'InternalIP', address: nodeInternalIP(index) },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        architecture: 'amd64',
        bootID: `sandbox-boot-${index}`,
        containerRuntimeVersion: 'containerd://1.7.24',
        kernelVersion: '6.1.0-sandbox',
        kubeProxyVersion: KUBELET_VERSION,
        kubeletVersion: KUBELET_VERSION,
        machineID: `sandbox-machine-${index}`,
        operatingSystem: 'linux',
        osImage: 'Debian GNU/Linux 12 (bookworm)',
        systemUUID: `sandbox-system-${index}`,
      },
      images: [],
    },
  };
}

/** Registers the nodes at start (existing ones are left alone). */
export function createNodesController(): ControllerWithAdmission {
  return {
    name: 'nodes',
    start(store: Store, settings: SimulationSettings) {
      for (let i = 1; i <= settings.nodes; i++) {
        if (store.get(NODES, undefined, nodeName(i))) continue;
        const node = newNode(i);
        const created = store.create(NODES, node);
        // Creating may drop status (status subresource semantics); write it explicitly.
        if (!created.status || !(created.status as { nodeInfo?: unknown }).nodeInfo) {
          store.updateStatus(NODES, { ...created, status: node.status });
        }
      }
    },
    stop() {},
  };
}
