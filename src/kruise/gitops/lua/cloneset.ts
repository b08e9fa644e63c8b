// Argo CD health check (Lua) of a CloneSet, v1alpha1 and v1beta1: the fields as workloads/cloneset.ts
// reads them and Kruise's partition arithmetic (partition.ts explainCloneSetPartition, intstr.ts),
// then the shared workload verdict (workload.ts). test/unit/kruise/gitops/lua.test.ts runs it in
// lua5.1 over every CloneSet fixture and compares it with evaluateRollout.
import { LUA_PRELUDE } from './prelude';
import { WORKLOAD_HEALTH_LUA } from './workload';

export const CLONESET_HEALTH_LUA = `${LUA_PRELUDE}
${WORKLOAD_HEALTH_LUA}
local spec = tbl(obj.spec)
local status = tbl(obj.status)
local us = tbl(spec.updateStrategy)
local version = string.match(obj.apiVersion or "", "/([^/]+)$")
local v1beta1 = version == "v1beta1"
if version ~= "v1beta1" and version ~= "v1alpha1" then
  v1beta1 = us.type == "RollingUpdate" or us.rollingUpdate ~= nil
end
-- v1alpha1 keeps partition/paused under spec.updateStrategy, v1beta1 under spec.updateStrategy.rollingUpdate
local rolling = us
if v1beta1 then rolling = tbl(us.rollingUpdate) end
local desired = num(spec.replicas) or 1
-- Pods the partition keeps at the old revision (Kruise's parser: integers, or "N%" rounded up;
-- a percentage below 100% updates at least one pod; an unreadable value keeps none).
local function partitionKept(partition, replicas)
  if partition == nil then return 0 end
  local kept = scaleUp(partition, replicas)
  if kept == nil then return nil end
  if replicas > 1 and kept == replicas and type(partition) == "string" and partition ~= "100%" then kept = replicas - 1 end
  return clamp(kept, 0, replicas)
end
local keptBySpec = partitionKept(rolling.partition, desired) or 0
-- Under OnDelete the controller still reads the partition (v1beta1: only with a rollingUpdate).
if us.type == "OnDelete" and v1beta1 and us.rollingUpdate == nil then keptBySpec = 0 end
return workloadHealth({
  desired = desired, keptBySpec = keptBySpec, statusExpected = num(status.expectedUpdatedReplicas),
  replicas = num(status.replicas) or 0, ready = num(status.readyReplicas) or 0, available = num(status.availableReplicas) or 0,
  updated = num(status.updatedReplicas) or 0,
  statusUpdatedReady = num(status.updatedReadyReplicas), statusUpdatedAvailable = num(status.updatedAvailableReplicas),
  updateRevision = type(status.updateRevision) == "string" and status.updateRevision or nil,
  currentRevision = type(status.currentRevision) == "string" and status.currentRevision or nil,
  countsOldPods = true, revisionsMustSettle = true,
  minReadySeconds = math.max(0, num(spec.minReadySeconds) or 0),
  generation = num(tbl(obj.metadata).generation), observedGeneration = num(status.observedGeneration),
  status = status, paused = rolling.paused == true,
})
`;
