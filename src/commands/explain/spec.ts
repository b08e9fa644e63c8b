// `explain partition`: names, flags and help only. The implementation loads lazily, and its
// offline path never loads the Kubernetes client (only the live TYPE/NAME branch does).
import type { KruiseCommand } from '../../cli/help';
import type { CommandContext } from '../../cli/context';
import { lazyAction } from '../lazy';

export function registerExplain(program: KruiseCommand, ctx: CommandContext, shallow = false): void {
  const p = ctx.programName;
  const explain = program
    .command('explain')
    .description("explain Kruise's arithmetic (partition, maxUnavailable, maxSurge, batch plans), offline or for a live object")
    .helpCommand(false);
  if (shallow) return;

  explain
    .command('partition')
    .description('show which pods a partition keeps at the old revision, expectedUpdatedReplicas, rounding of maxUnavailable/maxSurge, and the rules that fired')
    .usage('[TYPE/NAME | -f FILE] [--replicas=N] [--partition=P] [--max-unavailable=X] [--max-surge=Y] [--kind=cloneset|asts|ads|statefulset] [--plan=P1,P2,...] [-o json]')
    .argument('[resource...]', 'a live object (TYPE/NAME or TYPE NAME): read from the cluster')
    .option('-f, --filename <file>', 'a manifest (YAML or JSON; "-" for stdin): values typed exactly as the API server sees them')
    .option('--replicas <n>', 'spec.replicas (absent = 1, as Kruise defaults it); desiredNumberScheduled for --kind=ads')
    .option('--partition <p>', 'partition: an integer or a percentage like 90% (a manifest value is overridden)')
    .option('--max-unavailable <x>', 'maxUnavailable: integer or percentage')
    .option('--max-surge <y>', 'maxSurge: integer or percentage')
    .option('--kind <kind>', 'cloneset (default), asts, ads or statefulset (native, partition is an ordinal)')
    .option('--subset <name>', "a UnitedDeployment's subset (default: each subset in turn)")
    .option('--plan <list>', 'comma-separated partitions of a batch plan, e.g. 90%,50%,0')
    .option('-o, --output <format>', 'json, yaml or kyaml: the report as a document')
    .notes('Exit codes: 0 ok, 1 cluster error (live form), 2 invalid value (e.g. a partition "99" without %).')
    .examples(`
      # Which of 8 pods a partition of 90% keeps at the old revision
      ${p} explain partition --replicas 8 --partition 90%

      # A batch plan of 100 pods, as JSON
      ${p} explain partition --replicas 100 --plan=80%,50%,20%,0 -o json

      # The values of a manifest, typed as the API server sees them
      ${p} explain partition -f cloneset.yaml

      # A live CloneSet
      ${p} explain partition cloneset/web

      # One subset of a UnitedDeployment
      ${p} explain partition uniteddeployment/web --subset zone-a`)
    .action(lazyAction(ctx, () => import('./partition')));
}
