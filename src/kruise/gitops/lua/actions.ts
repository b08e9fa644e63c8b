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

// v1alpha1 keeps paused under spec.updateStrategy, v1beta1 (by apiVersion) under its rollingUpdate.
const CLONESET_PAUSED_HOLDER = `local function pausedHolder(create)
  if type(obj.spec) ~= "table" then if not create then return {} end obj.spec = {} end
  if type(obj.spec.updateStrategy) ~= "table" then if not create then return {} end obj.spec.updateStrategy = {} end
  local us = obj.spec.updateStrategy
  local version = string.match(obj.apiVersion or "", "/([^/]+)$")
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
  local version = string.match(obj.apiVersion or "", "/([^/]+)$")
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

export const ROLLOUT_ACTIONS: LuaActions = {
  discovery: `${ROLLOUT_APPROVE_TARGET}
${ROLLOUT_PAUSE.discovery.replace('return actions', 'actions["approve"] = { ["disabled"] = approveTarget() == nil }\nreturn actions')}`,
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
  ],
};

// SidecarSet (both versions): spec.updateStrategy.paused (workloads/sidecarset.ts sidecarSetPausePatch).
const SIDECARSET_PAUSED_HOLDER = `local function pausedHolder(create)
  if type(obj.spec) ~= "table" then if not create then return {} end obj.spec = {} end
  if type(obj.spec.updateStrategy) ~= "table" then if not create then return {} end obj.spec.updateStrategy = {} end
  return obj.spec.updateStrategy
end`;

export const SIDECARSET_ACTIONS: LuaActions = pauseActions(SIDECARSET_PAUSED_HOLDER);
