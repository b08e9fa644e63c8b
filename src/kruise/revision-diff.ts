// Printable templates and unified diffs of two revisions (`rollout history --revision/--diff`).
// Kept apart from revisions.ts so that status and undo never load the diff and YAML code.
import { createTwoFilesPatch } from 'diff';
import { stringify as stringifyYaml } from 'yaml';
import type { Revision } from './revisions';

/** A template as YAML with sorted keys, so that diffs show content changes only. */
export function templateYaml(template: unknown): string {
  return stringifyYaml(template, { sortMapEntries: true });
}

/** Unified diff of two revisions' templates. Empty hunks when they are equal. */
export function templateDiff(a: Revision, b: Revision): string {
  return createTwoFilesPatch(`revision ${a.revision}`, `revision ${b.revision}`, templateYaml(a.template), templateYaml(b.template), a.name, b.name);
}
