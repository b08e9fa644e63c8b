// The workload verdict in Lua (progress.ts evaluateWhole, from the object alone), shared by every
// workload kind's health script: each kind's script reads its fields the way its adapter does
// (workloads/<kind>.ts) and hands them to workloadHealth.
//   Complete / PartitionComplete → Healthy; Progressing → Progressing; Paused → Suspended; Failed → Degraded.
export const WORKLOAD_HEALTH_LUA = `-- v: desired, keptBySpec, statusExpected, replicas, ready, available, updated, statusUpdatedReady,
-- statusUpdatedAvailable, updateRevision, currentRevision, countsOldPods, revisionsMustSettle, minReadySeconds,
-- generation, observedGeneration, status (for conditions), paused
local function workloadHealth(v)
  local desired = v.desired
  local specExpected = clamp(v.statusExpected or (desired - v.keptBySpec), 0, desired)
  local sameRevision = v.updateRevision ~= nil and v.currentRevision ~= nil and revisionMatches(v.currentRevision, v.updateRevision)
  local kept = desired - specExpected
  if sameRevision then
    if v.countsOldPods then kept = clamp(v.replicas - v.updated, 0, desired - specExpected) else kept = 0 end
  end
  local expected = desired - kept
  local updatedReady = v.statusUpdatedReady
  if updatedReady == nil then updatedReady = clamp(v.ready - math.max(0, v.replicas - v.updated), 0, v.updated) end
  local updatedAvailable = v.statusUpdatedAvailable
  if updatedAvailable == nil then
    if v.minReadySeconds == 0 then updatedAvailable = updatedReady
    else updatedAvailable = clamp(v.available - math.max(0, v.replicas - v.updated), 0, updatedReady) end
  end
  if v.generation ~= nil and (v.observedGeneration or 0) < v.generation then
    return health("Progressing", "Waiting for the spec update to be observed")
  end
  if v.updated > v.replicas or v.ready > v.replicas
    or (v.statusUpdatedReady ~= nil and v.statusUpdatedReady > v.updated)
    or (v.statusUpdatedAvailable ~= nil and v.statusUpdatedReady ~= nil and v.statusUpdatedAvailable > v.statusUpdatedReady) then
    return health("Progressing", "Waiting for the status counts to agree")
  end
  local revisionsSettled = not v.revisionsMustSettle or v.currentRevision == nil or sameRevision
  local complete = v.updated >= desired and updatedReady >= desired and updatedAvailable >= desired and v.replicas == desired and v.available >= desired and revisionsSettled
  local partitionDone = kept > 0 and v.updated >= expected and updatedReady >= expected and updatedAvailable >= expected and (v.replicas - v.updated) >= kept and v.updated <= expected
  if complete then return health("Healthy", "All " .. desired .. " pods updated and available") end
  if partitionDone then
    return health("Healthy", v.updated .. " of " .. desired .. " pods updated (" .. kept .. " kept at the old revision by the partition)")
  end
  local deadline = condition(v.status, "Progressing")
  if deadline ~= nil and deadline.reason == "ProgressDeadlineExceeded" then
    return health("Degraded", deadline.message or "Progress deadline exceeded")
  end
  if v.paused then
    return health("Suspended", "Rollout paused: " .. v.updated .. " of " .. desired .. " pods updated")
  end
  return health("Progressing", "Waiting for rollout to finish: " .. updatedAvailable .. " of " .. expected .. " updated pods are available")
end`;
