#!/usr/bin/env bash
# Installs what the forge needs on a Debian machine with Node (20, 22 or 24) and git, skipping work
# already done: Debian packages (apt-get), npm packages (npm ci, which builds nodegit from source),
# then the TypeScript build. Safe to re-run. Everything runs on the `node` first on PATH, and native
# modules are built against that Node's headers (see docs/node.md).
set -euo pipefail
cd "$(dirname "$0")/.."

need_pkgs=(git git-lfs openssh-client gnupg python3 make g++ libkrb5-dev libssl-dev pkg-config)
if [ "${FORGE_SETUP_TEST_DEPS:-0}" = 1 ]; then need_pkgs+=(postgresql redis-server curl e2fsprogs sqlite3 chromium zip golang-go r-base-core openssl xz-utils rpm dnf); fi
missing=()
for p in "${need_pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Native modules (nodegit above all) must be compiled against the headers of the Node that runs
# them. A machine's npm config may name other headers (nodedir=/usr is Debian's Node 20), so setup
# passes the headers of the running Node: <prefix>/include/node beside its binary, when their
# node_version.h is that Node's version. Without such headers, an empty nodedir has node-gyp
# download them. It goes as `npm ci --nodedir=...`, which npm hands to node-gyp as
# npm_config_nodedir: an empty npm_config_nodedir in the environment would not override the
# config file. make gets one job per core (JOBS=max, node-gyp reads it) unless JOBS is set.
nodedir=$(node -e '
  const fs = require("fs"), path = require("path");
  const prefix = path.dirname(path.dirname(fs.realpathSync(process.execPath)));
  let h = "";
  try { h = fs.readFileSync(path.join(prefix, "include", "node", "node_version.h"), "utf8"); } catch {}
  const v = (n) => (h.match(new RegExp("#define NODE_" + n + "_VERSION (\\d+)")) || [])[1];
  if (`v${v("MAJOR")}.${v("MINOR")}.${v("PATCH")}` === process.version) console.log(prefix);')
export JOBS=${JOBS:-max}

# npm ci only when the lock file changed since the last install (nodegit's build takes minutes) or
# nodegit does not load on the running Node (built for another Node's ABI).
stamp=node_modules/.forge-installed
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ] || [ ! -d node_modules/nodegit/build/Release ] ||
   ! node -e 'require("nodegit")' >/dev/null 2>&1; then
  echo "setup: npm ci on Node $(node --version) with the headers ${nodedir:-that node-gyp downloads} (the first run builds nodegit from source, several minutes)"
  npm ci --no-audit --no-fund --nodedir="$nodedir"
  node -e 'require("nodegit")' || { echo "setup: nodegit does not load on Node $(node --version)" >&2; exit 1; }
  touch "$stamp"
fi

# Build when any source is newer than the last build.
built=dist/.forge-built
if [ ! -f "$built" ] || [ -n "$(find src workers ssh migrations test bench cluster.config.ts tsoa.json tsconfig.json package.json -newer "$built" -type f 2>/dev/null | head -1)" ]; then
  echo "setup: building"
  npm run -s build
  touch "$built"
fi
