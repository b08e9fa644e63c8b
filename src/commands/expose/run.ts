// `expose (-f FILE | TYPE NAME | TYPE/NAME)`: kubectl expose for Kruise workloads too. Every flag and the
// kind are checked before any request (exit 2); each object is read once (none with -f), every Service is
// built and checked against the API's rules before the first create (exit 2, nothing created), then one
// POST per Service (none with --dry-run=client). Rules: src/kruise/builders/service*.ts, rules/service.ts.
import type { CommandContext } from '../../cli/context';
import { ExitCode, usageError } from '../../cli/exit';
import { lookupType } from '../../kube/aliases';
import type { KubeObject, ResourceType } from '../../kube/client';
import { parseTargets, validateNamespace } from '../../kube/targets';
import { splitApiVersion } from '../../kruise/api-version';
import { checkExposeFlags, exposeService, serviceListMerge, serviceProblems, typedServiceFields, type ExposeFlags } from '../../kruise/builders/service';
import { exposeRefusal, exposeSourceFor, type ExposeSource } from '../../kruise/builders/service-sources';
import type { Service } from '../../kruise/rules/service';
import { OVERRIDE_TYPES, OverrideError, applyOverrides, type OverrideType } from '../../lib/overrides';
import { formatObjects, mutationLine, parseDryRun, parseOutputFormat, resourceName } from '../../printers/output';
import { fieldManagerFlag } from '../restart/flags';

interface ExposeCommandFlags {
  filename?: string[];
  port?: string;
  targetPort?: string;
  protocol?: string;
  name?: string;
  type?: string;
  externalIp?: string;
  loadBalancerIp?: string;
  selector?: string;
  labels?: string;
  sessionAffinity?: string;
  clusterIp?: string;
  overrides?: string;
  overrideType?: string;
  saveConfig?: boolean;
  dryRun?: string | boolean;
  output?: string;
  fieldManager?: string;
}

const SERVICES: ResourceType = { group: '', version: 'v1', resource: 'services', kind: 'Service', namespaced: true };
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const KINDS_HINT = 'hint: expose takes clonesets, advanced statefulsets (asts), uniteddeployments (ud), deployments, replicasets, replicationcontrollers, pods and services';

/** One object to expose: named (read from the cluster) or from -f (used as it is). */
type Target = { named: true; type: string; name: string } | { named: false; object: KubeObject; source: string };

interface Exposed {
  source: ExposeSource;
  object: KubeObject;
  namespace: string;
  /** `cloneset.apps.kruise.io/web`, for messages. */
  label: string;
}

function shapeFlags(flags: ExposeCommandFlags): ExposeFlags {
  return {
    port: flags.port,
    targetPort: flags.targetPort,
    protocol: flags.protocol,
    name: flags.name,
    type: flags.type,
    externalIP: flags.externalIp,
    loadBalancerIP: flags.loadBalancerIp,
    selector: flags.selector,
    labels: flags.labels,
    sessionAffinity: flags.sessionAffinity,
    clusterIP: flags.clusterIp,
  };
}

/** The kind of each target, known without a request: one expose cannot take is exit 2 before anything is sent. */
function checkKinds(targets: readonly Target[]): void {
  for (const t of targets) {
    if (t.named) {
      const ref = lookupType(t.type);
      if (!ref) throw usageError(`unknown resource type "${t.type}"`, KINDS_HINT);
      const refusal = exposeRefusal(ref.known.group, ref.known.kind);
      if (refusal) throw usageError(refusal, KINDS_HINT);
    } else {
      const refusal = exposeRefusal(splitApiVersion(t.object.apiVersion).group, t.object.kind ?? '');
      if (refusal) throw usageError(`${t.source}: ${refusal}`, KINDS_HINT);
    }
  }
}

function withSavedConfig(svc: Service): Service {
  const annotations = { ...(svc.metadata.annotations ?? {}) };
  delete annotations[LAST_APPLIED];
  const { annotations: _dropped, ...meta } = svc.metadata;
  const recorded = { ...svc, metadata: Object.keys(annotations).length > 0 ? { ...meta, annotations } : meta };
  return { ...svc, metadata: { ...svc.metadata, annotations: { ...annotations, [LAST_APPLIED]: `${JSON.stringify(recorded)}\n` } } };
}

export async function run(ctx: CommandContext, args: string[], flags: ExposeCommandFlags): Promise<number> {
  const shape = shapeFlags(flags);
  const checked = checkExposeFlags(shape);
  if (!checked.ok) throw usageError(checked.message);
  const dryRun = parseDryRun(flags.dryRun);
  const output = parseOutputFormat(flags.output, ['json', 'yaml', 'name', 'jsonpath']);
  const overrideType = (flags.overrideType ?? 'merge') as OverrideType;
  if (!OVERRIDE_TYPES.includes(overrideType)) throw usageError(`invalid override type: ${flags.overrideType} (json, merge or strategic)`);
  if (flags.overrides !== undefined) {
    try {
      JSON.parse(flags.overrides);
    } catch (e) {
      throw usageError(`--overrides is not valid JSON: ${(e as Error).message}`);
    }
  }
  const fieldManager = fieldManagerFlag(flags.fieldManager, 'kubectl-expose');
  if (!(flags.filename?.length ?? 0) && args.length === 0) {
    throw usageError('you must provide one or more resources by argument or filename: TYPE NAME, TYPE/NAME or -f FILE', `hint: ${ctx.programName} expose cloneset/web --port=80 --target-port=8080`);
  }
  const specs = parseTargets({ args, filenames: flags.filename });
  const targets = specs.map((s): Target => {
    if (s.kind === 'named') return { named: true, type: s.type, name: s.name };
    if (s.kind === 'object') return { named: false, object: s.object, source: s.source };
    throw new Error(`expose: unexpected target ${s.kind}`); // no -l/--all: expose's -l is --labels
  });
  checkKinds(targets);
  if (shape.name && targets.length > 1) throw usageError(`--name names one Service, but ${targets.length} objects were given: expose them one at a time`);
  const explicitNamespace = ctx.globals.namespace;
  if (explicitNamespace !== undefined) validateNamespace(explicitNamespace);
  for (const t of targets) {
    const ns = t.named ? undefined : t.object.metadata.namespace;
    if (ns !== undefined && explicitNamespace !== undefined && ns !== explicitNamespace) {
      throw usageError(`the namespace from the provided object "${ns}" does not match the namespace "${explicitNamespace}". You must pass '--namespace=${ns}' to perform this operation.`);
    }
  }

  const client = await ctx.kube();
  try {
    const exposed: Exposed[] = [];
    for (const t of targets) {
      if (t.named) {
        const rt = await client.resolve(t.type);
        const source = exposeSourceFor(rt.group, rt.kind);
        if (!source) throw usageError(exposeRefusal(rt.group, rt.kind)!, KINDS_HINT);
        const object = await client.get(rt, t.name, client.namespace, { signal: ctx.signal });
        exposed.push({ source, object, namespace: client.namespace, label: resourceName(rt.kind, rt.group, t.name) });
      } else {
        const group = splitApiVersion(t.object.apiVersion).group;
        const source = exposeSourceFor(group, t.object.kind ?? '')!;
        exposed.push({ source, object: t.object, namespace: t.object.metadata.namespace ?? client.namespace, label: resourceName(t.object.kind ?? '', group, t.object.metadata.name ?? '') });
      }
    }

    // Every Service is built and checked before the first one is sent.
    const services = exposed.map((e): { svc: Service; namespace: string } => {
      const built = exposeService(shape, { source: e.source, object: e.object });
      if (!built.ok) throw usageError(`cannot expose ${e.label}: ${built.message}`);
      let svc = built.value;
      if (flags.overrides !== undefined && flags.overrides !== '') {
        try {
          svc = applyOverrides(svc, flags.overrides, overrideType, serviceListMerge);
        } catch (err) {
          if (err instanceof OverrideError) throw usageError(`cannot apply --overrides (${overrideType}) to the Service of ${e.label}: ${err.message}`);
          throw err;
        }
        if (typeof svc !== 'object' || svc === null || svc.apiVersion !== 'v1' || svc.kind !== 'Service' || typeof svc.metadata !== 'object' || svc.metadata === null) {
          throw usageError(`--overrides must leave a v1 Service (apiVersion "v1", kind "Service", metadata) for ${e.label}`);
        }
        svc = typedServiceFields(svc);
      }
      if (flags.saveConfig) svc = withSavedConfig(svc);
      const problems = serviceProblems(svc);
      if (problems.length > 0) {
        const defaultName = !shape.name && problems.some((p) => p.startsWith('metadata.name:'));
        throw usageError(`cannot expose ${e.label}: the API would refuse Service "${svc.metadata.name ?? ''}": ${problems.join('; ')}`, defaultName ? 'hint: give the Service a valid name with --name' : undefined);
      }
      return { svc, namespace: e.namespace };
    });

    const out = ctx.term.stdout;
    for (const { svc, namespace } of services) {
      let result: KubeObject = svc;
      if (dryRun === 'client') {
        // kubectl shows the namespace of a client dry run only when it was chosen (-n, or here the file's object)
        if (explicitNamespace !== undefined || namespace !== client.namespace) result = { ...svc, metadata: { ...svc.metadata, namespace } };
      } else {
        result = await client.create(SERVICES, svc, namespace, { dryRun: dryRun === 'server', fieldManager, signal: ctx.signal });
      }
      if (output.kind !== 'default') out.write(formatObjects([result], output));
      else out.write(`${mutationLine('Service', '', result.metadata.name ?? svc.metadata.name ?? '', 'exposed', dryRun)}\n`);
    }
    return ExitCode.OK;
  } finally {
    client.close();
  }
}
