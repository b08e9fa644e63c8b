// Argo CD resource actions (Lua): pause and resume, writing the field our `rollout pause|resume`
// writes (workloads/cloneset.ts pausedUnder(cloneSetRollingPath), rollout/patches.ts pausePatch), and
// offered only when they change something, as the commands refuse a no-op. Checked in lua5.1
// against those rules by test/unit/kruise/gitops/lua.test.ts.

export interface LuaAction {
  name: string;
  lua: string;
}

export interface LuaActions {
  discovery: string;
  actions: readonly LuaAction[];
}

// v1alpha1 keeps paused under spec.updateStrategy, v1beta1 (by apiVersion) under its rollingUpdate. The version
// is compared whole: Argo CD runs actions without Lua's string library (see ROLLOUT_STEP_JUMP below).
const CLONESET_PAUSED_HOLDER = `local function pausedHolder(create)
  if type(obj.spec) ~= "table" then if not create then return {} end obj.spec = {} end
  if type(obj.spec.updateStrategy) ~= "table" then if not create then return {} end obj.spec.updateStrategy = {} end
  local us = obj.spec.updateStrategy
  local version = nil
  if obj.apiVersion == "apps.kruise.io/v1beta1" then version = "v1beta1" elseif obj.apiVersion == "apps.kruise.io/v1alpha1" then version = "v1alpha1" end
  local v1beta1 = version == "v1beta1"
  if version ~= "v1beta1" and version ~= "v1alpha1" then v1beta1 = us.type == "RollingUpdate" or us.rollingUpdate ~= nil end
  if not v1beta1 then return us end
  if type(us.rollingUpdate) ~= "table" then if not create then return {} end us.rollingUpdate = {} end
  return us.rollingUpdate
end`;

const ROLLOUT_PAUSED_HOLDER = `local function pausedHolder(create)
  if type(obj.spec) ~= "table" then if not create then return {} end obj.spec = {} end
  if type(obj.spec.strategy) ~= "table" then if not create then return {} end obj.spec.strategy = {} end
  return obj.spec.strategy
end`;

function pauseActions(holder: string): LuaActions {
  return {
    discovery: `${holder}
local paused = pausedHolder(false).paused == true
local actions = {}
actions["pause"] = { ["disabled"] = paused }
actions["resume"] = { ["disabled"] = not paused }
return actions`,
    actions: [
      { name: 'pause', lua: `${holder}\npausedHolder(true).paused = true\nreturn obj` },
      { name: 'resume', lua: `${holder}\npausedHolder(true).paused = false\nreturn obj` },
    ],
  };
}

// Advanced StatefulSet (both versions) and Advanced DaemonSet: spec.updateStrategy.rollingUpdate.paused.
const ROLLING_UPDATE_PAUSED_HOLDER = `local function pausedHolder(create)
  if type(obj.spec) ~= "table" then if not create then return {} end obj.spec = {} end
  if type(obj.spec.updateStrategy) ~= "table" then if not create then return {} end obj.spec.updateStrategy = {} end
  local us = obj.spec.updateStrategy
  if type(us.rollingUpdate) ~= "table" then if not create then return {} end us.rollingUpdate = {} end
  return us.rollingUpdate
end`;

// restart: what `rollout restart` writes for a workload whose pods are recreated on a template change,
// kubectl's kubectl.kubernetes.io/restartedAt annotation in spec.template (rollout/restart-patch.ts), so
// it goes out as a new revision at the workload's own pace (and partition). Offered only when the command
// writes it: not while paused (nothing would restart), not under an in-place policy, where that annotation
// only patches pod metadata in place and restarts nothing; there the command recreates the containers
// through ContainerRecreateRequests, one per pod, which an Argo CD action cannot do (it sees the workload,
// not its pods). Kept out of action_test.yaml: its output carries the time it ran.
const RESTART_LUA = `if restartable() then
  if type(obj.spec) ~= "table" then obj.spec = {} end
  if type(obj.spec.template) ~= "table" then obj.spec.template = {} end
  local t = obj.spec.template
  if type(t.metadata) ~= "table" then t.metadata = {} end
  if type(t.metadata.annotations) ~= "table" then t.metadata.annotations = {} end
  t.metadata.annotations["kubectl.kubernetes.io/restartedAt"] = os.date("!%Y-%m-%dT%H:%M:%SZ")
end
return obj`;

/** Pause and resume, and restart where \`inPlace\` (a Lua function of obj) says the template annotation restarts pods. */
function workloadActions(holder: string, inPlace: string): LuaActions {
  const pause = pauseActions(holder);
  const restartable = `${holder}\n${inPlace}\nlocal function restartable() return pausedHolder(false).paused ~= true and not inPlace() end`;
  return {
    discovery: `${restartable}\n${pause.discovery.replace(`${holder}\n`, '').replace('return actions', 'actions["restart"] = { ["disabled"] = not restartable() }\nreturn actions')}`,
    actions: [...pause.actions, { name: 'restart', lua: `${restartable}\n${RESTART_LUA}` }],
  };
}

// The pod update policy (workloads/<kind>.ts updatePolicy): OnDelete first, then the kind's own field.
const CLONESET_IN_PLACE = `local function inPlace()
  local us = type(obj.spec) == "table" and type(obj.spec.updateStrategy) == "table" and obj.spec.updateStrategy or {}
  if us.type == "OnDelete" then return false end
  local version = nil
  if obj.apiVersion == "apps.kruise.io/v1beta1" then version = "v1beta1" elseif obj.apiVersion == "apps.kruise.io/v1alpha1" then version = "v1alpha1" end
  local v1beta1 = version == "v1beta1"
  if version ~= "v1beta1" and version ~= "v1alpha1" then v1beta1 = us.type == "RollingUpdate" or us.rollingUpdate ~= nil end
  local policy = us.type
  if v1beta1 then policy = type(us.rollingUpdate) == "table" and us.rollingUpdate.podUpdatePolicy or nil end
  return policy == "InPlaceIfPossible" or policy == "InPlaceOnly"
end`;

const ROLLING_IN_PLACE = (field: string, values: readonly string[]): string => `local function inPlace()
  local us = type(obj.spec) == "table" and type(obj.spec.updateStrategy) == "table" and obj.spec.updateStrategy or {}
  if us.type == "OnDelete" then return false end
  local policy = type(us.rollingUpdate) == "table" and us.rollingUpdate.${field} or nil
  return ${values.map((v) => `policy == "${v}"`).join(' or ')}
end`;

export const CLONESET_ACTIONS: LuaActions = workloadActions(CLONESET_PAUSED_HOLDER, CLONESET_IN_PLACE);
export const ADVANCED_STATEFULSET_ACTIONS: LuaActions = workloadActions(ROLLING_UPDATE_PAUSED_HOLDER, ROLLING_IN_PLACE('podUpdatePolicy', ['InPlaceIfPossible', 'InPlaceOnly']));
export const ADVANCED_DAEMONSET_ACTIONS: LuaActions = workloadActions(ROLLING_UPDATE_PAUSED_HOLDER, ROLLING_IN_PLACE('rollingUpdateType', ['InPlaceIfPossible']));
// approve: what `rollout approve` writes (rollout/patches.ts approvePatch): a step in StepPaused moves to
// StepReady in the sub-status (canaryStatus, or a v1beta1 blue-green Rollout's blueGreenStatus) and, on
// v1beta1, in the mirror at the top of status; the controller then goes on to the next step. Offered only
// when a step is paused (timed or not: approving a timed pause ends it early, as the command does).
// How Argo CD applies it (server/application/application.go patchResource, since v1.8, argo-cd#4690): it
// takes the JSON merge patch from the live object to the one the action returns and, as that touches
// status, sends it to the status subresource first (rollouts/status: Kruise's CRD has one, so only the
// status part lands there), then the rest (none here) to the resource. The RBAC needed is Argo CD's
// `action/rollouts.kruise.io/Rollout/approve` and, for its controller, patch on rollouts/status.
const ROLLOUT_APPROVE_TARGET = `local function approveTarget()
  local v1beta1 = obj.apiVersion == "rollouts.kruise.io/v1beta1"
  if not v1beta1 and obj.apiVersion ~= "rollouts.kruise.io/v1alpha1" then return nil, false end
  if type(obj.status) ~= "table" then return nil, false end
  local field = "canaryStatus"
  if v1beta1 and type(obj.spec) == "table" and type(obj.spec.strategy) == "table" and type(obj.spec.strategy.blueGreen) == "table" then
    field = "blueGreenStatus"
  end
  local sub = obj.status[field]
  if type(sub) ~= "table" or sub.currentStepState ~= "StepPaused" then return nil, false end
  return sub, v1beta1
end`;

const ROLLOUT_PAUSE = pauseActions(ROLLOUT_PAUSED_HOLDER);

// undo-fast and jump: the status write of `rollout undo --fast` and `rollout jump --to-step N`, status
// <sub>.nextStepIndex = the step (rollout/patches.ts jumpPatch; fast-rollback.ts fastRollbackStep picks
// undo --fast's step: the previous step without traffic and with the most pods), with the commands'
// refusals: offered only when the command would write (jump: for some step), and the action itself fails
// with the command's words when it would not (the release moved since discovery, a step out of range).
// Which Kruise Rollout release: the write and the refusals are the same on v0.6.2 and master (doStepJump,
// openkruise/rollouts #311, acts on a nextStepIndex other than the natural next one, within 1..steps, while
// InRolling; where the release then lands is the controller's business, see rollout/step-jump.ts); only a
// release before v0.5 differs, and it writes no nextStepIndex, which both refuse on.
// jump takes its step as an Argo CD action parameter (discovery's `params`, the script's global
// `actionParams`, strings), which Argo CD has since v3.1 (argo-cd#20097, util/lua/lua.go
// runLuaWithResourceActionParameters); before, actionParams is nil and the action says so.
// Argo CD runs discovery and actions with the base, table, os and package libraries only (util/lua/lua.go:
// SkipOpenLibs, gopher-lua): no string or math library, so a "50%" is read by comparing strings, which
// the language does itself (test/helpers/lua.ts runs them with those libraries alone).
const ROLLOUT_STEP_JUMP = `local function isObj(v) return type(v) == "table" and v[1] == nil end
local function num(v) if type(v) == "number" and v == v and v ~= 1/0 and v ~= -1/0 then return v end return nil end
local function str(v) if type(v) == "string" then return v end return nil end
-- Go's strconv.Atoi of the digits of "<digits>%" (step-math.ts rolloutScaledValue against 100): each
-- character is found among those it may be as the one c with prefix..c <= s < prefix..after[c].
local ALPHABET = { "%", "+", "-", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9" }
local AFTER = { ["%"] = "&", ["+"] = ",", ["-"] = ".", ["0"] = "1", ["1"] = "2", ["2"] = "3", ["3"] = "4", ["4"] = "5", ["5"] = "6", ["6"] = "7", ["7"] = "8", ["8"] = "9", ["9"] = ":" }
local DIGIT = { ["0"] = 0, ["1"] = 1, ["2"] = 2, ["3"] = 3, ["4"] = 4, ["5"] = 5, ["6"] = 6, ["7"] = 7, ["8"] = 8, ["9"] = 9 }
local function percent(s)
  if type(s) ~= "string" then return nil end
  local chars, prefix = {}, ""
  for i = 1, #s do
    local found = nil
    for _, c in ipairs(ALPHABET) do
      if prefix .. c <= s and s < prefix .. AFTER[c] then found = c break end
    end
    if found == nil then return nil end
    prefix = prefix .. found
    chars[i] = found
  end
  local n = #chars
  if n < 2 or chars[n] ~= "%" then return nil end
  local first, sign = 1, 1
  if chars[1] == "+" or chars[1] == "-" then
    first = 2
    if chars[1] == "-" then sign = -1 end
  end
  if first > n - 1 then return nil end
  local value = 0
  for i = first, n - 1 do
    if DIGIT[chars[i]] == nil then return nil end
    value = value * 10 + DIGIT[chars[i]]
  end
  return sign * value
end
-- rollout/read.ts readRollout, the fields a jump decides on; nil for another apiVersion.
local function jumpView()
  local version = obj.apiVersion
  if version ~= "rollouts.kruise.io/v1beta1" and version ~= "rollouts.kruise.io/v1alpha1" then return nil end
  local v1beta1 = version == "rollouts.kruise.io/v1beta1"
  local spec = isObj(obj.spec) and obj.spec or {}
  local strategy = isObj(spec.strategy) and spec.strategy or {}
  local blueGreen = v1beta1 and isObj(strategy.blueGreen)
  local body = strategy.canary
  if blueGreen then body = strategy.blueGreen end
  local steps = {}
  if isObj(body) and type(body.steps) == "table" then
    for i, s in ipairs(body.steps) do steps[i] = s end
  end
  local field = "canaryStatus"
  if blueGreen then field = "blueGreenStatus" end
  local status = isObj(obj.status) and obj.status or {}
  local sub = nil
  if isObj(status[field]) then sub = status[field] end
  local s = sub or {}
  local progressing = nil
  if type(status.conditions) == "table" then
    for _, c in ipairs(status.conditions) do
      if isObj(c) and c.type == "Progressing" then progressing = c break end
    end
  end
  local meta = isObj(obj.metadata) and obj.metadata or {}
  return {
    v1alpha1 = not v1beta1, steps = steps, count = #steps, sub = sub,
    phase = str(status.phase), current = num(s.currentStepIndex), state = str(s.currentStepState), next = num(s.nextStepIndex),
    progressing = progressing ~= nil, reason = progressing and str(progressing.reason) or nil,
    who = "rollout/" .. (str(meta.name) or ""),
  }
end
local function stepLabel(v)
  if v.current ~= nil then return "step " .. v.current .. "/" .. v.count end
  return "no step"
end
-- patches.ts jumpPatch: why the controller would not move to step "to", nil when it would.
local function jumpRefusal(v, to)
  if to % 1 ~= 0 or to < 1 or to > v.count then return "has steps 1.." .. v.count .. ": cannot jump to step " .. to end
  if v.phase ~= "Progressing" or v.sub == nil or v.state == "Completed" then
    local where = "phase " .. (v.phase or "unknown")
    if v.state ~= nil and v.state ~= "" then where = where .. ", " .. v.state end
    return "has no release in progress to jump in (" .. where .. ")"
  end
  if v.reason ~= "InRolling" and v.reason ~= "Paused" then return "is " .. (v.reason or "not rolling") .. ": the controller only jumps steps while InRolling" end
  if v.next == nil then return "has no status nextStepIndex: this Kruise Rollout release (before v0.5) cannot jump steps" end
  local natural = -1
  if (v.current or 0) < v.count then natural = (v.current or 0) + 1 end
  -- someone's jump the controller has not made yet is theirs to finish
  if v.next ~= natural and v.next > 0 and v.next <= v.count then
    return "a jump from " .. stepLabel(v) .. " to step " .. v.next .. " is already under way (status nextStepIndex): run the command again once the controller has made it"
  end
  if to == natural then
    local hint = ""
    if v.state == "StepPaused" then hint = " (approve the current one instead)" end
    return "step " .. to .. " is already the next step" .. hint
  end
  return nil
end
-- fast-rollback.ts: a step's traffic and pods, scaled against 100 (v1alpha1 reads weight as "<weight>%").
local function stepTraffic(v, step)
  if not isObj(step) then return 0 end
  if v.v1alpha1 then
    local w = num(step.weight)
    if w ~= nil and w % 1 == 0 then return w end
    return 0
  end
  return percent(str(step.traffic)) or 0
end
local function stepPods(v, step)
  if not isObj(step) then return 0 end
  local r = step.replicas
  if type(r) == "number" then
    if r % 1 == 0 then return r end
    return 0
  end
  if type(r) == "string" then return percent(r) or 0 end
  if v.v1alpha1 then return stepTraffic(v, step) end
  return 0
end
-- fastRollbackStep(-1): the previous step without traffic and with the most pods (ties: the later one).
local function fastTarget(v)
  local current = v.current or 0
  if v.count < current then return nil, "has " .. v.count .. " steps, but current step is too large " .. current end
  if current <= 1 then return nil, "already at the first step" end
  local target, most = nil, 0
  for i = current - 1, 1, -1 do
    local step = v.steps[i]
    if stepTraffic(v, step) == 0 then
      local pods = stepPods(v, step)
      if pods > most then
        most = pods
        target = i
      end
    end
  end
  if target == nil then return nil, "no previous step with no traffic found" end
  return target, nil
end
local function jumpOffered(v)
  if v == nil then return false end
  for n = 1, v.count do
    if jumpRefusal(v, n) == nil then return true end
  end
  return false
end
local function undoFastOffered(v)
  if v == nil then return false end
  local target = fastTarget(v)
  return target ~= nil and jumpRefusal(v, target) == nil
end`;

const NOT_A_ROLLOUT = 'if v == nil then error("not a Kruise Rollout (rollouts.kruise.io/v1alpha1 or v1beta1)", 0) end';

const ROLLOUT_UNDO_FAST_LUA = `${ROLLOUT_STEP_JUMP}
local v = jumpView()
${NOT_A_ROLLOUT}
local target, why = fastTarget(v)
if target ~= nil then why = jumpRefusal(v, target) end
if why ~= nil then error(v.who .. ": cannot roll back fast: " .. why, 0) end
v.sub.nextStepIndex = target
return obj`;

/** The jump action's parameter (discovery's params, actionParams in the action). */
export const JUMP_STEP_PARAM = 'step';

const ROLLOUT_JUMP_LUA = `${ROLLOUT_STEP_JUMP}
local v = jumpView()
${NOT_A_ROLLOUT}
local raw = nil
if type(actionParams) == "table" then raw = actionParams["${JUMP_STEP_PARAM}"] end
if raw == nil then error(v.who .. ': jump needs the step to go to, the action parameter "${JUMP_STEP_PARAM}" (Argo CD 3.1 or later asks for it)', 0) end
-- rollout jump's --to-step: a step number, 1 or more, written plainly (tostring gives the text back)
local to = tonumber(raw)
if type(raw) ~= "string" or to == nil or to % 1 ~= 0 or to < 1 or tostring(to) ~= raw then
  error('invalid value "' .. tostring(raw) .. '" for ${JUMP_STEP_PARAM}: must be a step number (1..steps)', 0)
end
local why = jumpRefusal(v, to)
if why ~= nil then error(v.who .. ": " .. why, 0) end
v.sub.nextStepIndex = to
return obj`;

export const ROLLOUT_ACTIONS: LuaActions = {
  discovery: `${ROLLOUT_APPROVE_TARGET}
${ROLLOUT_STEP_JUMP}
${ROLLOUT_PAUSE.discovery.replace(
  'return actions',
  `actions["approve"] = { ["disabled"] = approveTarget() == nil }
local view = jumpView()
actions["undo-fast"] = { ["disabled"] = not undoFastOffered(view) }
actions["jump"] = { ["disabled"] = not jumpOffered(view), ["params"] = { { ["name"] = "${JUMP_STEP_PARAM}" } } }
return actions`,
)}`,
  actions: [
    ...ROLLOUT_PAUSE.actions,
    {
      name: 'approve',
      lua: `${ROLLOUT_APPROVE_TARGET}
local sub, v1beta1 = approveTarget()
if sub == nil then return obj end
sub.currentStepState = "StepReady"
if v1beta1 then obj.status.currentStepState = "StepReady" end
return obj`,
    },
    { name: 'undo-fast', lua: ROLLOUT_UNDO_FAST_LUA },
    { name: 'jump', lua: ROLLOUT_JUMP_LUA },
  ],
};

// SidecarSet (both versions): spec.updateStrategy.paused (workloads/sidecarset.ts sidecarSetPausePatch).
const SIDECARSET_PAUSED_HOLDER = `local function pausedHolder(create)
  if type(obj.spec) ~= "table" then if not create then return {} end obj.spec = {} end
  if type(obj.spec.updateStrategy) ~= "table" then if not create then return {} end obj.spec.updateStrategy = {} end
  return obj.spec.updateStrategy
end`;

export const SIDECARSET_ACTIONS: LuaActions = pauseActions(SIDECARSET_PAUSED_HOLDER);
