#!/usr/bin/env bash
# What `npm test` needs beyond npm: Debian's python3-kubernetes, the official Python client that
# test/e2e/python-client.test.ts drives the sandbox with (run with /usr/bin/python3; PyPI is not
# used). Installed here when missing and we may (root with apt-get), so `npm test` sets up a
# fresh machine by itself; otherwise one line says what to install.
set -euo pipefail
if /usr/bin/python3 -c 'import kubernetes' >/dev/null 2>&1; then exit 0; fi
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "test-deps: installing Debian's python3-kubernetes (for test/e2e/python-client.test.ts)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq </dev/null && apt-get install -y -qq python3-kubernetes </dev/null >/dev/null
  exit 0
fi
echo "test-deps: /usr/bin/python3 cannot import kubernetes: install Debian's python3-kubernetes (sudo apt-get install python3-kubernetes)" >&2
exit 1
