// Argo CD health check (Lua) of a SidecarSet: progress-sidecarset.ts evaluateSidecarSetRollout from the
// object alone (Argo CD gives a health script no pods, so the status counts decide): matched pods are
// its replicas, the partition is scaled against them as a CloneSet's is (partition.ts
// explainCloneSetPartition). Checked in lua5.1 against that verdict by test/unit/kruise/gitops/lua.test.ts.
import { LUA_PRELUDE } from './prelude';

export const SIDECARSET_HEALTH_LUA = `${LUA_PRELUDE}
local meta = tbl(obj.metadata)
local status = tbl(obj.status)
local us = tbl(tbl(obj.spec).updateStrategy)
local matched = num(status.matchedPods) or 0
local updated = num(status.updatedPods) or 0
local updatedReady = num(status.updatedReadyPods) or 0
-- Pods the partition keeps on the old sidecars (an unreadable partition or count keeps none).
local function partitionKept(partition)
  if partition == nil or math.floor(matched) ~= matched or matched < 0 then return 0 end
  local kept = scaleUp(partition, matched)
  if kept == nil then return 0 end
  if matched > 1 and kept == matched and type(partition) == "string" and partition ~= "100%" then kept = matched - 1 end
  return clamp(kept, 0, matched)
end
local kept = math.min(partitionKept(us.partition), matched)
local expected = math.max(0, matched - kept)
local generation = num(meta.generation)
if generation ~= nil and (num(status.observedGeneration) or 0) < generation then
  return health("Progressing", "Waiting for the spec update to be observed")
end
if updatedReady > updated or updated > matched then return health("Progressing", "Waiting for the status counts to agree") end
if updated >= expected and updatedReady >= expected and matched - updated <= kept then
  if kept > 0 and updated < matched then
    return health("Healthy", updated .. " of " .. matched .. " matched pods updated (" .. kept .. " kept on the old sidecars by the partition)")
  end
  return health("Healthy", "All " .. matched .. " matched pods run the current sidecars")
end
if us.paused == true then return health("Suspended", "Sidecar upgrade paused: " .. updated .. " of " .. matched .. " matched pods updated") end
return health("Progressing", "Waiting for the sidecar upgrade: " .. updatedReady .. " of " .. expected .. " updated pods are ready")
`;
