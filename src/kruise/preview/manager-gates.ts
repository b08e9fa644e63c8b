// kruise-manager's feature gates read from its Deployment (kruise-system/kruise-controller-manager, container
// args `--feature-gates=...`, as Kruise's chart and config/manager/manager.yaml install it), when the user
// may read it: `AllAlpha`/`AllBeta` switch every gate of that stage unless the gate is named itself.
import type { KubeObject } from '../types';

export const KRUISE_MANAGER = { namespace: 'kruise-system', name: 'kruise-controller-manager' } as const;

export interface ManagerGates {
  /** InPlaceWorkloadVerticalScaling (Alpha, default off). */
  verticalScaling: boolean;
  /** InPlaceUpdateEnvFromMetadata (Beta, default on since v1.8). */
  envFromMetadata: boolean;
}

/** The gates of the manager container's last --feature-gates flag (kube's flag parsing: the last one wins). */
export function managerGates(deployment: KubeObject): ManagerGates {
  const containers = ((deployment.spec as { template?: { spec?: { containers?: Array<{ name?: string; args?: string[]; command?: string[] }> } } } | undefined)?.template?.spec?.containers ?? []);
  const manager = containers.find((c) => c.name === 'manager') ?? containers[0];
  const args = [...(manager?.command ?? []), ...(manager?.args ?? [])];
  let text = '';
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith('--feature-gates=')) text = a.slice('--feature-gates='.length);
    else if (a === '--feature-gates' && i + 1 < args.length) text = args[++i]!;
  }
  const set = new Map<string, boolean>();
  for (const item of text.split(',')) {
    const m = /^\s*([A-Za-z0-9]+)=(true|false)\s*$/.exec(item);
    if (m) set.set(m[1]!, m[2] === 'true');
  }
  return {
    verticalScaling: set.get('InPlaceWorkloadVerticalScaling') ?? set.get('AllAlpha') ?? false,
    envFromMetadata: set.get('InPlaceUpdateEnvFromMetadata') ?? set.get('AllBeta') ?? true,
  };
}
