#!/usr/bin/env bash
# Builds both services, starts them against the local PostgreSQL, makes a few writes and shows the result.
# Stops both services on Ctrl-C (or at once with DEMO_EXIT=1).
set -euo pipefail
cd "$(dirname "$0")/.."

PG_URL=${PG_URL:-jdbc:postgresql://127.0.0.1:5432}
export SECURITY_TOKENS=${SECURITY_TOKENS:-'op=operator;w=writer;r=relay;c=consumer'}
RUN=run; mkdir -p "$RUN"

echo "== building (mvn -B -q -DskipTests package)"
mvn -B -q -DskipTests package

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
stop() { for n in product-service resolver-service; do [ -f "$RUN/$n.pid" ] && kill "$(cat "$RUN/$n.pid")" 2>/dev/null || true; done; }
trap stop EXIT

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
