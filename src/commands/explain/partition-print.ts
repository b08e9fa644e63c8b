// Rendering of the partition report: the arrow line a release manager reads, the rounding of
// maxUnavailable/maxSurge, warnings, and the batch table; or the contract's JSON object.
import { countOf, type PartitionReport } from '../../kruise/partition';
import type { RolloutPlan } from '../../kruise/plan';
import { formatTable } from '../../printers/table';
import { KIND_TITLES } from './partition-input';

export interface LiveState {
  namespace: string;
  name: string;
  kind: string;
  updatedReplicas: number;
  updatedReadyReplicas?: number;
  readyReplicas: number;
  replicas: number;
  /** expectedUpdatedReplicas as the cluster reports it (undefined when it does not). */
  statusExpected?: number;
  batchDone: boolean;
  /** Pods per revision label value: total and ready. */
  perRevision: Array<{ revision: string; pods: number; ready: number; current: 'update' | 'current' | 'other' }>;
}

/**
 * The contract's -o json object (its keys first, in its order, `plan` last and only with --plan),
 * plus what the text shows beyond them: `chain` (the arrow line), `ordinals` (ASTS/StatefulSet:
 * updated in order, kept), and for a live object `object` and `live` (the "Now:" section).
 */
export function reportJson(report: PartitionReport, plan?: RolloutPlan, live?: LiveState): Record<string, unknown> {
  const out: Record<string, unknown> = {
    kind: report.kind,
    replicas: report.replicas,
    partition: report.partition,
    partitionReplicas: report.partitionReplicas,
    expectedUpdatedReplicas: report.expectedUpdatedReplicas,
    maxUnavailable: report.maxUnavailable,
    maxSurge: report.maxSurge,
    rules: report.rules,
    warnings: plan ? [...report.warnings, ...plan.warnings] : report.warnings,
    chain: report.chain,
  };
  if (report.ordinals) out.ordinals = { updated: report.ordinals.updated, kept: report.ordinals.kept };
  if (live) {
    out.object = { kind: live.kind, namespace: live.namespace, name: live.name };
    out.live = {
      updatedReplicas: live.updatedReplicas,
      ...(live.updatedReadyReplicas === undefined ? {} : { updatedReadyReplicas: live.updatedReadyReplicas }),
      readyReplicas: live.readyReplicas,
      replicas: live.replicas,
      ...(live.statusExpected === undefined ? {} : { statusExpectedUpdatedReplicas: live.statusExpected }),
      revisions: live.perRevision,
      batchDone: live.batchDone,
    };
  }
  if (plan) out.plan = plan.steps;
  return out;
}

export function reportText(report: PartitionReport, plan?: RolloutPlan, live?: LiveState): string {
  const lines: string[] = [];
  const unit = report.kind === 'ads' ? 'scheduled nodes' : report.kind === 'sidecarset' ? 'matched pods' : 'replicas';
  const head = `${countOf(report.replicas, unit)}, partition ${report.partition === null ? '(none)' : String(report.partition)}`;
  const title = live ? `${live.kind} ${live.namespace ? `${live.namespace}/` : ''}${live.name}` : KIND_TITLES[report.kind];
  lines.push(`${title}: ${[head, ...report.chain].join(' → ')}`);
  lines.push(`maxUnavailable ${report.maxUnavailable}, maxSurge ${report.maxSurge}`);
  if (report.ordinals) {
    const fmt = (xs: number[]): string => (xs.length ? xs.join(', ') : 'none');
    lines.push(`ordinals updated (in order): ${fmt(report.ordinals.updated)}; kept at the old revision: ${fmt(report.ordinals.kept)}`);
  }
  lines.push('', 'Rules:', ...report.rules.map((r) => `  - ${r}`));
  const warnings = plan ? [...report.warnings, ...plan.warnings] : report.warnings;
  if (warnings.length) lines.push('', 'Warnings:', ...warnings.map((w) => `  - ${w}`));
  if (live) {
    lines.push('', 'Now:');
    const ready = live.updatedReadyReplicas === undefined ? '' : `, ${live.updatedReadyReplicas} of them ready`;
    lines.push(`  ${live.updatedReplicas} updated${ready}; ${live.readyReplicas} of ${live.replicas} ready`);
    if (live.statusExpected !== undefined && live.statusExpected !== report.expectedUpdatedReplicas) {
      lines.push(`  the cluster reports expectedUpdatedReplicas ${live.statusExpected} (computed here: ${report.expectedUpdatedReplicas})`);
    }
    for (const r of live.perRevision) {
      const tag = r.current === 'update' ? ' (update revision)' : r.current === 'current' ? ' (current revision)' : '';
      lines.push(`  revision ${r.revision}${tag}: ${countOf(r.pods, 'pods')}, ${r.ready} ready`);
    }
    lines.push(`  current batch: ${live.batchDone ? 'done' : 'in progress'}`);
  }
  let text = `${lines.join('\n')}\n`;
  if (plan) {
    text += `\nPlan:\n${formatTable(
      ['STEP', 'PARTITION', 'KEPT-OLD', 'AT-NEW-REVISION', 'UPDATED-IN-STEP', 'MAX-UNAVAILABLE'],
      plan.steps.map((s) => [s.step, String(s.partition), s.partitionReplicas, s.updatedReplicas, s.updatedInStep, s.maxUnavailable]),
    )}`;
  }
  return text;
}
