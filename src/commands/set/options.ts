// Flags every `set` verb shares, turned into an EditRequest skeleton (usage errors, exit 2,
// before anything is read or sent).
import { usageError } from '../../cli/exit';
import { parseDryRun, parseOutputFormat, type DryRunMode, type OutputFormat } from '../../printers/output';
import { fieldManagerFlag } from '../restart/flags';
import { gitopsModeFlag } from '../gitops-flags';
import type { GitOpsMode } from '../../kruise/gitops/owners';
import { parseSelection, type SetSelection } from './targets';
import { parsePreviewSettings, type PreviewSettings } from '../preview/settings';

export interface CommonSetOptions {
  filename?: string[];
  selector?: string;
  all?: boolean;
  local?: boolean;
  dryRun?: string | boolean;
  output?: string;
  fieldManager?: string;
  gitops?: string;
  /** --preview (set image|env|resources): show what Kruise would do to each pod, write nothing. */
  preview?: boolean;
  featureGates?: string;
}

export interface CommonSettings {
  selection: SetSelection;
  dryRun: DryRunMode;
  output: OutputFormat;
  fieldManager: string;
  gitops: GitOpsMode;
  preview?: PreviewSettings;
}

/** kubectl's manager for its `set` verbs (pkg/cmd/set). */
export const DEFAULT_FIELD_MANAGER = 'kubectl-set';

export function parseCommon(command: string, resources: string[], opts: CommonSetOptions): CommonSettings {
  if (opts.preview) {
    if (opts.dryRun !== undefined) throw usageError('--preview writes nothing already; it cannot be combined with --dry-run');
    const preview = parsePreviewSettings(opts);
    return { selection: parseSelection(command, resources, opts), dryRun: 'client', output: { kind: 'default' } as OutputFormat, fieldManager: DEFAULT_FIELD_MANAGER, gitops: 'ignore', preview };
  }
  if (opts.featureGates !== undefined) throw usageError('--feature-gates only goes with --preview');
  const output = parseOutputFormat(opts.output, ['json', 'yaml', 'name', 'jsonpath']);
  const dryRun = parseDryRun(opts.dryRun);
  const fieldManager = fieldManagerFlag(opts.fieldManager, DEFAULT_FIELD_MANAGER);
  const gitops = gitopsModeFlag(opts.gitops);
  const selection = parseSelection(command, resources, opts);
  if (selection.local && dryRun === 'server') throw usageError('--local cannot be combined with --dry-run=server (nothing is sent with --local)');
  return { selection, dryRun, output, fieldManager, gitops };
}

/** -c/--containers: a name or `*`, never empty. */
export function parseContainerSelector(value: string | undefined): string {
  if (value === undefined) return '*';
  if (value.trim() === '') throw usageError('-c/--containers must not be empty: give a container name, or * for all containers');
  return value;
}
