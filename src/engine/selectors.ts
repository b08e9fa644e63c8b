// Label selectors as the API's query string wants them.
import type { LabelSelectorShape } from '../kruise/builders/imagepulljob';

/** {matchLabels, matchExpressions} → "a=b,c in (d,e),!f". Throws when it selects everything. */
export function labelSelectorString(sel: LabelSelectorShape | undefined): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(sel?.matchLabels ?? {})) parts.push(`${k}=${v}`);
  for (const e of sel?.matchExpressions ?? []) {
    const vals = (e.values ?? []).join(',');
    switch (e.operator) {
      case 'In':
        parts.push(`${e.key} in (${vals})`);
        break;
      case 'NotIn':
        parts.push(`${e.key} notin (${vals})`);
        break;
      case 'Exists':
        parts.push(e.key);
        break;
      case 'DoesNotExist':
        parts.push(`!${e.key}`);
        break;
    }
  }
  return parts.join(',');
}
