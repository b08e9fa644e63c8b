// Runs a generated Argo CD health script in real Lua 5.1 (scripts/test-deps.sh installs lua5.1):
// the object goes in as a Lua table literal, as Argo CD hands a health script its `obj`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const LUA_BIN = '/usr/bin/lua5.1';

/** A JSON value as a Lua table literal (null and undefined are nil: the key is left out). */
export function luaLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string') return JSON.stringify(value).replace(/\\u([0-9a-fA-F]{4})/g, (_m, h: string) => `\\${parseInt(h, 16)}`);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'nil';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `{${value.map(luaLiteral).join(', ')}}`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== null && v !== undefined);
  return `{${entries.map(([k, v]) => `[${luaLiteral(k)}] = ${luaLiteral(v)}`).join(', ')}}`;
}

/** Each object's health ({status, message}) by `script`, in one lua5.1 run. */
export function runHealthScript(script: string, objects: readonly unknown[]): Array<{ status: string; message: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'kruise-lua-'));
  try {
    const body = objects
      .map((o) => `do\n  obj = ${luaLiteral(o)}\n  local hs = check()\n  io.write(tostring(hs.status), "\\t", tostring(hs.message), "\\n")\nend`)
      .join('\n');
    const file = join(dir, 'run.lua');
    writeFileSync(file, `local function check()\n${script}\nend\n${body}\n`);
    const r = spawnSync(LUA_BIN, [file], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`lua5.1 failed (${r.status}): ${r.stderr}`);
    return r.stdout.trimEnd().split('\n').map((line) => {
      const [status, message] = line.split('\t');
      return { status: status!, message: message ?? '' };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// A JSON encoder for the harness (Lua 5.1 has none): a table with keys 1..n is an array, any other an object.
const LUA_JSON = `local function encode(v)
  local t = type(v)
  if t == "nil" then return "null" end
  if t == "boolean" then return tostring(v) end
  if t == "number" then
    if v == math.floor(v) and math.abs(v) < 1e15 then return string.format("%d", v) end
    return string.format("%.17g", v)
  end
  if t == "string" then
    return '"' .. string.gsub(v, '[%c"\\\\]', function(c) return string.format("\\\\u%04x", string.byte(c)) end) .. '"'
  end
  local n = #v
  local count = 0
  for _ in pairs(v) do count = count + 1 end
  local parts = {}
  if n > 0 and n == count then
    for i = 1, n do parts[i] = encode(v[i]) end
    return "[" .. table.concat(parts, ",") .. "]"
  end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = tostring(k) end
  table.sort(keys)
  for i, k in ipairs(keys) do parts[i] = encode(k) .. ":" .. encode(v[k]) end
  return "{" .. table.concat(parts, ",") .. "}"
end`;

/** Runs `script` (a chunk returning a value: an action's object, a discovery table) on each object; the results as JSON. */
export function runLuaScript(script: string, objects: readonly unknown[]): unknown[] {
  const dir = mkdtempSync(join(tmpdir(), 'kruise-lua-'));
  try {
    const body = objects.map((o) => `do\n  obj = ${luaLiteral(o)}\n  io.write(encode(check()), "\\n")\nend`).join('\n');
    const file = join(dir, 'run.lua');
    writeFileSync(file, `${LUA_JSON}\nlocal function check()\n${script}\nend\n${body}\n`);
    const r = spawnSync(LUA_BIN, [file], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`lua5.1 failed (${r.status}): ${r.stderr}`);
    return r.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as unknown);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// What Argo CD gives discovery and action scripts (util/lua/lua.go runLuaWithResourceActionParameters,
// gopher-lua with SkipOpenLibs): the base library, table, a safe os and package; no string, math or io.
// The chunk runs in an environment holding only those, so a script that needs more fails here too.
const ARGO_ACTION_ENV = `local function argoEnv(params)
  local env = {}
  for _, k in ipairs({ "assert", "error", "getmetatable", "ipairs", "next", "pairs", "pcall", "rawequal", "rawget", "rawset", "select", "setmetatable", "tonumber", "tostring", "type", "unpack", "xpcall" }) do env[k] = _G[k] end
  env.table = table
  env.os = { time = os.time, date = os.date, clock = os.clock }
  env.obj = obj
  env.actionParams = params
  env._G = env
  return env
end`;

export type LuaActionResult = { result: unknown } | { error: string };

/**
 * Runs an action or discovery chunk on each object as Argo CD does (only its libraries; `actionParams` a table
 * of strings, or nil for an Argo CD before 3.1 when `params` is null): the returned value, or the error raised.
 */
export function runLuaAction(script: string, objects: readonly unknown[], params: Record<string, string> | null = {}): LuaActionResult[] {
  const dir = mkdtempSync(join(tmpdir(), 'kruise-lua-'));
  try {
    const chunk = join(dir, 'chunk.lua');
    writeFileSync(chunk, script);
    const body = objects
      .map(
        (o) => `do
  obj = ${luaLiteral(o)}
  local f = assert(loadfile(${JSON.stringify(chunk)}))
  setfenv(f, argoEnv(${params === null ? 'nil' : luaLiteral(params)}))
  local ok, res = pcall(f)
  if ok then io.write(encode({ result = res }), "\\n") else io.write(encode({ error = tostring(res) }), "\\n") end
end`,
      )
      .join('\n');
    const file = join(dir, 'run.lua');
    writeFileSync(file, `${LUA_JSON}\n${ARGO_ACTION_ENV}\n${body}\n`);
    const r = spawnSync(LUA_BIN, [file], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`lua5.1 failed (${r.status}): ${r.stderr}`);
    return r.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as LuaActionResult);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
