// `why TYPE/NAME...`: GETs and lists only (unless --fix), then the pure rules of src/kruise/why.
import type { CommandContext } from '../cli/context';
import { failure, usageError } from '../cli/exit';
import type { KubeClient, KubeObject, ResourceType } from '../kube/client';
import { budgetCoversWorkload, controllerBehind, isKruiseWorkload, leftoverPatch, releaseInProgress, whyFindings } from '../kruise/why/findings';
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
      let rollout: Obj | undefined;
      let kind: string;
      let wname = name;
      if (/^rollouts?(\.rollouts\.kruise\.io)?$/.test(type)) {
        const rrt = await client.resolve('rollouts.rollouts.kruise.io');
        rollout = (await client.get(rrt, name, ns)) as unknown as Obj;
        const ref = rolloutWorkloadRef(rollout as unknown as KubeObject);
        if (!ref) throw failure(`rollout/${name} has no workloadRef`);
        kind = ref.kind;
        wname = ref.name;
      } else {
        kind = type;
      }
      const rt = await client.resolve(kind.toLowerCase());
      const workload = (await client.get(rt, wname, ns)) as unknown as Obj;
      const wkind = String(workload.kind);
      if (!rollout) {
        rollout = (await listOptional(client, 'rollouts.kruise.io', 'rollouts', ns)).find((r) => {
          const ref = rolloutWorkloadRef(r as unknown as KubeObject);
          return ref?.name === wname && ref.kind === wkind;
        });
      }
      // The whole selector (matchExpressions too): a sibling sharing only the matchLabels is not this workload.
      const selector = rec(rec(workload.spec).selector) as LabelSelector;
      const sel = labelSelectorString(selector);
      const pods = wkind === 'SidecarSet' || !sel ? [] : ((await client.list(await client.resolve('pods'), ns, { labelSelector: sel })).items as unknown as Obj[]);
      // PodUnavailableBudgets only: a PodDisruptionBudget guards evictions, never a workload's update (findings.ts).
      const budgets = (await listOptional(client, 'policy.kruise.io', 'podunavailablebudgets', ns)).filter((b) => budgetCoversWorkload(b, workload));
      const ref = `${wkind.toLowerCase()}/${wname}`;
      if (opts.fix) {
        if (releaseInProgress(rollout)) throw failure(`${ref}: a Kruise Rollout release is in progress (rollout/${String(rec(rollout?.metadata).name)}); --fix refused`);
        const patch = leftoverPatch(workload, rollout);
        if (!patch) {
          ctx.term.stdout.write(`${ref}: no Kruise Rollout leftovers\n`);
          continue;
        }
        ctx.term.stdout.write(`${ref}: ${patch.reasons.join('; ')}\npatch (JSON): ${JSON.stringify(patch.ops)}\n`);
        await client.patch(rt, wname, 'json', patch.ops, ns, { dryRun: true });
        // The `test` ops make the write conditional on what was read: a concurrent change fails it with 422/409.
        await client.patch(rt, wname, 'json', patch.ops, ns);
        ctx.term.stdout.write(`${ref} restored\n`);
        continue;
      }
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
