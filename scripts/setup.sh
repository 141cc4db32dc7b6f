#!/usr/bin/env bash
# Installs what the forge needs on a Debian machine with Node 20 and git, skipping work already
# done: Debian packages (apt-get), npm packages (npm ci, which builds nodegit from source), then
# the TypeScript build. Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."

need_pkgs=(git git-lfs openssh-client gnupg python3 make g++ libkrb5-dev libssl-dev pkg-config)
if [ "${FORGE_SETUP_TEST_DEPS:-0}" = 1 ]; then need_pkgs+=(postgresql redis-server curl e2fsprogs sqlite3 chromium); fi
missing=()
for p in "${need_pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm ci only when the lock file changed since the last install (nodegit's build takes minutes).
stamp=node_modules/.forge-installed
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ] || [ ! -d node_modules/nodegit/build/Release ]; then
  echo "setup: npm ci (the first run builds nodegit from source, several minutes)"
  npm ci --no-audit --no-fund
  touch "$stamp"
fi

# Build when any source is newer than the last build.
built=dist/.forge-built
if [ ! -f "$built" ] || [ -n "$(find src workers ssh migrations test bench cluster.config.ts tsoa.json tsconfig.json package.json -newer "$built" -type f 2>/dev/null | head -1)" ]; then
  echo "setup: building"
  npm run -s build
  touch "$built"
fi
