#!/bin/bash
set -euo pipefail
bin=/usr/lib/postgresql/15/bin
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  "$bin/initdb" -D "$PGDATA" -U postgres --auth=trust >/dev/null
  "$bin/pg_ctl" -D "$PGDATA" -o "-c listen_addresses=127.0.0.1 -p $PGPORT" -w start >/dev/null
  for f in /docker-entrypoint-initdb.d/*.sql; do "$bin/../bin/psql" -h 127.0.0.1 -p "$PGPORT" -U postgres -q -f "$f"; done
  "$bin/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec "$bin/postgres" -D "$PGDATA" -c listen_addresses=127.0.0.1 -p "$PGPORT" -c fsync=off
