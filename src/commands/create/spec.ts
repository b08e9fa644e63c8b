// `create pps`: names, flags and help only; the implementation loads lazily.
import type { Command } from 'commander';
import type { CommandContext } from '../../cli/context';
import { lazyAction } from '../lazy';

export function registerCreate(program: Command, ctx: CommandContext, shallow = false): void {
  const p = ctx.programName;
  const create = program.command('create').description('create Kruise objects (pps: PersistentPodState)').usage('pps NAME --for TYPE/NAME [flags]').helpCommand(false);
  if (shallow) return;
  create
    .command('pps')
    .aliases(['persistentpodstate', 'persistentpodstates'])
    .description('create a PersistentPodState that keeps the pods of a StatefulSet on the node topology they were first placed on')
    .usage('NAME --for sts/NAME|asts/NAME [--required-topology k1,k2] [--preferred-topology k[:weight],...] [flags]')
    .argument('[name]')
    .option('--for <TYPE/NAME>', 'the StatefulSet (sts/NAME, native) or Advanced StatefulSet (asts/NAME)')
    .option('--required-topology <keys>', 'node label keys a recreated pod must match (comma-separated)')
    .option('--preferred-topology <key:weight,...>', 'node label keys a recreated pod prefers, each with an optional :weight 1-100 (default 100)')
    .option('--persistent-annotations <keys>', 'pod annotations to record and restore (comma-separated)')
    .option('--retention <policy>', 'WhenScaled (default: drop states of scaled-in pods) or WhenDeleted')
    .option('--auto', 'set the auto-generate annotations on the StatefulSet instead; Kruise creates a PPS named after it')
    .option('--preview', 'print the pod states that would be recorded now (nothing is created)')
    .option('--dry-run [mode]', 'none, client or server')
    .option('-o, --output <format>', 'yaml, json, name or jsonpath=TEMPLATE')
    .addHelpText(
      'after',
      `\nExamples:\n  ${p} create pps db --for sts/db --required-topology topology.kubernetes.io/zone --preferred-topology kubernetes.io/hostname:80\n  ${p} create pps --for asts/db --auto --preferred-topology kubernetes.io/hostname\n  ${p} create pps db --for sts/db --required-topology topology.kubernetes.io/zone --preview`,
    )
    .action(lazyAction(ctx, () => import('./pps')));
}
