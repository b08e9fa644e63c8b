// Argo CD health check (Lua) of an Advanced StatefulSet (apps.kruise.io StatefulSet, v1alpha1 and
// v1beta1 share the shape): workloads/advanced-statefulset.ts's fields (rolling fields under
// spec.updateStrategy.rollingUpdate; the partition counts pods kept old, an integer; available
// falls back to ready), then the shared workload verdict. Checked in lua5.1 against evaluateRollout.
import { LUA_PRELUDE } from './prelude';
import { WORKLOAD_HEALTH_LUA } from './workload';

export const ADVANCED_STATEFULSET_HEALTH_LUA = `${LUA_PRELUDE}
${WORKLOAD_HEALTH_LUA}
local spec = tbl(obj.spec)
local status = tbl(obj.status)
local us = tbl(spec.updateStrategy)
local rolling = tbl(us.rollingUpdate)
local desired = num(spec.replicas) or 1
local keptBySpec = 0
local partition = rolling.partition
-- An integer ≥ 0 (no percentages); OnDelete rolls nothing, an unreadable partition keeps none.
if us.type ~= "OnDelete" and type(partition) == "number" and math.floor(partition) == partition and partition >= 0 then
  keptBySpec = clamp(partition, 0, desired)
end
return workloadHealth({
  desired = desired, keptBySpec = keptBySpec, statusExpected = nil,
  replicas = num(status.replicas) or 0, ready = num(status.readyReplicas) or 0,
  available = num(status.availableReplicas) or num(status.readyReplicas) or 0,
  updated = num(status.updatedReplicas) or 0,
  statusUpdatedReady = num(status.updatedReadyReplicas), statusUpdatedAvailable = num(status.updatedAvailableReplicas),
  updateRevision = type(status.updateRevision) == "string" and status.updateRevision or nil,
  currentRevision = type(status.currentRevision) == "string" and status.currentRevision or nil,
  countsOldPods = false, revisionsMustSettle = false,
  minReadySeconds = math.max(0, num(spec.minReadySeconds) or 0),
  generation = num(tbl(obj.metadata).generation), observedGeneration = num(status.observedGeneration),
  status = status, paused = rolling.paused == true,
})
`;
