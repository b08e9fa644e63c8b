// Argo CD health check (Lua) of an Advanced DaemonSet (apps.kruise.io DaemonSet): workloads/advanced-daemonset.ts's
// fields (the scheduled nodes are its replicas; partition, paused under spec.updateStrategy.rollingUpdate;
// partition.ts explainAdvancedDaemonSetPartition: an integer or a whole percentage rounded down), then the
// shared workload verdict. Checked in lua5.1 against evaluateRollout.
import { LUA_PRELUDE } from './prelude';
import { WORKLOAD_HEALTH_LUA } from './workload';

export const ADVANCED_DAEMONSET_HEALTH_LUA = `${LUA_PRELUDE}
${WORKLOAD_HEALTH_LUA}
local spec = tbl(obj.spec)
local status = tbl(obj.status)
local us = tbl(spec.updateStrategy)
local rolling = tbl(us.rollingUpdate)
local nodes = num(status.desiredNumberScheduled) or 0
local function partitionKept(partition)
  if partition == nil then return 0 end
  if type(partition) == "number" then
    if math.floor(partition) ~= partition or partition < 0 then return nil end
    return clamp(partition, 0, nodes)
  end
  if type(partition) ~= "string" then return nil end
  local whole = string.match(partition, "^(%d+)%%$")
  if whole == nil or tonumber(whole) > 100 then return nil end
  return clamp(math.floor(tonumber(whole) * nodes / 100), 0, nodes)
end
local keptBySpec = 0
if us.type ~= "OnDelete" then keptBySpec = partitionKept(rolling.partition) or 0 end
local updateRevision = status.updateRevision
if type(updateRevision) ~= "string" then updateRevision = status.daemonSetHash end
if type(updateRevision) ~= "string" then updateRevision = nil end
return workloadHealth({
  desired = nodes, keptBySpec = keptBySpec, statusExpected = nil,
  replicas = num(status.currentNumberScheduled) or 0, ready = num(status.numberReady) or 0,
  available = num(status.numberAvailable) or 0, updated = num(status.updatedNumberScheduled) or 0,
  statusUpdatedReady = nil, statusUpdatedAvailable = nil,
  updateRevision = updateRevision, currentRevision = nil,
  countsOldPods = false, revisionsMustSettle = false,
  minReadySeconds = math.max(0, num(spec.minReadySeconds) or 0),
  generation = num(tbl(obj.metadata).generation), observedGeneration = num(status.observedGeneration),
  status = status, paused = rolling.paused == true,
})
`;
