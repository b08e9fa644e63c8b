// `gitops export`: Complete (flags), Validate (tool and kinds, before anything is written), Run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CommandContext } from '../../cli/context';
import { failure, usageError } from '../../cli/exit';
import { argocdConfigMapPatch, argocdFiles, HEALTH_KINDS, selectHealthKinds } from '../../kruise/gitops/argocd';
import { fluxKustomizationSnippet } from '../../kruise/gitops/flux';
import { yamlText } from '../../printers/output';

export interface ExportOptions {
  for?: string;
  kinds?: string;
  outDir?: string;
}

export async function run(ctx: CommandContext, args: string[], opts: ExportOptions): Promise<number> {
  if (args.length > 0) throw usageError(`gitops export takes no arguments (got ${args.join(' ')})`);
  const tool = opts.for;
  if (tool === undefined) throw usageError('--for is required: --for=argocd or --for=flux');
  if (tool !== 'argocd' && tool !== 'flux') throw usageError(`--for must be argocd or flux, not "${tool}"`);
  // Flux reads its health checks from the Kustomization: there is no folder layout to write.
  if (tool === 'flux' && opts.outDir !== undefined) throw usageError('--out-dir is for --for=argocd; --for=flux prints a Kustomization snippet');
  const names = opts.kinds === undefined ? [] : opts.kinds.split(',').filter((n) => n.trim() !== '');
  if (opts.kinds !== undefined && names.length === 0) throw usageError('--kinds must name at least one kind');
  const { kinds, unknown } = selectHealthKinds(names);
  if (unknown.length > 0) {
    throw usageError(`--kinds: no health check for ${unknown.map((u) => `"${u}"`).join(', ')}; known: ${HEALTH_KINDS.map((k) => k.names[0]).join(', ')}`);
  }
  const toYaml = (value: unknown): string => yamlText(value);
  if (tool === 'flux') {
    ctx.term.stdout.write(fluxKustomizationSnippet(kinds, toYaml));
    return 0;
  }
  if (opts.outDir === undefined) {
    ctx.term.stdout.write(argocdConfigMapPatch(kinds, toYaml));
    return 0;
  }
  const files = argocdFiles(kinds, toYaml);
  for (const f of files) {
    const path = join(opts.outDir, f.path);
    try {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, f.content);
    } catch (err) {
      throw failure(`cannot write ${path}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  for (const k of kinds) ctx.term.stdout.write(`${join(opts.outDir, k.group, k.kind)}/health.lua (${k.states.length} test states)\n`);
  return 0;
}
