#!/usr/bin/env bash
# The restore drill of docs/runbooks/restore.md, scripted against the local PostgreSQL: starts both services from
# their jars on databases of their own (<prefix>_resolver, _product, _control: DROPPED and recreated), writes
# DRILL_ITEMS items, dumps the resolver's database with pg_dump, writes DRILL_LOST_ITEMS more (which the product
# applies), stops the resolver, restores the dump with pg_restore, starts it, checks that it refuses writes
# (HISTORY_ROLLED_BACK), puts both services in maintenance, rotates the epoch, and waits until the product has
# rebuilt itself at the new epoch. Prints one JSON summary on stdout (progress goes to stderr) with the RTO:
# seconds from "restore done" (pg_restore finished and the resolver healthy) to "the product serves the new epoch"
# (completeness CURRENT in it, checksums equal).
#
#   bin/restore-drill.sh                         # 10000 items, 1000 lost
#   DRILL_ITEMS=100000 bin/restore-drill.sh      # the figure in docs/spk-05.md
#
# Settings: DRILL_ITEMS, DRILL_LOST_ITEMS, DRILL_RESOLVER_PORT (8091), DRILL_PRODUCT_PORT (8092), DRILL_DB_PREFIX
# (drill), DRILL_KEEP=1 (leave services stopped but databases in place), PGHOST/PGPORT/PGUSER (127.0.0.1/5432/
# postgres; PGPASSWORD if needed). Needs curl, jq, psql, pg_dump, pg_restore and java 17.
set -euo pipefail
cd "$(dirname "$0")/.."

ITEMS=${DRILL_ITEMS:-10000}
LOST=${DRILL_LOST_ITEMS:-1000}
RP=${DRILL_RESOLVER_PORT:-8091}
PP=${DRILL_PRODUCT_PORT:-8092}
PREFIX=${DRILL_DB_PREFIX:-drill}
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
PG_URL="jdbc:postgresql://$PGHOST:$PGPORT"
T=drill C=catalog
RUN=run/restore-drill; mkdir -p "$RUN"; rm -rf "$RUN/objects"; mkdir -p "$RUN/objects"
DUMP="$RUN/resolver.dump"
TOKENS='op=operator;w=writer;r=relay;c=consumer'
R="http://localhost:$RP" P="http://localhost:$PP"

log() { echo "[drill $(date +%T)] $*" >&2; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
die() { log "FAILED: $*"; exit 1; }

for tool in curl jq psql pg_dump pg_restore java; do command -v $tool >/dev/null || die "$tool is not installed"; done
if [ ! -f resolver-service/target/resolver-service.jar ] || [ ! -f product-service/target/product-service.jar ]; then
  log "building the jars (mvn -B -q -DskipTests package)"
  mvn -B -q -DskipTests package >&2
fi

sql() { psql --no-psqlrc -q -v ON_ERROR_STOP=1 -d postgres -c "$1" >&2; }
for db in resolver product control; do sql "DROP DATABASE IF EXISTS ${PREFIX}_$db WITH (FORCE)"; done
for db in resolver product control; do sql "CREATE DATABASE ${PREFIX}_$db"; done

start() { # name port env...
  local name=$1 port=$2; shift 2
  env "$@" SERVER_PORT="$port" SECURITY_TOKENS="$TOKENS" OBJECT_STORE_URI="file:$PWD/$RUN/objects" \
    java -jar "$name/target/$name.jar" >>"$RUN/$name.log" 2>&1 &
  echo $! >"$RUN/$name.pid"
  for _ in $(seq 1 180); do
    curl -sf "localhost:$port/actuator/health" >/dev/null && return
    kill -0 "$(cat "$RUN/$name.pid")" 2>/dev/null || { tail -30 "$RUN/$name.log" >&2; die "$name failed to start"; }
    sleep 0.5
  done
  die "$name did not become healthy (log: $RUN/$name.log)"
}
stop() { local pid; pid=$(cat "$RUN/$1.pid" 2>/dev/null) || return 0
  kill "$pid" 2>/dev/null || true; while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done; rm -f "$RUN/$1.pid"; }
cleanup() { stop product-service; stop resolver-service
  if [ "${DRILL_KEEP:-0}" != 1 ]; then for db in resolver product control; do
    psql --no-psqlrc -q -d postgres -c "DROP DATABASE IF EXISTS ${PREFIX}_$db WITH (FORCE)" >/dev/null 2>&1 || true
  done; fi; }
trap cleanup EXIT

start_resolver() {
  start resolver-service "$RP" SPRING_DATASOURCE_URL="$PG_URL/${PREFIX}_resolver" \
    CONTROL_DATASOURCE_URL="$PG_URL/${PREFIX}_control" RELAY_TOKEN=r RELAY_ALLOWED_DELIVERY_URLS="$P/"
}

# api METHOD URL TOKEN [BODY] -> body on stdout, "HTTP status" in $RUN/status
api() { curl -s -o "$RUN/body" -w '%{http_code}' -X "$1" -H "Authorization: Bearer $3" \
  -H 'Content-Type: application/json' ${4:+--data-binary "$4"} "$2" >"$RUN/status"; cat "$RUN/body"; }
ok() { local out; out=$(api "$@"); [ "$(cat "$RUN/status")" -lt 300 ] || die "$1 $2 answered $(cat "$RUN/status"): $out"
  echo "$out"; }

# writes items $1..$2 named $3-i in transactions of 500 changes
write_items() { local from=$1 to=$2 name=$3 i j body
  for ((i = from; i < to; i += 500)); do
    body='{"changes":['
    for ((j = i; j < i + 500 && j < to; j++)); do
      body+="{\"op\":\"upsertItem\",\"itemId\":\"$name-$j\",\"attributes\":{\"name\":\"Item $j\",\"price\":$((j % 997))}},"
    done
    ok POST "$R/v1/streams/$T/$C/transactions" w "${body%,}]}" >/dev/null
  done; }
release() { ok PUT "$R/v1/streams/$T/$C/releases/$1" w \
  "{\"visibility\":\"PUBLIC\",\"items\":[{\"itemId\":\"$2\",\"revision\":1}]}" >/dev/null; }
cursor() { ok GET "$R/v1/streams/$T/$C/cursor" op | jq -r .position; }
completeness() { ok GET "$P/v1/projection-completeness?tenant=$T&catalog=$C" op; }

# waits until the product has processed the resolver's head (completeness, cheap), then until its checksums equal
# the resolver's under both profiles
converged() { local deadline=$(( $(date +%s) + ${1:-1800} )) profile a b ok head epoch
  while [ "$(date +%s)" -lt "$deadline" ]; do
    head=$(api GET "$R/v1/streams/$T/$C/cursor" op | jq -r '"\(.epoch) \(.position)"')
    [ "$(completeness | jq -r '"\(.epoch) \(.verifiedThrough)"')" = "$head" ] && break; sleep 0.5
  done
  while [ "$(date +%s)" -lt "$deadline" ]; do ok=1
    for profile in accepted-state-v1 public-view-v1; do
      a=$(api GET "$R/v1/streams/$T/$C/state-checksum?profile=$profile" op | jq -cS "{epoch,position,tables}")
      b=$(api GET "$P/v1/streams/$T/$C/projection-checksum?profile=$profile" op | jq -cS "{epoch,position,tables}" 2>/dev/null || true)
      [ -n "$b" ] && [ "$a" = "$b" ] || ok=0
    done
    [ $ok = 1 ] && return 0; sleep 2
  done
  log "not converged: resolver $a"; log "not converged: product  $b"; return 1; }

log "starting both services (logs in $RUN)"
start_resolver
start product-service "$PP" SPRING_DATASOURCE_URL="$PG_URL/${PREFIX}_product" RESOLVER_URL="$R" RESOLVER_TOKEN=c \
  PRODUCT_CONSUMER_ID=product-drill PRODUCT_DELIVERY_URL="$P/v1/inbox/events" PRODUCT_STREAMS="$T/$C" \
  SPRING_APPLICATION_JSON='{"product":{"recovery":{"interval":"PT2S"},"epochs":{"poll-interval":"PT1S"}}}'

log "writing $ITEMS items"
write_items 0 1 item; release kept item-0
ok POST "$R/v1/retention/consumers" c "{\"consumerId\":\"product-drill\",\"tenant\":\"$T\",\"catalog\":\"$C\",\"epoch\":1,\"deliveryUrl\":\"$P/v1/inbox/events\"}" >/dev/null
write_items 1 "$ITEMS" item
converged || die "the product did not converge before the dump"
DUMPED=$(cursor)

log "pg_dump of ${PREFIX}_resolver at position $DUMPED"
pg_dump --format=custom --file="$DUMP" --dbname="${PREFIX}_resolver"

log "writing $LOST items after the dump (the restore loses them)"
write_items 0 "$LOST" lost; release lost lost-0
converged || die "the product did not converge after the dump"
HEAD=$(cursor)
for _ in $(seq 1 100); do
  [ "$(ok GET "$R/v1/epochs/$T/$C" op | jq -r .highWaterMark)" = "$HEAD" ] && break; sleep 0.2
done
LOST_SERVED_BEFORE=$(curl -s -o /dev/null -w '%{http_code}' "$P/v1/catalog/$T/$C/items/lost-0")

log "stopping the resolver, restoring the dump (pg_restore into a fresh ${PREFIX}_resolver), starting it"
stop resolver-service
T0=$(now)
sql "DROP DATABASE ${PREFIX}_resolver WITH (FORCE)"; sql "CREATE DATABASE ${PREFIX}_resolver"
pg_restore --exit-on-error --no-owner --dbname="${PREFIX}_resolver" "$DUMP"
T1=$(now)
start_resolver
T2=$(now)
RESTORED=$(cursor)

REFUSED=$(api PUT "$R/v1/streams/$T/$C/items/after-restore" w '{"attributes":{"name":"x"}}' | jq -r .code)
[ "$(cat "$RUN/status")" = 503 ] || die "the restored resolver accepted a write (status $(cat "$RUN/status"))"
log "the restored resolver refuses writes: $REFUSED (cursor $RESTORED, high-water mark $HEAD)"

log "maintenance on both services, rotate, maintenance off"
ok POST "$P/v1/admin/maintenance" op '{"enabled":true}' >/dev/null
ok POST "$R/v1/admin/maintenance" op '{"enabled":true}' >/dev/null
EPOCH=$(ok POST "$R/v1/epochs/$T/$C/rotate" op '{"reason":"restore drill: resolver database restored from pg_dump"}' | jq -r .epoch)
ok POST "$R/v1/admin/maintenance" op '{"enabled":false}' >/dev/null
for _ in $(seq 1 100); do
  completeness | jq -e --argjson e "$EPOCH" '(.reason // "" | startswith("EPOCH_CHANGED")) or .epoch == $e' >/dev/null && break
  sleep 0.2
done
ok POST "$P/v1/admin/maintenance" op '{"enabled":false}' >/dev/null
T3=$(now)

log "waiting for the product to rebuild itself at epoch $EPOCH"
for _ in $(seq 1 3600); do
  completeness | jq -e --argjson e "$EPOCH" '.epoch == $e and .state == "CURRENT"' >/dev/null && break
  sleep 0.5
done
completeness | jq -e --argjson e "$EPOCH" '.epoch == $e and .state == "CURRENT"' >/dev/null \
  || die "the product did not reach epoch $EPOCH: $(completeness)"
T4=$(now)
EQUAL=false; converged 60 && EQUAL=true
LOST_SERVED_AFTER=$(curl -s -o /dev/null -w '%{http_code}' "$P/v1/catalog/$T/$C/items/lost-0")
KEPT_SERVED=$(curl -s -o /dev/null -w '%{http_code}' "$P/v1/catalog/$T/$C/items/item-0")
REBUILD_ID=$(psql --no-psqlrc -At -d "${PREFIX}_product" -c "SELECT rebuild_id FROM product.rebuild ORDER BY created_at DESC LIMIT 1")
REBUILD=$(api GET "$P/v1/rebuilds/$REBUILD_ID" op | jq -c '.phaseMillis // null' 2>/dev/null || echo null)

jq -n --argjson items "$ITEMS" --argjson lost "$LOST" --argjson dumped "$DUMPED" --argjson head "$HEAD" \
  --argjson restored "$RESTORED" --arg refused "$REFUSED" --argjson epoch "$EPOCH" \
  --argjson dumpBytes "$(stat -c %s "$DUMP")" --argjson pgRestore "$(secs "$T0" "$T1")" \
  --argjson resolverStart "$(secs "$T1" "$T2")" --argjson operator "$(secs "$T2" "$T3")" \
  --argjson rto "$(secs "$T2" "$T4")" --argjson rebuild "$(secs "$T3" "$T4")" --argjson equal "$EQUAL" \
  --arg lostBefore "$LOST_SERVED_BEFORE" --arg lostAfter "$LOST_SERVED_AFTER" --arg kept "$KEPT_SERVED" \
  --argjson phases "${REBUILD:-null}" \
  '{drill: "restore", items: $items, lostItems: $lost, dumpedAt: $dumped, headBeforeRestore: $head,
    restoredCursor: $restored, dumpBytes: $dumpBytes, refusedWith: $refused, newEpoch: $epoch,
    seconds: {pgRestore: $pgRestore, resolverStart: $resolverStart, operatorSteps: $operator,
              productRebuild: $rebuild},
    rtoSeconds: $rto, rebuildPhaseMillis: $phases, checksumsEqual: $equal,
    lostItemStatus: {beforeRestore: ($lostBefore | tonumber), afterRecovery: ($lostAfter | tonumber)},
    keptItemStatus: ($kept | tonumber),
    ok: ($equal and $lostAfter == "404" and $kept == "200" and $refused == "HISTORY_ROLLED_BACK")}'
