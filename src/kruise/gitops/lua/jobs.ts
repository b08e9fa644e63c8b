// Argo CD health checks (Lua) of Kruise's job-like kinds: BroadcastJob (progress-broadcastjob.ts
// evaluateBroadcastJob without pods, the verdict `rollout status` gives), and AdvancedCronJob,
// ImagePullJob and ContainerRecreateRequest (the rules of gitops/health.ts, which cite Kruise's
// sources). Checked in lua5.1 against those by test/unit/kruise/gitops/lua.test.ts and lua-random.test.ts.
import { LUA_PRELUDE } from './prelude';

export const BROADCASTJOB_HEALTH_LUA = `${LUA_PRELUDE}
local spec = tbl(obj.spec)
local status = tbl(obj.status)
local phase = status.phase
if type(phase) ~= "string" then phase = "" end
local desired, active = num(status.desired) or 0, num(status.active) or 0
local succeeded, failed = num(status.succeeded) or 0, num(status.failed) or 0
local function trueCondition(kind)
  for _, c in ipairs(tbl(status.conditions)) do
    if type(c) == "table" and c.type == kind and c.status == "True" then return c end
  end
  return nil
end
local tally = succeeded .. " of " .. desired .. " pods succeeded"
if active ~= 0 then tally = tally .. ", " .. active .. " active" end
if failed ~= 0 then tally = tally .. ", " .. failed .. " failed" end
local failedCondition = trueCondition("Failed")
if failedCondition ~= nil or phase == "failed" then
  local why = "the job failed"
  if failedCondition ~= nil and type(failedCondition.message) == "string" then why = failedCondition.message end
  return health("Degraded", "Failed: " .. why .. " (" .. tally .. ")")
end
if trueCondition("Complete") ~= nil or phase == "completed" then return health("Healthy", "Completed: " .. tally) end
if phase == "" then return health("Progressing", "Waiting for the job to start") end
if phase == "paused" then
  local why = "failurePolicy Pause stopped it"
  if spec.paused == true then why = "spec.paused is true" end
  return health("Suspended", "Paused: " .. why .. " (" .. tally .. ")")
end
if tbl(spec.completionPolicy).type == "Never" then return health("Progressing", "Running until deleted (completionPolicy Never): " .. tally) end
return health("Progressing", "Waiting for the job to complete: " .. tally)
`;

export const ADVANCED_CRONJOB_HEALTH_LUA = `${LUA_PRELUDE}
local status = tbl(obj.status)
local active = 0
if type(status.active) == "table" then active = #status.active end
local last = "not scheduled yet"
if type(status.lastScheduleTime) == "string" then last = "last scheduled at " .. status.lastScheduleTime end
-- The Jobs it starts carry their own health: running ones do not make the schedule Progressing.
if tbl(obj.spec).paused == true then return health("Suspended", "Paused (spec.paused): " .. last) end
return health("Healthy", active .. " active, " .. last)
`;

export const IMAGEPULLJOB_HEALTH_LUA = `${LUA_PRELUDE}
local status = tbl(obj.status)
local desired, active = num(status.desired) or 0, num(status.active) or 0
local succeeded, failed = num(status.succeeded) or 0, num(status.failed) or 0
local never = tbl(tbl(obj.spec).completionPolicy).type == "Never"
local tally = succeeded .. " of " .. desired .. " nodes pulled the image"
-- completionPolicy Always: the controller sets completionTime; Never: done once nothing is pulling.
local done = type(status.completionTime) == "string"
  or (never and type(status.startTime) == "string" and active == 0 and succeeded + failed >= desired)
if not done then return health("Progressing", "Pulling: " .. tally .. ", " .. active .. " pulling") end
if failed > 0 then
  local why = ""
  if type(status.message) == "string" and status.message ~= "" then why = ": " .. status.message end
  return health("Degraded", failed .. " of " .. desired .. " nodes failed to pull the image" .. why)
end
return health("Healthy", tally)
`;

export const CONTAINER_RECREATE_REQUEST_HEALTH_LUA = `${LUA_PRELUDE}
local status = tbl(obj.status)
local phase = status.phase
if type(phase) ~= "string" or phase == "" then phase = "Pending" end
if phase ~= "Completed" then return health("Progressing", "Recreating containers: phase " .. phase) end
local failed = {}
for _, s in ipairs(tbl(status.containerRecreateStates)) do
  if type(s) == "table" and s.phase == "Failed" then
    if type(s.name) == "string" then failed[#failed + 1] = s.name else failed[#failed + 1] = "?" end
  end
end
if #failed > 0 then return health("Degraded", "Failed to recreate container(s) " .. table.concat(failed, ", ")) end
if type(status.message) == "string" and status.message ~= "" then return health("Degraded", "Not completed: " .. status.message) end
return health("Healthy", "Containers recreated")
`;
