#!/usr/bin/env bash
# Provisions Node 24 from the npm registry (the package node-linux-<arch>, which ships the binary
# and its headers, the same bits as the `node` package's dependency) into .tools/ (git-ignored),
# unless it is there already, and prints the folder holding its `node`. Put that folder first on
# PATH to run anything on Node 24: npm and npx (scripts run by `#!/usr/bin/env node`) then run on it
# too, and scripts/setup.sh finds its headers beside it. FORGE_NODE24_VERSION overrides the version.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${FORGE_NODE24_VERSION:-24.21.0}
arch=$(uname -m)
case "$arch" in x86_64) arch=x64 ;; aarch64) arch=arm64 ;; esac
pkg="node-linux-$arch"
prefix=".tools/node-v$version"
bin="$PWD/$prefix/node_modules/$pkg/bin"
if [ "$("$bin/node" --version 2>/dev/null)" != "v$version" ]; then
  echo "node24: installing $pkg@$version from the npm registry into $prefix" >&2
  rm -rf "$prefix"
  mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "$pkg@$version" >&2
  [ "$("$bin/node" --version)" = "v$version" ] || { echo "node24: $bin/node is not v$version" >&2; exit 1; }
fi
echo "$bin"
