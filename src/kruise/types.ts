// Plain Kubernetes object shapes used by the pure core. src/kruise imports
// nothing from src/kube; these mirror the wire format.

export type { OwnerReference, ObjectMeta, KubeObject } from '../lib/objects';
import type { KubeObject } from '../lib/objects';

export interface Container {
  name: string;
  image?: string;
  env?: Array<{ name: string; value?: string; valueFrom?: unknown }>;
  resources?: { limits?: Record<string, string>; requests?: Record<string, string> };
  [key: string]: unknown;
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  affinity?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: PodSpec;
}

export interface ContainerStatus {
  name: string;
  ready: boolean;
  restartCount: number;
  image: string;
  imageID?: string;
  containerID?: string;
  started?: boolean;
  state?: {
    waiting?: { reason?: string; message?: string };
    running?: { startedAt?: string };
    terminated?: { reason?: string; exitCode?: number };
  };
  lastState?: Record<string, unknown>;
}

export interface Pod extends KubeObject {
  spec: PodSpec;
  status?: {
    phase?: string;
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }>;
    containerStatuses?: ContainerStatus[];
    initContainerStatuses?: ContainerStatus[];
    podIP?: string;
    hostIP?: string;
    startTime?: string;
  };
}
