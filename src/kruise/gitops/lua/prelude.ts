// Helpers every generated health script starts with (Lua 5.1, as Argo CD's gopher-lua runs it):
// field access that tolerates missing objects, Kruise's int-or-percent scaling, revision matching.
export const LUA_PRELUDE = `local function tbl(v) if type(v) == "table" then return v end return {} end
local function num(v) if type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge then return v end return nil end
local function clamp(v, lo, hi) if v < lo then return lo end if v > hi then return hi end return v end
local function health(status, message) return { status = status, message = message } end
-- Kruise's int-or-percent parser (intstr.ts): an integer, or a (decimal) number followed by "%", rounded up.
local function scaleUp(v, total)
  if type(v) == "number" then
    if math.floor(v) ~= v then return nil end
    return v
  end
  if type(v) ~= "string" then return nil end
  local text = string.match(v, "^([+-]?[%d%.eE+-]+)%%$")
  local pct = text and tonumber(text)
  if pct == nil or pct ~= pct or string.match(text, "^[+-]?%.?$") then return nil end
  return math.ceil(pct * total / 100)
end
-- A revision name <workload>-<hash> matches another with the same hash.
local function revisionMatches(a, b)
  if a == b then return true end
  return string.match(a, "([^-]*)$") == string.match(b, "([^-]*)$")
end
local function condition(status, kind)
  for _, c in ipairs(tbl(status.conditions)) do
    if type(c) == "table" and c.type == kind and type(c.status) == "string" then return c end
  end
  return nil
end`;
