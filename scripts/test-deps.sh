#!/usr/bin/env bash
# What `npm test` needs beyond npm, from Debian packages (PyPI is not used):
# - python3-kubernetes: the official Python client test/e2e/python-client.test.ts drives the sandbox
#   with (run with /usr/bin/python3);
# - tmux: the real terminal test/e2e/describe-rollout-tmux.test.ts runs `describe rollout -w` in;
# - zsh, fish, bash-completion: the shells test/e2e/completion-shells.test.ts loads completions/ in
#   (bash-completion: kubectl's own bash completion needs it for `kubectl kruise <TAB>`);
# - qemu-user, libc6-arm64-cross: test/e2e/cross-platform-exe.test.ts runs the linux-arm64 executable;
# - python3-junitparser: the JUnit consumer test/e2e/release-gate.test.ts reads --junit reports with;
# - prometheus: the real Prometheus test/e2e/rollout-verify.test.ts starts (/usr/bin/prometheus) for
#   `rollout verify --prometheus`;
# - lua5.1: runs the Argo CD health scripts `gitops export` generates in test/unit/kruise/gitops/lua.test.ts
#   (Lua 5.1, the language of Argo CD's gopher-lua).
# Installed here when missing and we may (root with apt-get), so `npm test` sets up a fresh machine
# by itself; otherwise one line says what to install.
set -euo pipefail
missing=()
/usr/bin/python3 -c 'import kubernetes' >/dev/null 2>&1 || missing+=(python3-kubernetes)
/usr/bin/python3 -c 'import junitparser' >/dev/null 2>&1 || missing+=(python3-junitparser)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
command -v lua5.1 >/dev/null 2>&1 || missing+=(lua5.1)
command -v zsh >/dev/null 2>&1 || missing+=(zsh)
command -v fish >/dev/null 2>&1 || missing+=(fish)
[ -f /usr/share/bash-completion/bash_completion ] || missing+=(bash-completion)
command -v qemu-aarch64 >/dev/null 2>&1 || missing+=(qemu-user)
[ -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ] || missing+=(libc6-arm64-cross)
[ -x /usr/bin/prometheus ] || missing+=(prometheus)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "test-deps: installing Debian's ${missing[*]} (for test/e2e/python-client.test.ts, describe-rollout-tmux.test.ts, completion-shells.test.ts, cross-platform-exe.test.ts, release-gate.test.ts, rollout-verify.test.ts, kruise/gitops/lua.test.ts)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq </dev/null && apt-get install -y -qq "${missing[@]}" </dev/null >/dev/null
  exit 0
fi
echo "test-deps: missing Debian packages ${missing[*]} (sudo apt-get install ${missing[*]})" >&2
exit 1
