// `why TYPE/NAME...`: GETs and lists only (unless --fix), then the pure rules of src/kruise/why.
import type { CommandContext } from '../cli/context';
import { failure, usageError } from '../cli/exit';
import type { KubeClient, KubeObject, ResourceType } from '../kube/client';
import { budgetCoversWorkload, controllerBehind, isKruiseWorkload, whyFindings } from '../kruise/why/findings';
import { restoreLeftovers } from '../engine/why-fix';
import { KRUISE_MANAGER } from '../kruise/kruise-manager';
import { rolloutWorkloadRef } from '../kruise/rollout/read';
import { labelSelectorString, type LabelSelector } from '../kruise/selectors';
import { renderWhyText, type WhyAnswer } from '../printers/why';
import { parseOutputFormat, yamlText } from '../printers/output';
import { parseTargets } from '../kube/targets';
import { KubeApiError } from '../kube/errors';

export interface WhyOptions {
  output?: string;
  fix?: boolean;
}

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

async function listOptional(client: KubeClient, group: string, resource: string, ns: string, known?: ResourceType): Promise<Obj[]> {
  // Not served (no Kruise, no Kruise Rollout): nothing to read there.
  const rt = known ?? (await client.discovered(group, resource).catch(() => undefined));
  if (!rt) return [];
  // List items carry no kind; the findings name the object by it.
  return (await client.list(rt, ns)).items.map((i) => ({ kind: rt.kind, ...(i as unknown as Obj) }));
}

const DEPLOYMENTS: ResourceType = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true };

/** kruise-manager's Deployment, or null when it is absent or may not be read (the finding then says so). */
async function readManager(client: KubeClient): Promise<Obj | null> {
  try {
    return (await client.get(DEPLOYMENTS, KRUISE_MANAGER.name, KRUISE_MANAGER.namespace)) as unknown as Obj;
  } catch (err) {
    if (err instanceof KubeApiError && (err.status === 404 || err.status === 403)) return null;
    throw err;
  }
}

export async function run(ctx: CommandContext, args: string[], opts: WhyOptions): Promise<number> {
  const format = parseOutputFormat(opts.output, ['default', 'json', 'yaml']);
  if (args.length === 0) throw usageError('why needs TYPE/NAME');
  // kubectl's argument forms, each type and name validated before any request (exit 2).
  const specs = parseTargets({ args }) as Array<{ type: string; name: string }>; // no -l: every spec is named
  const { connect } = await import('../kube/connect');
  const client = await connect(ctx);
  const answers: WhyAnswer[] = [];
  try {
    const ns = client.namespace;
    for (const { type, name } of specs) {
      const isRollout = /^rollouts?(\.rollouts\.kruise\.io)?$/.test(type);
      const rt = isRollout ? undefined : await client.resolve(type.toLowerCase());
      /** The workload (through its Rollout when one is named) and the Rollout bound to it, read afresh. */
      const read = async (): Promise<{ workload: Obj; rollout?: Obj; wrt: ResourceType }> => {
        let rollout: Obj | undefined;
        let wrt = rt;
        let wname = name;
        if (isRollout) {
          const rrt = await client.resolve('rollouts.rollouts.kruise.io');
          rollout = (await client.get(rrt, name, ns)) as unknown as Obj;
          const ref = rolloutWorkloadRef(rollout as unknown as KubeObject);
          if (!ref) throw failure(`rollout/${name} has no workloadRef`);
          wrt = await client.resolve(ref.kind.toLowerCase());
          wname = ref.name;
        }
        const workload = (await client.get(wrt!, wname, ns)) as unknown as Obj;
        const wkind = String(workload.kind);
        rollout ??= (await listOptional(client, 'rollouts.kruise.io', 'rollouts', ns)).find((r) => {
          const ref = rolloutWorkloadRef(r as unknown as KubeObject);
          return ref?.name === wname && ref.kind === wkind;
        });
        return { workload, rollout, wrt: wrt! };
      };
      const first = await read();
      const { workload, rollout } = first;
      const wname = String(rec(workload.metadata).name);
      const wkind = String(workload.kind);
      const ref = `${wkind.toLowerCase()}/${wname}`;
      if (opts.fix) {
        // One conditional write; re-read and re-decided when the workload changed in between (engine/why-fix.ts).
        let reads = 0;
        const result = await restoreLeftovers(
          {
            read: async () => {
              const r = reads++ === 0 ? first : await read();
              return { workload: r.workload as unknown as KubeObject, rollout: r.rollout };
            },
            patch: (ops, dryRun) => client.patch(first.wrt, wname, 'json', ops, ns, { dryRun }),
          },
          ref,
        );
        if (!result.restored) {
          ctx.term.stdout.write(`${ref}: no Kruise Rollout leftovers\n`);
          continue;
        }
        const again = result.reads > 1 ? ` (read again ${result.reads - 1}x: it changed under the write)` : '';
        ctx.term.stdout.write(`${ref}: ${result.restored.reasons.join('; ')}\npatch (JSON): ${JSON.stringify(result.restored.ops)}\n${ref} restored${again}\n`);
        continue;
      }
      // The whole selector (matchExpressions too): a sibling sharing only the matchLabels is not this workload.
      const selector = rec(rec(workload.spec).selector) as LabelSelector;
      const sel = labelSelectorString(selector);
      const pods = wkind === 'SidecarSet' || !sel ? [] : ((await client.list(await client.resolve('pods'), ns, { labelSelector: sel })).items as unknown as Obj[]);
      // PodUnavailableBudgets only: a PodDisruptionBudget guards evictions, never a workload's update (findings.ts).
      const budgets = (await listOptional(client, 'policy.kruise.io', 'podunavailablebudgets', ns)).filter((b) => budgetCoversWorkload(b, workload));
      // Only when a Kruise workload's controller is behind: is kruise-manager there to run it? (null: not readable)
      const manager = controllerBehind(workload) && isKruiseWorkload(workload) ? await readManager(client) : undefined;
      answers.push({ object: ref, namespace: ns, findings: whyFindings({ workload, pods, budgets, rollout, manager }) });
    }
  } finally {
    client.close();
  }
  if (opts.fix) return 0;
  const out = ctx.term.stdout;
  if (format.kind === 'json') out.write(`${JSON.stringify(answers, null, 2)}\n`);
  else if (format.kind === 'yaml') out.write(yamlText(answers, format));
  else out.write(renderWhyText(answers));
  return 0;
}
