// Printable templates and unified diffs of two revisions (`rollout history --revision/--diff`).
// Kept apart from revisions.ts so that status and undo never load the diff code; YAML comes through
// yamlLib() when a template is printed, so a plain `rollout history` table never loads it.
import { createTwoFilesPatch } from 'diff';
import { yamlLib } from '../lib/yaml';
import type { Revision } from './revisions';

/** A template as YAML with sorted keys, so that diffs show content changes only. */
export function templateYaml(template: unknown): string {
  return yamlLib().stringify(template, { sortMapEntries: true });
}

/** Unified diff of two revisions' templates. Empty hunks when they are equal. */
export function templateDiff(a: Revision, b: Revision): string {
  return createTwoFilesPatch(`revision ${a.revision}`, `revision ${b.revision}`, templateYaml(a.template), templateYaml(b.template), a.name, b.name);
}
