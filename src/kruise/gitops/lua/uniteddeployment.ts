// Argo CD health check (Lua) of a UnitedDeployment: gitops/health.ts unitedDeploymentHealth, the
// workload verdict on the status sums with the pods kept old as workloads/uniteddeployment.ts counts
// them: the subsets' manual partitions (rules/uniteddeployment.ts manualPartitions), each capped at the
// subset's next replicas (nextPartitions) taken from status.subsetReplicas (v1beta1: subsetStatuses), or
// else allocated from the spec as Kruise's allocator does (allocateSubsetReplicas: min/max, or the
// specified counts and percentages with the rest shared evenly). Checked in lua5.1 against that rule.
import { LUA_PRELUDE } from './prelude';
import { WORKLOAD_HEALTH_LUA } from './workload';

export const UNITED_DEPLOYMENT_HEALTH_LUA = `${LUA_PRELUDE}
${WORKLOAD_HEALTH_LUA}
local spec = tbl(obj.spec)
local status = tbl(obj.status)
local subsets = {}
for _, s in ipairs(tbl(tbl(spec.topology).subsets)) do
  if type(s) == "table" then subsets[#subsets + 1] = s end
end
-- ParseSubsetReplicas: an integer >= 0, or "N%" (0..100) of the UD's replicas rounded half up; nil when invalid.
local function parseSubsetReplicas(udReplicas, value)
  if type(value) == "number" then
    if value < 0 then return nil end
    return value
  end
  if type(value) ~= "string" or udReplicas < 0 then return nil end
  local digits = string.match(value, "^(-?%d+)%%$")
  if digits == nil then return nil end
  local percent = tonumber(digits)
  if percent > 100 or percent < 0 then return nil end
  return math.floor(udReplicas * percent / 100 + 0.5)
end
-- The allocator's replicas per subset name (nil when the spec is one Kruise rejects).
local function allocate()
  local out = {}
  local minMax = false
  for _, s in ipairs(subsets) do if s.minReplicas ~= nil or s.maxReplicas ~= nil then minMax = true end end
  if minMax then
    local replicas = type(spec.replicas) == "number" and spec.replicas or 0
    local limits = {}
    for _, s in ipairs(subsets) do
      local min, max = 0, 2147483647
      if s.minReplicas ~= nil then min = parseSubsetReplicas(replicas, s.minReplicas) or 0 end
      if s.maxReplicas ~= nil then max = parseSubsetReplicas(replicas, s.maxReplicas) or 0 end
      if min > max then return nil end
      limits[#limits + 1] = { name = s.name, min = min, max = max }
    end
    local allocated = 0
    for _, l in ipairs(limits) do
      local add = math.max(math.min(l.min, replicas - allocated), 0)
      if l.name ~= nil then out[l.name] = add end
      allocated = allocated + add
    end
    if allocated >= replicas then return out end
    for _, l in ipairs(limits) do
      local add = math.max(math.min(l.max - l.min, replicas - allocated), 0)
      if l.name ~= nil then out[l.name] = (out[l.name] or 0) + add end
      allocated = allocated + add
    end
    return out
  end
  local expected = type(spec.replicas) == "number" and spec.replicas or -1
  local specified = {}
  local specifiedSum = 0
  for _, s in ipairs(subsets) do
    if s.replicas ~= nil and s.name ~= nil then
      local v = parseSubsetReplicas(expected, s.replicas)
      if v ~= nil then
        if specified[s.name] ~= nil then specifiedSum = specifiedSum - specified[s.name] end
        specified[s.name] = v
        specifiedSum = specifiedSum + v
      end
    end
  end
  -- Kruise's order: by current replicas (none exist here), then by name.
  local infos = {}
  for _, s in ipairs(subsets) do infos[#infos + 1] = { name = s.name, replicas = 0 } end
  table.sort(infos, function(a, b) return tostring(a.name) < tostring(b.name) end)
  local specifiedCount = 0
  for _, info in ipairs(infos) do if specified[info.name] ~= nil then specifiedCount = specifiedCount + 1 end end
  if expected ~= -1 then
    if specifiedSum > expected then return nil end
    if specifiedSum < expected and specifiedCount == #infos then return nil end
  elseif specifiedCount ~= #infos then
    return nil
  end
  local specifiedReplicas, left = 0, 0
  for _, info in ipairs(infos) do
    if specified[info.name] ~= nil then
      specifiedReplicas = specifiedReplicas + specified[info.name]
      info.replicas = specified[info.name]
      info.specified = true
    else
      left = left + 1
    end
  end
  if left > 0 then
    local allocatable = expected - specifiedReplicas
    local average = allocatable / left
    if average >= 0 then average = math.floor(average) else average = math.ceil(average) end
    local remainder = math.fmod(allocatable, left)
    for i = #infos, 1, -1 do
      local info = infos[i]
      if not info.specified then
        if remainder > 0 then info.replicas = average + 1; remainder = remainder - 1 else info.replicas = average end
      end
    end
  end
  -- (a subset without a name, which Kruise's webhook rejects, is allocated but has no key)
  for _, info in ipairs(infos) do if info.name ~= nil then out[info.name] = info.replicas end end
  return out
end
-- Next replicas per subset: as the status records them (a map; v1beta1 also subsetStatuses), else as the allocator would.
local function isMap(v) return type(v) == "table" and #v == 0 end
local nextReplicas = nil
if isMap(status.subsetReplicas) then
  nextReplicas = status.subsetReplicas
elseif string.match(obj.apiVersion or "", "/v1beta1$") and type(status.subsetStatuses) == "table" and #status.subsetStatuses > 0 then
  nextReplicas = {}
  for _, st in ipairs(status.subsetStatuses) do
    local s = tbl(st)
    nextReplicas[s.name or ""] = s.replicas or 0
  end
else
  nextReplicas = allocate() or {}
end
-- The manual partitions (updateStrategy type Manual, the default), each capped at the subset's next replicas.
local strategy = spec.updateStrategy
local partitions = {}
if isMap(strategy) and (strategy.type == nil or strategy.type == "Manual") and isMap(strategy.manualUpdate) and isMap(strategy.manualUpdate.partitions) then
  for k, v in pairs(strategy.manualUpdate.partitions) do if type(v) == "number" then partitions[k] = v end end
end
local desired = num(spec.replicas) or 0
local kept = 0
for _, s in ipairs(subsets) do
  local p = partitions[s.name] or 0
  local r = nextReplicas[s.name]
  if r ~= nil and p > r then p = r end
  kept = kept + p
end
kept = math.min(kept, desired)
-- CloneSet subsets count every pod not at the update revision against the partition.
local template = spec.template
local subsetKind = nil
if isMap(template) then
  for _, field in ipairs({ "statefulSetTemplate", "advancedStatefulSetTemplate", "cloneSetTemplate", "deploymentTemplate" }) do
    if subsetKind == nil and isMap(template[field]) and template[field] ~= nil then subsetKind = field end
  end
end
local function str(v) if type(v) == "string" then return v end return nil end
local updateRevision = str(tbl(status.updateStatus).updatedRevision) or str(status.updatedRevision)
return workloadHealth({
  desired = desired, keptBySpec = kept, statusExpected = nil,
  replicas = num(status.replicas) or 0, ready = num(status.readyReplicas) or 0, available = num(status.readyReplicas) or 0,
  updated = num(status.updatedReplicas) or 0,
  statusUpdatedReady = num(status.updatedReadyReplicas) or 0, statusUpdatedAvailable = num(status.updatedReadyReplicas) or 0,
  updateRevision = updateRevision, currentRevision = str(status.currentRevision),
  countsOldPods = subsetKind == "cloneSetTemplate", revisionsMustSettle = false,
  minReadySeconds = 0,
  generation = num(tbl(obj.metadata).generation), observedGeneration = num(status.observedGeneration),
  status = status, paused = false,
})
`;
