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

export const CLONESET_ACTIONS: LuaActions = pauseActions(CLONESET_PAUSED_HOLDER);
export const ADVANCED_STATEFULSET_ACTIONS: LuaActions = pauseActions(ROLLING_UPDATE_PAUSED_HOLDER);
export const ADVANCED_DAEMONSET_ACTIONS: LuaActions = ADVANCED_STATEFULSET_ACTIONS;
export const ROLLOUT_ACTIONS: LuaActions = pauseActions(ROLLOUT_PAUSED_HOLDER);

// SidecarSet (both versions): spec.updateStrategy.paused (workloads/sidecarset.ts sidecarSetPausePatch).
const SIDECARSET_PAUSED_HOLDER = `local function pausedHolder(create)
  if type(obj.spec) ~= "table" then if not create then return {} end obj.spec = {} end
  if type(obj.spec.updateStrategy) ~= "table" then if not create then return {} end obj.spec.updateStrategy = {} end
  return obj.spec.updateStrategy
end`;

export const SIDECARSET_ACTIONS: LuaActions = pauseActions(SIDECARSET_PAUSED_HOLDER);
