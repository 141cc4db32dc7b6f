#!/usr/bin/env bash
# Runs the whole test suite: lint, unit and integration tests on SQLite, then the integration
# tests again on PostgreSQL + Redis with two worker processes. Installs and starts PostgreSQL and
# Redis (Debian packages) when they are absent; they run on private ports with their data under /tmp.
set -euo pipefail
cd "$(dirname "$0")/.."
FORGE_SETUP_TEST_DEPS=1 bash scripts/setup.sh

PG_PORT=${FORGE_TEST_PG_PORT:-55432}
REDIS_PORT=${FORGE_TEST_REDIS_PORT:-56379}
FORGE_TEST_PG_PORT=$PG_PORT FORGE_TEST_REDIS_PORT=$REDIS_PORT bash scripts/services.sh

npm run -s lint

stats=$(mktemp)
status=0
echo "== SQLite, one worker =="
FORGE_TEST_STATS="$stats" FORGE_TEST_PG_PORT="$PG_PORT" FORGE_TEST_REDIS_PORT="$REDIS_PORT" npx mocha 'dist/test/**/*.test.js' || status=1
echo "== PostgreSQL + Redis, two workers =="
FORGE_TEST_STATS="$stats" FORGE_TEST_DB=postgres FORGE_TEST_PG_PORT="$PG_PORT" FORGE_TEST_REDIS="redis://127.0.0.1:$REDIS_PORT" FORGE_TEST_WORKERS=2 \
  npx mocha 'dist/test/integration/**/*.test.js' || status=1
awk '{p+=$1; f+=$2; s+=$3} END {printf "\nall runs: %d passed, %d failed, %d skipped\n", p, f, s}' "$stats"
rm -f "$stats"
exit $status
