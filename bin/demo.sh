#!/usr/bin/env bash
# Builds both services, starts them against the local PostgreSQL, makes a few writes and shows the result.
# Stops both services on Ctrl-C (or at once with DEMO_EXIT=1).
# PG_URL: the server (default jdbc:postgresql://127.0.0.1:5432, user postgres, trust auth). When nothing answers
# there, it starts an embedded PostgreSQL 15 (binaries from Maven, test-support's EmbeddedPostgresMain) on a free
# port (EMBEDDED_PG_PORT to fix one), says so, and stops and deletes it when the demo stops.
# DEMO_BUILD=0: no build, the jars (and test-support/target/classpath.txt) of an earlier package are used.
set -euo pipefail
cd "$(dirname "$0")/.."

PG_URL=${PG_URL:-jdbc:postgresql://127.0.0.1:5432}
export SECURITY_TOKENS=${SECURITY_TOKENS:-'op=operator;w=writer;r=relay;c=consumer'}
RUN=run; mkdir -p "$RUN"

if [ "${DEMO_BUILD:-1}" = 0 ]; then
  echo "== not building (DEMO_BUILD=0): using the jars in */target"
else
  echo "== building (mvn -B -q -DskipTests package)"
  mvn -B -q -DskipTests package
fi

start() { # name port env...
  local name=$1 port=$2; shift 2
  env "$@" SERVER_PORT="$port" java -jar "$name/target/$name.jar" >"$RUN/$name.log" 2>&1 &
  echo $! >"$RUN/$name.pid"
  for _ in $(seq 1 90); do
    curl -sf "localhost:$port/actuator/health" >/dev/null && { echo "== $name up on :$port (log: $RUN/$name.log)"; return; }
    kill -0 "$(cat "$RUN/$name.pid")" 2>/dev/null || { echo "$name failed to start:"; tail -30 "$RUN/$name.log"; exit 1; }
    sleep 1
  done
  echo "$name did not become healthy"; tail -30 "$RUN/$name.log"; exit 1
}
embedded_pid=""
stop() {
  for n in product-service resolver-service; do [ -f "$RUN/$n.pid" ] && kill "$(cat "$RUN/$n.pid")" 2>/dev/null || true; done
  if [ -n "$embedded_pid" ]; then
    # the services first: they would log lost connections if the database went before them
    for n in product-service resolver-service; do
      for _ in $(seq 1 30); do [ -f "$RUN/$n.pid" ] && kill -0 "$(cat "$RUN/$n.pid")" 2>/dev/null || break; sleep 1; done
    done
    kill "$embedded_pid" 2>/dev/null || true
    wait "$embedded_pid" 2>/dev/null || true
    echo "== embedded PostgreSQL stopped (its data is deleted)"
  fi
}
trap stop EXIT

# Does anything answer at PG_URL? (a TCP connect: the machine may have no psql)
pg_hostport=${PG_URL#jdbc:postgresql://}; pg_hostport=${pg_hostport%%/*}
pg_host=${pg_hostport%:*}; pg_port=${pg_hostport##*:}; [ "$pg_port" != "$pg_hostport" ] || pg_port=5432
if ! (exec 3<>"/dev/tcp/$pg_host/$pg_port") 2>/dev/null; then
  echo "== nothing answers at $PG_URL: starting an embedded PostgreSQL (binaries from Maven; deleted when the demo stops)"
  rm -f "$RUN/embedded-postgres.url"
  java -cp "test-support/target/classes:$(cat test-support/target/classpath.txt)" \
    com.acme.catalog.testsupport.EmbeddedPostgresMain --port="${EMBEDDED_PG_PORT:-0}" \
    --databases=resolver,product,control --url-file="$RUN/embedded-postgres.url" >"$RUN/embedded-postgres.log" 2>&1 &
  embedded_pid=$!
  for _ in $(seq 1 120); do
    [ -s "$RUN/embedded-postgres.url" ] && break
    kill -0 "$embedded_pid" 2>/dev/null || break
    sleep 1
  done
  [ -s "$RUN/embedded-postgres.url" ] || { echo "the embedded PostgreSQL did not start:"; tail -30 "$RUN/embedded-postgres.log"; exit 1; }
  PG_URL=$(cat "$RUN/embedded-postgres.url")
  echo "== $(grep -m1 '^embedded PostgreSQL' "$RUN/embedded-postgres.log" || echo "embedded PostgreSQL on $PG_URL")"
fi

# the relay sends RELAY_TOKEN only under RELAY_ALLOWED_DELIVERY_URLS; the product serves PRODUCT_STREAMS only
start resolver-service 8081 SPRING_DATASOURCE_URL="$PG_URL/resolver" CONTROL_DATASOURCE_URL="$PG_URL/control" \
  RELAY_TOKEN=r RELAY_ALLOWED_DELIVERY_URLS=http://localhost:8082/v1/inbox/
start product-service 8082 SPRING_DATASOURCE_URL="$PG_URL/product" RESOLVER_URL=http://localhost:8081 \
  RESOLVER_TOKEN=c PRODUCT_CONSUMER_ID=product-demo PRODUCT_DELIVERY_URL=http://localhost:8082/v1/inbox/events \
  PRODUCT_STREAMS=demo/shoes

RESOLVER=http://localhost:8081 PRODUCT=http://localhost:8082 PRODUCT_CONSUMER_ID=product-demo \
  PRODUCT_DELIVERY_URL=http://localhost:8082/v1/inbox/events bin/demo-flow.sh

if [ "${DEMO_EXIT:-0}" = 1 ]; then exit 0; fi
echo "== both services keep running; Ctrl-C stops them"
wait
