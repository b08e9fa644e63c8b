// `sandbox --crds DIR... --kruise-rollout REL`: checks the CRD folders before anything starts
// (exit 2 on a bad folder, a CRD given twice, or a release contradicting the folders' Rollout CRD)
// and decides which Kruise Rollout release the sandbox imitates.
import { existsSync, statSync } from 'node:fs';
import { usageError } from '../cli/exit';
import type { RolloutRelease } from '../sandbox/index';

interface CrdVersion {
  name: string;
  served?: boolean;
  storage?: boolean;
}

export interface CrdFolderCheck {
  kruiseRollout: RolloutRelease;
  /** The Kruise Rollout kinds come from a --crds folder (not the built-in definitions). */
  rolloutFromFolder?: string;
}

function describeVersions(versions: string[]): string {
  const storage = versions.find((v) => v.endsWith('*'))?.replace('*', '');
  return `${versions.map((v) => v.replace('*', '')).join(', ')} (storage ${storage})`;
}

export async function checkCrdFolders(dirs: string[], kruiseRolloutFlag: string | undefined): Promise<CrdFolderCheck> {
  const { readCrdFolder, parseRolloutRelease, rolloutVersionsOf } = await import('../sandbox/index');
  const explicit = kruiseRolloutFlag === undefined ? undefined : parseRolloutRelease(kruiseRolloutFlag);
  if (kruiseRolloutFlag !== undefined && !explicit) throw usageError(`invalid value "${kruiseRolloutFlag}" for --kruise-rollout: use v0.4, v0.6 or master`);

  const seen = new Map<string, string>();
  let rolloutFolder: string | undefined;
  let rolloutVersions: string[] | undefined;
  let rolloutGenerator: string | undefined;
  for (const dir of dirs) {
    if (!(existsSync(dir) && statSync(dir).isDirectory())) throw usageError(`--crds ${dir}: not a folder`);
    let crds: Awaited<ReturnType<typeof readCrdFolder>>;
    try {
      // A folder without CRDs, or with a file that is not YAML, is bad input: exit 2 before serving.
      crds = await readCrdFolder(dir);
    } catch (err) {
      throw usageError(`--crds ${dir}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    }
    for (const crd of crds) {
      const name = crd.metadata.name ?? '';
      const other = seen.get(name);
      if (other !== undefined) throw usageError(`--crds ${dir}: CustomResourceDefinition ${name} is also in --crds ${other}; give each CRD once`);
      seen.set(name, dir);
      if (name === 'rollouts.rollouts.kruise.io') {
        rolloutFolder = dir;
        const versions = ((crd.spec as { versions?: CrdVersion[] } | undefined)?.versions ?? []).filter((v) => v.served !== false);
        rolloutVersions = versions.map((v) => `${v.name}${v.storage ? '*' : ''}`);
        rolloutGenerator = crd.metadata.annotations?.['controller-gen.kubebuilder.io/version'];
      }
    }
  }
  if (!rolloutFolder || !rolloutVersions) return { kruiseRollout: explicit ?? 'v0.6' };
  // The folder decides; a release given as well must serve the same Rollout versions.
  if (explicit) {
    const imitated = rolloutVersionsOf(explicit);
    if (imitated.slice().sort().join() !== rolloutVersions.slice().sort().join()) {
      throw usageError(
        `--kruise-rollout ${kruiseRolloutFlag} contradicts --crds ${rolloutFolder}: its Rollout CRD serves ${describeVersions(rolloutVersions)}, ${explicit} serves ${describeVersions(imitated)}; drop --kruise-rollout (the folder decides)`,
      );
    }
    return { kruiseRollout: explicit, rolloutFromFolder: rolloutFolder };
  }
  if (!rolloutVersions.includes('v1beta1*')) return { kruiseRollout: 'v0.4', rolloutFromFolder: rolloutFolder };
  return { kruiseRollout: isMasterGenerator(rolloutGenerator) ? 'master' : 'v0.6', rolloutFromFolder: rolloutFolder };
}

/**
 * master's CRDs serve the same versions and fields as v0.6.2's; what tells them apart is the generator:
 * openkruise/rollouts regenerated them with controller-gen v0.14 after v0.6.2 (0c89ec8, "update
 * dependency to 1.28"), v0.6.2's say v0.11.0.
 */
function isMasterGenerator(version: string | undefined): boolean {
  const m = /^v?(\d+)\.(\d+)/.exec(version ?? '');
  return m !== null && (Number(m[1]) > 0 || Number(m[2]) >= 14);
}
