// --preview's flags (--feature-gates, -o json), parsed before any request. Kept apart from run.ts so the
// commands load the preview machinery only when --preview is given.
import { usageError } from '../../cli/exit';
import type { GateState } from '../../kruise/preview/types';

const VERTICAL_GATE = 'InPlaceWorkloadVerticalScaling';
const ENV_GATE = 'InPlaceUpdateEnvFromMetadata';

export interface PreviewSettings {
  verticalScaling: GateState;
  envFromMetadata: boolean;
  json: boolean;
  /** --feature-gates named InPlaceUpdateEnvFromMetadata (then kruise-manager's Deployment does not override it). */
  envFromMetadataGiven?: boolean;
}

/**
 * --feature-gates for a preview: what the user knows of kruise-manager's gates. Only the gates the decision
 * reads are taken; without InPlaceWorkloadVerticalScaling it is "unknown" (run.ts may then read kruise-manager's Deployment).
 */
export function parsePreviewSettings(opts: { featureGates?: string; output?: string }): PreviewSettings {
  let verticalScaling: GateState = 'unknown';
  let envFromMetadata = true; // on by default since v1.8
  let envFromMetadataGiven = false;
  for (const raw of (opts.featureGates ?? '').split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const m = /^([A-Za-z0-9]+)=(true|false)$/.exec(item);
    if (!m) throw usageError(`invalid --feature-gates item "${item}": expected Name=true or Name=false`);
    if (m[1] === VERTICAL_GATE) verticalScaling = m[2] === 'true' ? 'on' : 'off';
    else if (m[1] === ENV_GATE) {
      envFromMetadata = m[2] === 'true';
      envFromMetadataGiven = true;
    }
    else throw usageError(`--feature-gates: ${m[1]} does not change what --preview shows (known: ${VERTICAL_GATE}, ${ENV_GATE})`);
  }
  if (opts.output !== undefined && opts.output !== 'json') throw usageError(`--preview prints a table or -o json, not -o ${opts.output}`);
  return { verticalScaling, envFromMetadata, envFromMetadataGiven, json: opts.output === 'json' };
}
