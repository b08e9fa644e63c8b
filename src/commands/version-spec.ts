// `version`: plugin version, and the server's when reachable (implementation in version.ts).
import type { KruiseCommand } from '../cli/help';
import type { CommandContext } from '../cli/context';
import { lazyAction } from './lazy';

export function registerVersion(program: KruiseCommand, ctx: CommandContext): void {
  program
    .command('version')
    .description('print the plugin version and, when the cluster is reachable, the server version')
    .option('--client', 'print only the plugin version (no request to the server)')
    .option('-o, --output <format>', 'json or yaml')
    .examples(`
      # The plugin's version and, when the cluster is reachable, the server's
      ${ctx.programName} version

      # Only the plugin's, as JSON
      ${ctx.programName} version --client -o json`)
    .action(lazyAction(ctx, () => import('./version')));
}
