// Decoding of the Kubernetes protobuf encoding for the request bodies kubectl sends that
// way (typed clients: `kubectl create deployment|configmap|secret|namespace|service`,
// `kubectl auth can-i`). A schema table per message, field numbers from k8s.io/api's
// generated.proto; a field the table does not know fails with 415 rather than being dropped.
import { ApiError } from './errors';

type Scalar = 'string' | 'bytes' | 'int32' | 'int64' | 'bool' | 'time' | 'intstr' | 'quantity';
interface Field {
  name: string;
  type: Scalar | string; // a scalar or the name of another message
  repeated?: boolean;
  map?: [Scalar, Scalar | string];
}

/**
 * Go's protobuf encoder writes zero values of non-pointer fields, which JSON would omit
 * (omitempty); only pointer fields keep an explicit zero (replicas: 0 is not "unset").
 */
const KEEP_ZERO = new Set(['replicas', 'revisionHistoryLimit', 'progressDeadlineSeconds', 'terminationGracePeriodSeconds', 'activeDeadlineSeconds', 'automountServiceAccountToken', 'immutable', 'controller', 'blockOwnerDeletion', 'deletionGracePeriodSeconds', 'containerPort', 'port', 'maxUnavailable', 'maxSurge', 'targetPort', 'parallelism', 'completions', 'backoffLimit', 'ttlSecondsAfterFinished', 'suspend', 'startingDeadlineSeconds', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit']);

function isZero(v: unknown): boolean {
  return v === '' || v === 0 || v === false || v === null;
}
type Message = Record<number, Field>;

const f = (name: string, type: Scalar | string, repeated = false): Field => ({ name, type, repeated });
const m = (name: string, key: Scalar, value: Scalar | string): Field => ({ name, type: 'map', map: [key, value] });

const MESSAGES: Record<string, Message> = {
  ObjectMeta: {
    1: f('name', 'string'), 2: f('generateName', 'string'), 3: f('namespace', 'string'), 4: f('selfLink', 'string'), 5: f('uid', 'string'),
    6: f('resourceVersion', 'string'), 7: f('generation', 'int64'), 8: f('creationTimestamp', 'time'), 9: f('deletionTimestamp', 'time'),
    10: f('deletionGracePeriodSeconds', 'int64'), 11: m('labels', 'string', 'string'), 12: m('annotations', 'string', 'string'),
    13: f('ownerReferences', 'OwnerReference', true), 14: f('finalizers', 'string', true), 17: f('managedFields', 'Skip', true),
  },
  Skip: {},
  OwnerReference: { 1: f('kind', 'string'), 3: f('name', 'string'), 4: f('uid', 'string'), 5: f('apiVersion', 'string'), 6: f('controller', 'bool'), 7: f('blockOwnerDeletion', 'bool') },
  LabelSelector: { 1: m('matchLabels', 'string', 'string'), 2: f('matchExpressions', 'LabelSelectorRequirement', true) },
  LabelSelectorRequirement: { 1: f('key', 'string'), 2: f('operator', 'string'), 3: f('values', 'string', true) },
  ConfigMap: { 1: f('metadata', 'ObjectMeta'), 2: m('data', 'string', 'string'), 3: m('binaryData', 'string', 'bytes'), 4: f('immutable', 'bool') },
  Secret: { 1: f('metadata', 'ObjectMeta'), 2: m('data', 'string', 'bytes'), 3: f('type', 'string'), 4: m('stringData', 'string', 'string'), 5: f('immutable', 'bool') },
  Namespace: { 1: f('metadata', 'ObjectMeta'), 2: f('spec', 'NamespaceSpec'), 3: f('status', 'Skip') },
  NamespaceSpec: { 1: f('finalizers', 'string', true) },
  ServiceAccount: { 1: f('metadata', 'ObjectMeta'), 2: f('secrets', 'Skip', true), 3: f('imagePullSecrets', 'LocalObjectReference', true), 4: f('automountServiceAccountToken', 'bool') },
  LocalObjectReference: { 1: f('name', 'string') },
  Deployment: { 1: f('metadata', 'ObjectMeta'), 2: f('spec', 'DeploymentSpec'), 3: f('status', 'Skip') },
  DeploymentSpec: {
    1: f('replicas', 'int32'), 2: f('selector', 'LabelSelector'), 3: f('template', 'PodTemplateSpec'), 4: f('strategy', 'DeploymentStrategy'),
    5: f('minReadySeconds', 'int32'), 6: f('revisionHistoryLimit', 'int32'), 7: f('paused', 'bool'), 9: f('progressDeadlineSeconds', 'int32'),
  },
  DeploymentStrategy: { 1: f('type', 'string'), 2: f('rollingUpdate', 'RollingUpdateDeployment') },
  RollingUpdateDeployment: { 1: f('maxUnavailable', 'intstr'), 2: f('maxSurge', 'intstr') },
  PodTemplateSpec: { 1: f('metadata', 'ObjectMeta'), 2: f('spec', 'PodSpec') },
  PodSpec: {
    1: f('volumes', 'Volume', true), 2: f('containers', 'Container', true), 3: f('restartPolicy', 'string'), 4: f('terminationGracePeriodSeconds', 'int64'),
    5: f('activeDeadlineSeconds', 'int64'), 6: f('dnsPolicy', 'string'), 7: m('nodeSelector', 'string', 'string'), 8: f('serviceAccountName', 'string'),
    9: f('serviceAccount', 'string'), 10: f('nodeName', 'string'), 11: f('hostNetwork', 'bool'), 12: f('hostPID', 'bool'), 13: f('hostIPC', 'bool'),
    14: f('securityContext', 'Empty'), 15: f('imagePullSecrets', 'LocalObjectReference', true), 16: f('hostname', 'string'), 17: f('subdomain', 'string'),
    19: f('schedulerName', 'string'), 20: f('initContainers', 'Container', true), 21: f('automountServiceAccountToken', 'bool'), 24: f('priorityClassName', 'string'),
  },
  Empty: {},
  Volume: { 1: f('name', 'string'), 2: f('volumeSource', 'VolumeSourceInline') },
  VolumeSourceInline: { 3: f('emptyDir', 'Empty'), 19: f('configMap', 'ConfigMapVolumeSource'), 6: f('secret', 'SecretVolumeSource') },
  ConfigMapVolumeSource: { 1: f('localObjectReference', 'LocalObjectReferenceInline') },
  LocalObjectReferenceInline: { 1: f('name', 'string') },
  SecretVolumeSource: { 1: f('secretName', 'string') },
  Container: {
    1: f('name', 'string'), 2: f('image', 'string'), 3: f('command', 'string', true), 4: f('args', 'string', true), 5: f('workingDir', 'string'),
    6: f('ports', 'ContainerPort', true), 7: f('env', 'EnvVar', true), 8: f('resources', 'ResourceRequirements'), 9: f('volumeMounts', 'VolumeMount', true),
    13: f('terminationMessagePath', 'string'), 14: f('imagePullPolicy', 'string'), 16: f('stdin', 'bool'), 17: f('stdinOnce', 'bool'), 18: f('tty', 'bool'),
    20: f('terminationMessagePolicy', 'string'),
  },
  ContainerPort: { 1: f('name', 'string'), 2: f('hostPort', 'int32'), 3: f('containerPort', 'int32'), 4: f('protocol', 'string'), 5: f('hostIP', 'string') },
  EnvVar: { 1: f('name', 'string'), 2: f('value', 'string') },
  ResourceRequirements: { 1: m('limits', 'string', 'quantity'), 2: m('requests', 'string', 'quantity') },
  VolumeMount: { 1: f('name', 'string'), 2: f('readOnly', 'bool'), 3: f('mountPath', 'string'), 4: f('subPath', 'string') },
  Service: { 1: f('metadata', 'ObjectMeta'), 2: f('spec', 'ServiceSpec'), 3: f('status', 'Skip') },
  ServiceSpec: {
    1: f('ports', 'ServicePort', true), 2: m('selector', 'string', 'string'), 3: f('clusterIP', 'string'), 4: f('type', 'string'), 5: f('externalIPs', 'string', true),
    7: f('sessionAffinity', 'string'), 8: f('loadBalancerIP', 'string'), 9: f('loadBalancerSourceRanges', 'string', true), 10: f('externalName', 'string'),
    11: f('externalTrafficPolicy', 'string'), 12: f('healthCheckNodePort', 'int32'), 13: f('publishNotReadyAddresses', 'bool'), 14: f('sessionAffinityConfig', 'Skip'),
    17: f('ipFamilies', 'string', true), 18: f('clusterIPs', 'string', true), 19: f('ipFamilyPolicy', 'string'), 20: f('allocateLoadBalancerNodePorts', 'bool'),
    21: f('loadBalancerClass', 'string'), 22: f('internalTrafficPolicy', 'string'), 23: f('trafficDistribution', 'string'),
  },
  ServicePort: { 1: f('name', 'string'), 2: f('protocol', 'string'), 3: f('port', 'int32'), 4: f('targetPort', 'intstr'), 5: f('nodePort', 'int32'), 6: f('appProtocol', 'string') },
  Job: { 1: f('metadata', 'ObjectMeta'), 2: f('spec', 'JobSpec'), 3: f('status', 'Skip') },
  JobSpec: {
    1: f('parallelism', 'int32'), 2: f('completions', 'int32'), 3: f('activeDeadlineSeconds', 'int64'), 4: f('selector', 'LabelSelector'), 5: f('manualSelector', 'bool'),
    6: f('template', 'PodTemplateSpec'), 7: f('backoffLimit', 'int32'), 8: f('ttlSecondsAfterFinished', 'int32'), 9: f('completionMode', 'string'), 10: f('suspend', 'bool'),
  },
  CronJob: { 1: f('metadata', 'ObjectMeta'), 2: f('spec', 'CronJobSpec'), 3: f('status', 'Skip') },
  CronJobSpec: {
    1: f('schedule', 'string'), 2: f('startingDeadlineSeconds', 'int64'), 3: f('concurrencyPolicy', 'string'), 4: f('suspend', 'bool'), 5: f('jobTemplate', 'JobTemplateSpec'),
    6: f('successfulJobsHistoryLimit', 'int32'), 7: f('failedJobsHistoryLimit', 'int32'), 8: f('timeZone', 'string'),
  },
  JobTemplateSpec: { 1: f('metadata', 'ObjectMeta'), 2: f('spec', 'JobSpec') },
  SelfSubjectAccessReview: { 1: f('metadata', 'ObjectMeta'), 2: f('spec', 'SelfSubjectAccessReviewSpec'), 3: f('status', 'Skip') },
  SelfSubjectAccessReviewSpec: { 1: f('resourceAttributes', 'ResourceAttributes'), 2: f('nonResourceAttributes', 'NonResourceAttributes') },
  ResourceAttributes: { 1: f('namespace', 'string'), 2: f('verb', 'string'), 3: f('group', 'string'), 4: f('version', 'string'), 5: f('resource', 'string'), 6: f('subresource', 'string'), 7: f('name', 'string') },
  NonResourceAttributes: { 1: f('path', 'string'), 2: f('verb', 'string') },
  SelfSubjectReview: { 1: f('metadata', 'ObjectMeta'), 2: f('status', 'Skip') },
};

/** Messages whose fields are inlined into the parent (Go embedding), e.g. Volume.VolumeSource. */
const INLINE = new Set(['volumeSource', 'localObjectReference']);

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  get done(): boolean {
    return this.pos >= this.buf.length;
  }
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw ApiError.badRequest('truncated protobuf body');
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return result;
      shift += 7n;
    }
  }
  bytes(): Buffer {
    const len = Number(this.varint());
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw ApiError.badRequest(`unsupported protobuf wire type ${wire}`);
  }
}

function toSigned(v: bigint, bits: 32 | 64): number {
  return Number(BigInt.asIntN(bits, v));
}

function decodeScalar(type: Scalar, wire: number, r: Reader): unknown {
  switch (type) {
    case 'string':
      return r.bytes().toString('utf8');
    case 'bytes':
      return r.bytes().toString('base64');
    case 'int32':
      return toSigned(r.varint(), 32);
    case 'int64':
      return toSigned(r.varint(), 64);
    case 'bool':
      return r.varint() !== 0n;
    case 'time': {
      const t = decode('TimeMsg', new Reader(r.bytes())) as { seconds?: number };
      if (!t.seconds) return null; // Go's zero time: unset
      return new Date(t.seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    }
    case 'intstr': {
      const v = decode('IntOrStringMsg', new Reader(r.bytes())) as { type?: number; intVal?: number; strVal?: string };
      return v.type === 1 ? (v.strVal ?? '') : (v.intVal ?? 0);
    }
    case 'quantity':
      return (decode('QuantityMsg', new Reader(r.bytes())) as { string?: string }).string ?? '0';
  }
  void wire;
  return undefined;
}

MESSAGES.TimeMsg = { 1: f('seconds', 'int64'), 2: f('nanos', 'int32') };
MESSAGES.IntOrStringMsg = { 1: f('type', 'int64'), 2: f('intVal', 'int32'), 3: f('strVal', 'string') };
MESSAGES.QuantityMsg = { 1: f('string', 'string') };
const SCALARS = new Set(['string', 'bytes', 'int32', 'int64', 'bool', 'time', 'intstr', 'quantity']);

function decodeValue(type: string, wire: number, r: Reader): unknown {
  if (SCALARS.has(type)) return decodeScalar(type as Scalar, wire, r);
  return decode(type, new Reader(r.bytes()));
}

function decode(messageName: string, r: Reader): Record<string, unknown> {
  const schema = MESSAGES[messageName];
  if (!schema) throw new ApiError(415, 'UnsupportedMediaType', `protobuf message ${messageName} is not supported by the sandbox; send JSON`);
  const out: Record<string, unknown> = {};
  while (!r.done) {
    const tag = Number(r.varint());
    const num = tag >>> 3;
    const wire = tag & 7;
    const field = schema[num];
    if (messageName === 'Skip' || messageName === 'Empty') {
      r.skip(wire);
      continue;
    }
    if (!field) {
      throw new ApiError(415, 'UnsupportedMediaType', `protobuf field ${num} of ${messageName} is not understood by the sandbox; send JSON (e.g. kubectl apply -f)`);
    }
    if (field.type === 'Skip') {
      r.skip(wire);
      continue;
    }
    if (field.map) {
      const entry = new Reader(r.bytes());
      let key: unknown = '';
      let value: unknown;
      while (!entry.done) {
        const t = Number(entry.varint());
        if (t >>> 3 === 1) key = decodeValue(field.map[0], t & 7, entry);
        else if (t >>> 3 === 2) value = decodeValue(field.map[1], t & 7, entry);
        else entry.skip(t & 7);
      }
      const target = (out[field.name] ??= {}) as Record<string, unknown>;
      target[String(key)] = value ?? (field.map[1] === 'string' || field.map[1] === 'bytes' ? '' : {});
      continue;
    }
    // Packed repeated scalars are not used by the messages above (only strings/messages repeat).
    const value = decodeValue(field.type, wire, r);
    if (!field.repeated && isZero(value) && !KEEP_ZERO.has(field.name)) continue;
    if (INLINE.has(field.name) && value && typeof value === 'object') {
      Object.assign(out, value);
    } else if (field.repeated) {
      ((out[field.name] ??= []) as unknown[]).push(value);
    } else out[field.name] = value;
  }
  return out;
}

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]); // "k8s\0"

/** Decodes a `k8s\0`-prefixed runtime.Unknown envelope into a JSON-shaped object. */
export function decodeKubeProtobuf(body: Buffer): Record<string, unknown> {
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC)) throw ApiError.badRequest('protobuf body without the k8s envelope');
  const r = new Reader(body.subarray(4));
  let apiVersion = '';
  let kind = '';
  let raw: Buffer | undefined;
  while (!r.done) {
    const tag = Number(r.varint());
    const num = tag >>> 3;
    if (num === 1) {
      const tm = new Reader(r.bytes());
      while (!tm.done) {
        const t = Number(tm.varint());
        const s = tm.bytes().toString('utf8');
        if (t >>> 3 === 1) apiVersion = s;
        else if (t >>> 3 === 2) kind = s;
      }
    } else if (num === 2) raw = r.bytes();
    else r.skip(tag & 7);
  }
  if (!kind || !raw) throw ApiError.badRequest('protobuf envelope without a kind');
  const obj = decode(kind, new Reader(raw));
  return { apiVersion, kind, ...obj };
}
