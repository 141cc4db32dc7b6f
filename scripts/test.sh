#!/usr/bin/env bash
# Runs the whole test suite: lint, then two passes at once: the unit and integration tests on
# SQLite with one worker, and the integration tests on PostgreSQL + Redis with two worker
# processes. Within a pass the test files run in parallel (each file starts its own server on free
# ports, with its own data dir and database). Installs and starts PostgreSQL and Redis (Debian
# packages) when they are absent; they run on private ports with their data under /tmp.
# FORGE_TEST_JOBS sets the files run at once per pass (default 3). Each pass ends with its ten
# slowest files.
# One pass runs on Node 24 (docs/node.md): FORGE_TEST_NODE24 names it, sqlite (the default) or
# postgres, or none; the other runs on the Node first on PATH. Native modules are built per Node
# ABI, so the Node 24 pass runs in a copy of this checkout, .tools/tree-node24, with its own
# node_modules (npm ci on Node 24 the first time and when package-lock.json changes).
set -euo pipefail
cd "$(dirname "$0")/.."
FORGE_SETUP_TEST_DEPS=1 bash scripts/setup.sh

node24=${FORGE_TEST_NODE24:-sqlite}
case "$node24" in sqlite | postgres | none) ;; *) echo "test: FORGE_TEST_NODE24 is sqlite, postgres or none" >&2; exit 2 ;; esac
declare -A dir=([sqlite]=$PWD [postgres]=$PWD) bin=([sqlite]='' [postgres]='')
if [ "$node24" != none ]; then
  bin[$node24]=$(bash scripts/node24.sh)
  copy=.tools/tree-node24
  echo "test: copying this checkout to $copy for the $node24 pass on Node 24"
  mkdir -p "$copy"
  find "$copy" -mindepth 1 -maxdepth 1 ! -name node_modules -exec rm -rf {} +
  tar -c --exclude=./node_modules --exclude=./.tools --exclude=./.git --exclude=./data --exclude=./test-artifacts \
    --exclude=./coverage --exclude=./.bench . | tar -x -C "$copy"
  PATH="${bin[$node24]}:$PATH" bash "$copy/scripts/setup.sh"
  dir[$node24]=$PWD/$copy
fi

PG_PORT=${FORGE_TEST_PG_PORT:-55432}
REDIS_PORT=${FORGE_TEST_REDIS_PORT:-56379}
JOBS=${FORGE_TEST_JOBS:-3}
FORGE_TEST_PG_PORT=$PG_PORT FORGE_TEST_REDIS_PORT=$REDIS_PORT bash scripts/services.sh

npm run -s lint

out=$(mktemp -d)
stats="$out/stats"
: > "$stats"
export FORGE_TEST_STATS="$stats" FORGE_TEST_PG_PORT="$PG_PORT" FORGE_TEST_REDIS_PORT="$REDIS_PORT"
# Screenshots of both passes go to this checkout's test-artifacts/, also from the copy.
export FORGE_TEST_ARTIFACTS="${FORGE_TEST_ARTIFACTS:-$PWD/test-artifacts}"

# Runs one pass in the background, in dir[name] on the node in bin[name] (empty: the first on
# PATH): name, then the mocha arguments; records its Node version, status and wall time.
pass() {
  local name=$1; shift
  (
    cd "${dir[$name]}"
    if [ -n "${bin[$name]}" ]; then PATH="${bin[$name]}:$PATH"; fi
    node --version > "$out/$name.node"
    start=$(date +%s)
    status=0
    FORGE_TEST_TIMES="$out/$name.times" npx mocha --parallel --jobs "$JOBS" "$@" > "$out/$name.log" 2>&1 || status=1
    echo "$status $(( $(date +%s) - start ))" > "$out/$name.result"
  ) &
}

pass sqlite 'dist/test/**/*.test.js'
FORGE_TEST_DB=postgres FORGE_TEST_REDIS="redis://127.0.0.1:$REDIS_PORT" FORGE_TEST_WORKERS=2 pass postgres 'dist/test/integration/**/*.test.js'
wait

status=0
summary=""
for name in sqlite postgres; do
  label="$([ "$name" = sqlite ] && echo "SQLite, one worker" || echo "PostgreSQL + Redis, two workers"), Node $(cat "$out/$name.node")"
  echo "== $label =="
  cat "$out/$name.log"
  echo "slowest files (seconds):"
  sort -rn "$out/$name.times" 2>/dev/null | head -10 | sed 's/^/  /'
  read -r code secs < "$out/$name.result"
  [ "$code" = 0 ] || status=1
  summary+="$(printf '%-50s %dm%02ds %s' "$label" $((secs / 60)) $((secs % 60)) "$([ "$code" = 0 ] && echo passed || echo FAILED)")"$'\n'
done
# The failures again at the end, where a log viewer that shows only the tail still sees them.
for name in sqlite postgres; do
  if grep -q '^  [0-9]* failing' "$out/$name.log"; then
    echo; echo "== failures of the $name pass =="
    sed -n '/^  [0-9]* failing/,$p' "$out/$name.log" | head -200
  fi
done
awk '{p+=$1; f+=$2; s+=$3} END {printf "\nall runs: %d passed, %d failed, %d skipped\n", p, f, s}' "$stats"
printf '\nwall time per pass (run at the same time):\n%s' "$summary"
rm -rf "$out"
exit $status
