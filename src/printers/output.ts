// -o handling shared by every command: parse the flag once (usage errors before
// any request), then print objects or mutation lines the kubectl way.
import type { KubeObject } from '../kruise/types';

export type OutputFormat =
  | { kind: 'default' }
  | { kind: 'wide' }
  | { kind: 'json' }
  | { kind: 'yaml' }
  | { kind: 'name' }
  | { kind: 'jsonpath'; template: string };

export type OutputKind = OutputFormat['kind'];

/** Parses an -o value; `allowed` lists the formats the verb supports. Throws a usage error (exit 2). */
export declare function parseOutputFormat(value: string | undefined, allowed: readonly OutputKind[]): OutputFormat;

/** "cloneset.apps.kruise.io/web" (kubectl's name form: lowercase kind, group when not core). */
export declare function resourceName(kind: string, group: string, name: string): string;

export type DryRunMode = 'none' | 'client' | 'server';

/** Parses --dry-run (none|client|server; bare flag = client, like kubectl). Throws a usage error. */
export declare function parseDryRun(value: string | boolean | undefined): DryRunMode;

/** "cloneset.apps.kruise.io/web image updated (dry run)" */
export declare function mutationLine(kind: string, group: string, name: string, verb: string, dryRun: DryRunMode): string;

/** Prints objects in json/yaml/name/jsonpath form (a List when several, like kubectl). */
export declare function formatObjects(objects: KubeObject[], format: OutputFormat): string;
