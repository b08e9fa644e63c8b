// Flags every `set` verb shares, turned into an EditRequest skeleton (usage errors, exit 2,
// before anything is read or sent).
import { usageError } from '../../cli/exit';
import { parseDryRun, parseOutputFormat, type DryRunMode, type OutputFormat } from '../../printers/output';
import { fieldManagerFlag } from '../restart/flags';
import { parseSelection, type SetSelection } from './targets';

export interface CommonSetOptions {
  filename?: string[];
  selector?: string;
  all?: boolean;
  local?: boolean;
  dryRun?: string | boolean;
  output?: string;
  fieldManager?: string;
}

export interface CommonSettings {
  selection: SetSelection;
  dryRun: DryRunMode;
  output: OutputFormat;
  fieldManager: string;
}

export const DEFAULT_FIELD_MANAGER = 'kubectl-kruise';

export function parseCommon(command: string, resources: string[], opts: CommonSetOptions): CommonSettings {
  const output = parseOutputFormat(opts.output, ['json', 'yaml', 'name', 'jsonpath']);
  const dryRun = parseDryRun(opts.dryRun);
  const fieldManager = fieldManagerFlag(opts.fieldManager, DEFAULT_FIELD_MANAGER);
  const selection = parseSelection(command, resources, opts);
  if (selection.local && dryRun === 'server') throw usageError('--local cannot be combined with --dry-run=server (nothing is sent with --local)');
  return { selection, dryRun, output, fieldManager };
}

/** -c/--containers: a name or `*`, never empty. */
export function parseContainerSelector(value: string | undefined): string {
  if (value === undefined) return '*';
  if (value.trim() === '') throw usageError('-c/--containers must not be empty: give a container name, or * for all containers');
  return value;
}
