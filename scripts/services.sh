#!/usr/bin/env bash
# Starts the PostgreSQL and Redis servers the tests use, on private ports with their data under
# /tmp, unless they already answer. PostgreSQL gets a superuser role forge/forge.
set -euo pipefail
PG_PORT=${FORGE_TEST_PG_PORT:-55432}
REDIS_PORT=${FORGE_TEST_REDIS_PORT:-56379}
svc=/tmp/forge-services-$PG_PORT
mkdir -p "$svc"
chmod 1777 "$svc"
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
if ! "$pgbin/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT"; then
  echo "test: starting PostgreSQL on port $PG_PORT"
  if [ ! -f "$svc/pg/PG_VERSION" ]; then
    rm -rf "$svc/pg"; install -d -o postgres -g postgres "$svc/pg"
    su postgres -s /bin/sh -c "$pgbin/initdb -D $svc/pg -A trust -U postgres" >/dev/null
  fi
  chown -R postgres:postgres "$svc/pg"
  su postgres -s /bin/sh -c "$pgbin/pg_ctl -D $svc/pg -l $svc/pg.log -w -o '-p $PG_PORT -k $svc -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off' start" >/dev/null
fi
"$pgbin/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -tAc "SELECT 1 FROM pg_roles WHERE rolname='forge'" | grep -q 1 ||
  "$pgbin/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -qc "CREATE ROLE forge LOGIN SUPERUSER PASSWORD 'forge'"
if ! redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1; then
  echo "test: starting Redis on port $REDIS_PORT"
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --daemonize yes --save '' --appendonly no --logfile "$svc/redis.log"
fi
