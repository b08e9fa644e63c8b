// `describe pps [NAME]`, `describe rollout NAME [-w] [-o json|yaml]`: names, flags and help only;
// the implementation loads lazily.
import type { KruiseCommand } from '../../cli/help';
import type { CommandContext } from '../../cli/context';
import { lazyAction } from '../lazy';

export function registerDescribe(program: KruiseCommand, ctx: CommandContext): void {
  const p = ctx.programName;
  program
    .command('describe')
    .description(
      'describe a PersistentPodState (all of the namespace without NAME): its topology, the recorded pod states, pods elsewhere than recorded and injected affinity; ' +
        'or a Kruise Rollout: its steps with the current one marked, stable/canary revisions, traffic, pods by revision and batch, conditions',
    )
    .usage('pps [NAME] | rollout NAME [-w] [-o json|yaml]')
    .argument('<type>')
    .argument('[name]')
    .option('-w, --watch', 'rollout: follow the release (redrawn in place on a terminal, one line per change otherwise) until it completes (exit 0) or is cancelled or fails (exit 1); a Rollout at rest is watched for its next release')
    .option('-o, --output <format>', 'rollout: json or yaml (the view model; with -w one document per change)')
    .examples(`
      # Describe PersistentPodState db
      ${p} describe pps db

      # Describe every PersistentPodState of namespace shop
      ${p} describe pps -n shop

      # Describe Kruise Rollout web: steps, revisions, traffic, pods by batch
      ${p} describe rollout web

      # Follow its release until it completes
      ${p} describe rollout web -w

      # The same view as JSON
      ${p} describe rollout web -o json`)
    .action(lazyAction(ctx, () => import('./run')));
}
