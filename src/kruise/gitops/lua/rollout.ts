// Argo CD health check (Lua) of a Kruise Rollout, v1alpha1 and v1beta1 (canary and blue-green):
// our gate's release verdict (rollout/gate.ts evaluateRolloutRelease, from the Rollout alone, as
// Argo CD calls a health script) with rollout/read.ts's paths. test/unit/kruise/gitops/lua.test.ts
// runs it in lua5.1 over every Rollout fixture and compares it with the gate.
//   Complete → Healthy; Failed (cancelled) → Degraded; a timed step pause and every other wait →
//   Progressing; waiting for approval, paused (spec.strategy.paused) or blocked (deleted,
//   no workload) → Suspended: only a person moves it on.
import { LUA_PRELUDE } from './prelude';

export const ROLLOUT_HEALTH_LUA = `${LUA_PRELUDE}
local function str(v) if type(v) == "string" then return v end return nil end
local v1beta1 = obj.apiVersion == "rollouts.kruise.io/v1beta1"
local spec = tbl(obj.spec)
local strategy = tbl(spec.strategy)
local blueGreen = v1beta1 and type(strategy.blueGreen) == "table"
local strat = tbl(strategy.canary)
if blueGreen then strat = tbl(strategy.blueGreen) end
local steps = tbl(strat.steps)
local status = tbl(obj.status)
local rawSub = status.canaryStatus
if blueGreen then rawSub = status.blueGreenStatus end
local hasSub = type(rawSub) == "table"
local sub = tbl(rawSub)
local phase = str(status.phase)
local stepIndex = num(sub.currentStepIndex)
local stepState = str(sub.currentStepState)
local function conditionOf(kind)
  for _, c in ipairs(tbl(status.conditions)) do
    if type(c) == "table" and (str(c.type) or "") == kind then return c end
  end
  return nil
end
local progressing = conditionOf("Progressing")
local succeeded = conditionOf("Succeeded")
local stepText = #steps .. " steps"
if stepIndex ~= nil then stepText = "step " .. stepIndex .. "/" .. #steps end

if phase == "Initial" and str(status.message) == "Workload Not Found" then
  return health("Suspended", "The workload is not found")
end
if phase == "Terminating" then return health("Suspended", "The Rollout is being deleted") end
-- Disabled drives no release: the workload carries its own health (rollout status judges it alone).
if phase == "Disabling" then return health("Progressing", "Disabling: the Rollout hands the workload back") end
if phase == "Disabled" then
  if spec.disabled == true then return health("Healthy", "The Rollout is disabled (spec.disabled): it drives no release") end
  return health("Progressing", "The Rollout is being enabled again")
end
if spec.disabled == true then return health("Progressing", "Waiting for the controller to disable the Rollout") end
local generation = tbl(obj.metadata).generation
if generation ~= nil and num(status.observedGeneration) ~= generation then
  return health("Progressing", "Waiting for the controller to observe generation " .. tostring(generation))
end
if succeeded ~= nil and str(succeeded.status) == "False" then
  return health("Degraded", "The release was cancelled" .. ((progressing and str(progressing.message)) and (": " .. progressing.message) or ""))
end
if phase == "Healthy" and stepState == "Completed" then return health("Healthy", "Rollout is complete") end
-- Healthy drives no release, whatever step an abandoned release (disabled, then enabled again) left in the status.
if phase == "Healthy" and hasSub then return health("Healthy", "Rollout is healthy: no release in progress") end
local reason = progressing and str(progressing.reason)
if reason == "Cancelling" then return health("Progressing", "Cancelling: the workload is rolled back") end
if strategy.paused == true or reason == "Paused" then
  return health("Suspended", "Paused (spec.strategy.paused) at " .. stepText .. ": resume it to continue")
end
local current = nil
if stepIndex ~= nil then current = steps[stepIndex] end
if stepState == "StepPaused" and current ~= nil then
  local replicas = current.replicas
  if type(replicas) ~= "number" and type(replicas) ~= "string" then replicas = nil end
  if replicas == nil and not v1beta1 and num(tbl(current).weight) ~= nil then replicas = num(current.weight) .. "%" end
  local finalFull = not blueGreen and stepIndex == #steps and replicas == "100%"
  if not finalFull then
    local seconds = num(tbl(tbl(current).pause).duration)
    if seconds == nil then
      return health("Suspended", "Waiting for approval at " .. stepText .. ": approve it to continue")
    end
    return health("Progressing", stepText .. " pauses for " .. seconds .. "s")
  end
end
if stepState == "Completed" then return health("Progressing", "Finalising") end
if not hasSub then return health("Progressing", "Phase " .. (phase or "unknown")) end
return health("Progressing", stepText .. " " .. (stepState or ""))
`;
