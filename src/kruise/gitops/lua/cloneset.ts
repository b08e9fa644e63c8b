// Argo CD health check (Lua) of a CloneSet, v1alpha1 and v1beta1: our gate's verdict
// (progress.ts evaluateWhole, read from the object alone: Argo CD gives a health script no pods)
// step by step, with the adapter's field paths (workloads/cloneset.ts) and Kruise's partition
// arithmetic (partition.ts explainCloneSetPartition, intstr.ts). test/unit/kruise/gitops/lua.test.ts
// runs it in lua5.1 over every CloneSet fixture and compares it with evaluateRollout.
//   Complete / PartitionComplete → Healthy; Progressing → Progressing; Paused → Suspended; Failed → Degraded.
import { LUA_PRELUDE } from './prelude';

export const CLONESET_HEALTH_LUA = `${LUA_PRELUDE}
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
local keptBySpec
if us.type == "OnDelete" then
  if v1beta1 and us.rollingUpdate == nil then keptBySpec = 0 else keptBySpec = partitionKept(rolling.partition, desired) or 0 end
else
  keptBySpec = partitionKept(rolling.partition, desired) or 0
end

local replicas = num(status.replicas) or 0
local ready = num(status.readyReplicas) or 0
local available = num(status.availableReplicas) or 0
local updated = num(status.updatedReplicas) or 0
local statusUpdatedReady = num(status.updatedReadyReplicas)
local statusUpdatedAvailable = num(status.updatedAvailableReplicas)
local specExpected = clamp(num(status.expectedUpdatedReplicas) or (desired - keptBySpec), 0, desired)
local sameRevision = type(status.updateRevision) == "string" and type(status.currentRevision) == "string" and revisionMatches(status.currentRevision, status.updateRevision)
local kept = desired - specExpected
if sameRevision then kept = clamp(replicas - updated, 0, desired - specExpected) end
local expected = desired - kept
local updatedReady = statusUpdatedReady
if updatedReady == nil then updatedReady = clamp(ready - math.max(0, replicas - updated), 0, updated) end
local minReadySeconds = math.max(0, num(spec.minReadySeconds) or 0)
local updatedAvailable = statusUpdatedAvailable
if updatedAvailable == nil then
  if minReadySeconds == 0 then updatedAvailable = updatedReady
  else updatedAvailable = clamp(available - math.max(0, replicas - updated), 0, updatedReady) end
end

local generation = num(tbl(obj.metadata).generation)
if generation ~= nil and (num(status.observedGeneration) or 0) < generation then
  return health("Progressing", "Waiting for the spec update to be observed")
end
if updated > replicas or ready > replicas
  or (statusUpdatedReady ~= nil and statusUpdatedReady > updated)
  or (statusUpdatedAvailable ~= nil and statusUpdatedReady ~= nil and statusUpdatedAvailable > statusUpdatedReady) then
  return health("Progressing", "Waiting for the status counts to agree")
end
local revisionsSettled = type(status.currentRevision) ~= "string" or sameRevision
local complete = updated >= desired and updatedReady >= desired and updatedAvailable >= desired and replicas == desired and available >= desired and revisionsSettled
local partitionDone = kept > 0 and updated >= expected and updatedReady >= expected and updatedAvailable >= expected and (replicas - updated) >= kept and updated <= expected
if complete then return health("Healthy", "All " .. desired .. " pods updated and available") end
if partitionDone then
  return health("Healthy", updated .. " of " .. desired .. " pods updated (" .. kept .. " kept at the old revision by the partition)")
end
local deadline = condition(status, "Progressing")
if deadline ~= nil and deadline.reason == "ProgressDeadlineExceeded" then
  return health("Degraded", deadline.message or "Progress deadline exceeded")
end
if rolling.paused == true then
  return health("Suspended", "Rollout paused: " .. updated .. " of " .. desired .. " pods updated")
end
return health("Progressing", "Waiting for rollout to finish: " .. updatedAvailable .. " of " .. expected .. " updated pods are available")
`;
