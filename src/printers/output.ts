// -o handling shared by every command: parse the flag once (usage errors before
// any request), then print objects or mutation lines the kubectl way.
import { yamlLib } from '../lib/yaml';
import { apiGroupOf } from '../kruise/api-version';
import type { KubeObject } from '../kruise/types';
import { usageError } from '../cli/exit';
import { compileJsonPath, JsonPathError } from './jsonpath';
import { kyamlDocument } from './kyaml';

export type OutputFormat =
  | { kind: 'default' }
  | { kind: 'wide' }
  | { kind: 'json' }
  | { kind: 'yaml'; kyaml?: boolean }
  | { kind: 'name' }
  | { kind: 'jsonpath'; template: string };

export type OutputKind = OutputFormat['kind'];

/** Parses an -o value; `allowed` lists the formats the verb supports. Throws a usage error (exit 2). */
export function parseOutputFormat(value: string | undefined, allowed: readonly OutputKind[]): OutputFormat {
  if (value === undefined || value === '') return { kind: 'default' };
  const eq = value.indexOf('=');
  const name = eq === -1 ? value : value.slice(0, eq);
  const supported = allowed.filter((k) => k !== 'default').flatMap((k) => (k === 'jsonpath' ? ['jsonpath=TEMPLATE'] : k === 'yaml' ? ['yaml', 'kyaml'] : [k]));
  // KYAML (KEP-5295) is YAML: wherever -o yaml is taken, -o kyaml is too.
  if (value === 'kyaml' && allowed.includes('yaml')) return { kind: 'yaml', kyaml: true };
  if (name === 'jsonpath' && allowed.includes('jsonpath')) {
    const template = eq === -1 ? '' : value.slice(eq + 1);
    if (!template) throw usageError('template format specified but no template given (use -o jsonpath=TEMPLATE)');
    try {
      compileJsonPath(template);
    } catch (e) {
      throw usageError(`error parsing jsonpath ${template}: ${(e as Error).message}`);
    }
    return { kind: 'jsonpath', template };
  }
  if (eq === -1 && (allowed as readonly string[]).includes(name) && name !== 'default') return { kind: name as Exclude<OutputKind, 'jsonpath'> } as OutputFormat;
  throw usageError(`unable to match a printer suitable for the output format "${value}", allowed formats are: ${supported.join(',')}`);
}

/** "cloneset.apps.kruise.io/web" (kubectl's name form: lowercase kind, group when not core). */
export function resourceName(kind: string, group: string, name: string): string {
  return `${kind.toLowerCase()}${group ? `.${group}` : ''}/${name}`;
}

export type DryRunMode = 'none' | 'client' | 'server';

/** Parses --dry-run (none|client|server; bare flag = client, like kubectl). Throws a usage error. */
export function parseDryRun(value: string | boolean | undefined): DryRunMode {
  if (value === undefined || value === false) return 'none';
  if (value === true || value === '') return 'client';
  if (value === 'none' || value === 'client' || value === 'server') return value;
  throw usageError(`invalid dry-run value "${value}": must be "none", "server", or "client"`);
}

export function dryRunSuffix(dryRun: DryRunMode): string {
  return dryRun === 'client' ? ' (dry run)' : dryRun === 'server' ? ' (server dry run)' : '';
}

/** "cloneset.apps.kruise.io/web image updated (dry run)" */
export function mutationLine(kind: string, group: string, name: string, verb: string, dryRun: DryRunMode): string {
  return `${resourceName(kind, group, name)} ${verb}${dryRunSuffix(dryRun)}`;
}

/**
 * A value as -o yaml prints it: YAML 1.1 quoting (kubectl reads 1.1, where an unquoted `on`/`yes`/`y`
 * would become a boolean), or KYAML for -o kyaml (its own `---` header).
 */
export function yamlText(data: unknown, format: { kyaml?: boolean } = {}): string {
  if (format.kyaml) return kyamlDocument(data);
  return yamlLib().stringify(data, { version: '1.1', lineWidth: 0, aliasDuplicateObjects: false });
}

/** A document of a stream (-w, JSON Lines' YAML twin): `---` between YAML documents; KYAML brings its own. */
export function yamlStreamDocument(data: unknown, format: { kyaml?: boolean }, index: number): string {
  const doc = yamlText(data, format);
  return index === 0 || format.kyaml ? doc : `---\n${doc}`;
}

/** Prints objects in json/yaml/name/jsonpath form (a List when several, like kubectl). */
export function formatObjects(objects: KubeObject[], format: OutputFormat, opts: { list?: boolean; jsonpathNewline?: boolean } = {}): string {
  // `opts.list`: a list request (kubectl get TYPE) prints a List even with one item.
  // `opts.jsonpathNewline`: end jsonpath output with a newline (kubectl does not: `$(… -o jsonpath=…)` relies on it).
  const single = objects.length === 1 && opts.list !== true;
  // json and yaml leave out metadata.managedFields, as kubectl's printers do (--show-managed-fields=false).
  const shown = format.kind === 'json' || format.kind === 'yaml' ? objects.map(withoutManagedFields) : objects;
  const data: unknown = single ? shown[0] : { apiVersion: 'v1', kind: 'List', items: shown, metadata: { resourceVersion: '' } };
  switch (format.kind) {
    case 'json':
      return `${JSON.stringify(data, null, 4)}\n`;
    case 'yaml':
      return yamlText(data, format);
    case 'name':
      return objects.map((o) => `${resourceName(o.kind ?? '', apiGroupOf(o.apiVersion), o.metadata.name ?? '')}\n`).join('');
    case 'jsonpath': {
      try {
        const out = compileJsonPath(format.template).execute(data);
        return opts.jsonpathNewline && out !== '' && !out.endsWith('\n') ? `${out}\n` : out;
      } catch (e) {
        if (e instanceof JsonPathError) throw usageError(`error executing jsonpath "${format.template}": ${e.message}`);
        throw e;
      }
    }
    default:
      throw new Error(`formatObjects cannot print ${format.kind}; use a table printer`);
  }
}

function withoutManagedFields(obj: KubeObject): KubeObject {
  if (!obj?.metadata || obj.metadata.managedFields === undefined) return obj;
  const { managedFields: _managedFields, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}
