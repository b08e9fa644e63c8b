// Renders `--preview` view models (kruise/preview): a table per workload on a terminal, or one JSON
// document `{"kind":"Preview","items":[...]}` for machines. Rendering only; nothing here reads the API.
import type { PodPreview, WorkloadPreview } from '../kruise/preview/types';
import { formatTable } from './table';
import { resourceName } from './output';
import { apiGroupOf } from '../kruise/api-version';

function quantities(change: { limits?: Record<string, string>; requests?: Record<string, string> }): string {
  const parts: string[] = [];
  for (const list of ['requests', 'limits'] as const) {
    for (const [k, v] of Object.entries(change[list] ?? {})) parts.push(`${list}.${k}=${v}`);
  }
  return parts.join(',');
}

/** What happens inside the pod: images, resizes, restarts in launch-priority order. */
function details(p: PodPreview): string {
  const out: string[] = [];
  for (const [c, image] of Object.entries(p.images ?? {})) out.push(`${c}=${image}`);
  for (const [c, change] of Object.entries(p.resize ?? {})) out.push(`${c} ${quantities(change)}`);
  if (p.restartOrder?.length) out.push(`restart ${p.restartOrder.map((b) => b.join('+')).join(' → ')}`);
  if (p.staysReady) out.push('stays ready');
  if (p.reasons?.length && out.length === 0) out.push(p.reasons.join('; '));
  return out.join('; ');
}

function actionCell(p: PodPreview): string {
  return p.ifGateOn ? `${p.action} (${p.ifGateOn.action} if ${p.ifGateOn.gate} is on)` : p.action;
}

export function formatPreviewTable(previews: readonly WorkloadPreview[]): string {
  const blocks = previews.map((v) => {
    const title = resourceName(v.kind, apiGroupOf(v.apiVersion), v.name);
    const gates = Object.entries(v.featureGates)
      .map(([g, s]) => `${g}=${s}`)
      .join(', ');
    const head = `${title}: ${v.command} --preview (policy ${v.policy}, replicas ${v.replicas}, partition ${v.partition}, maxUnavailable ${v.maxUnavailable}, maxSurge ${v.maxSurge}${v.paused ? ', paused' : ''}${gates ? `; gates ${gates}${v.featureGatesFrom ? ` from ${v.featureGatesFrom}` : ''}` : ''})\n`;
    if (v.noChange) return `${head}no change: the template stays the same, no pod is touched\n`;
    const table = formatTable(
      ['POD', 'NODE', 'ACTION', 'BATCH', 'DETAILS'],
      v.pods.map((p) => [p.name, p.node ?? '', actionCell(p), p.batch ?? '', details(p)]),
      { emptyCell: '' },
    );
    const batches = v.batches.map((b) => {
      const surge = b.surge > 0 ? ` (+${b.surge} surge pod${b.surge === 1 ? '' : 's'})` : '';
      const budget = b.budgetHeadroom !== undefined ? ` [budget ${b.budgetName ?? ''}: ${b.budgetHeadroom} may be unavailable]` : '';
      return `  batch ${b.index}: ${b.pods.join(', ') || '(no existing pod)'}${surge}${budget}\n`;
    });
    const warnings = v.warnings.map((w) => `Warning: ${w}\n`);
    return `${head}${table}${batches.length ? `Batches:\n${batches.join('')}` : ''}${warnings.join('')}`;
  });
  return `${blocks.join('\n')}Nothing was written (preview).\n`;
}

export function formatPreviewJson(previews: readonly WorkloadPreview[]): string {
  return `${JSON.stringify({ kind: 'Preview', items: previews }, null, 2)}\n`;
}
