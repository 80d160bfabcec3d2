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
# With DRILL_STREAMS=N above 1 it drills a fleet instead: the product subscribed with PRODUCT_STREAMS=drill/*, N
# streams drill/c0 … drill/c<N-1> of DRILL_ITEMS_PER_STREAM items (1) and a PUBLIC release each (written from
# DRILL_PARALLEL clients), the lost tail (one item and a release) on DRILL_LOST_STREAMS of them (N/10, at least 1,
# spread evenly), and the fleet runbook: maintenance on (product, resolver), one POST /v1/epochs/rotations of every
# stream, its job polled until DONE, maintenance off (resolver, product), then the product's fleet completeness view
# until every stream is CURRENT at the new epoch (each stream's completeness where the product has no fleet view).
# DRILL_RUNBOOK=per-stream rotates each stream instead (today's runbook without fleet rotation, for comparison).
#
#   bin/restore-drill.sh                         # 10000 items, 1000 lost
#   DRILL_ITEMS=100000 bin/restore-drill.sh      # the figure in docs/spk-05.md
#   DRILL_STREAMS=1000 bin/restore-drill.sh      # 1000 streams, 100 of them with a lost tail, the fleet runbook
#
# Besides the RTO the summary counts operatorCalls (every call of the runbook: maintenance switches, rotations,
# stream listing pages; not the reads that wait), rotationSeconds, rebuildsRun (the product's rebuilds since the
# resolver stopped), lostItemsServedAfterMaintenanceOff (each affected stream's lost item read every 0.5 s from the
# product's maintenance-off to the end, up to DRILL_LOST_SAMPLE streams, and once more at the end: must be 0) and,
# for a fleet, unaffectedKeptServed (p50/p99 seconds from maintenance-off until DRILL_KEPT_SAMPLE unaffected streams
# serve their kept item again).
#
# Settings: DRILL_ITEMS, DRILL_LOST_ITEMS (one stream), DRILL_STREAMS (1), DRILL_ITEMS_PER_STREAM (1),
# DRILL_LOST_STREAMS (N/10), DRILL_RUNBOOK (fleet | per-stream), DRILL_PARALLEL (8), DRILL_LOST_SAMPLE (50),
# DRILL_KEPT_SAMPLE (20), DRILL_CHECK_SAMPLE (20 unaffected streams whose checksums are compared besides every
# affected one), DRILL_RESOLVER_PORT (8091), DRILL_PRODUCT_PORT (8092), DRILL_DB_PREFIX
# (drill), DRILL_KEEP=1 (leave services stopped but databases in place), PGHOST/PGPORT/PGUSER (127.0.0.1/5432/
# postgres; PGPASSWORD if needed). Needs curl, jq, psql, pg_dump, pg_restore, xargs and java 17.
set -euo pipefail
cd "$(dirname "$0")/.."

ITEMS=${DRILL_ITEMS:-10000}
LOST=${DRILL_LOST_ITEMS:-1000}
N=${DRILL_STREAMS:-1}
PER=${DRILL_ITEMS_PER_STREAM:-1}
LOST_STREAMS=${DRILL_LOST_STREAMS:-$(( N / 10 > 0 ? N / 10 : 1 ))}
RUNBOOK=${DRILL_RUNBOOK:-fleet}
PAR=${DRILL_PARALLEL:-8}
LOST_SAMPLE=${DRILL_LOST_SAMPLE:-50}
KEPT_SAMPLE=${DRILL_KEPT_SAMPLE:-20}
CHECK_SAMPLE=${DRILL_CHECK_SAMPLE:-20}
RP=${DRILL_RESOLVER_PORT:-8091}
PP=${DRILL_PRODUCT_PORT:-8092}
PREFIX=${DRILL_DB_PREFIX:-drill}
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
PG_URL="jdbc:postgresql://$PGHOST:$PGPORT"
T=drill C=catalog
RUN=run/restore-drill; mkdir -p "$RUN"; rm -rf "$RUN/objects" "$RUN/samples"; mkdir -p "$RUN/objects" "$RUN/samples"
DUMP="$RUN/resolver.dump"
TOKENS='op=operator;w=writer;r=relay;c=consumer'
R="http://localhost:$RP" P="http://localhost:$PP"

log() { echo "[drill $(date +%T)] $*" >&2; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
die() { log "FAILED: $*"; exit 1; }

for tool in curl jq psql pg_dump pg_restore java xargs; do command -v $tool >/dev/null || die "$tool is not installed"; done
[[ "$N" =~ ^[1-9][0-9]*$ ]] || die "DRILL_STREAMS must be a positive integer, not '$N'"
[[ "$LOST_STREAMS" =~ ^[1-9][0-9]*$ ]] && [ "$LOST_STREAMS" -le "$N" ] \
  || die "DRILL_LOST_STREAMS must be 1 to DRILL_STREAMS ($N), not '$LOST_STREAMS'"
case $RUNBOOK in fleet|per-stream) ;; *) die "DRILL_RUNBOOK is fleet or per-stream, not '$RUNBOOK'" ;; esac
if [ ! -f resolver-service/target/resolver-service.jar ] || [ ! -f product-service/target/product-service.jar ]; then
  log "building the jars (mvn -B -q -DskipTests package)"
  mvn -B -q -DskipTests package >&2
fi

# the streams: one (drill/catalog), or drill/c0 … c<N-1>; the affected ones (the lost tail) spread evenly
spread() { local n=$1 i; shift; local from=("$@"); [ "$n" -ge ${#from[@]} ] && n=${#from[@]}
  for ((i = 0; i < n; i++)); do echo "${from[$(( i * ${#from[@]} / n ))]}"; done; }
if [ "$N" = 1 ]; then
  CATALOGS=("$C"); AFFECTED=("$C"); UNAFFECTED=(); SUBSCRIBED="$T/$C"
else
  mapfile -t CATALOGS < <(seq 0 $((N - 1)) | sed 's/^/c/')
  mapfile -t AFFECTED < <(spread "$LOST_STREAMS" "${CATALOGS[@]}")
  mapfile -t UNAFFECTED < <(printf '%s\n' "${CATALOGS[@]}" | grep -vxF -f <(printf '%s\n' "${AFFECTED[@]}") || true)
  SUBSCRIBED="$T/*"
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
SAMPLERS=()
stop_samplers() { touch "$RUN/samples/stop"; [ ${#SAMPLERS[@]} = 0 ] || wait "${SAMPLERS[@]}" 2>/dev/null || true
  SAMPLERS=(); }
cleanup() { stop_samplers; stop product-service; stop resolver-service
  if [ "${DRILL_KEEP:-0}" != 1 ]; then for db in resolver product control; do
    psql --no-psqlrc -q -d postgres -c "DROP DATABASE IF EXISTS ${PREFIX}_$db WITH (FORCE)" >/dev/null 2>&1 || true
  done; fi; }
trap cleanup EXIT

start_resolver() {
  start resolver-service "$RP" SPRING_DATASOURCE_URL="$PG_URL/${PREFIX}_resolver" \
    CONTROL_DATASOURCE_URL="$PG_URL/${PREFIX}_control" RELAY_TOKEN=r RELAY_ALLOWED_DELIVERY_URLS="$P/"
}

# api METHOD URL TOKEN [BODY] [HEADER] -> body on stdout, "HTTP status" in $RUN/status
api() { curl -s -o "$RUN/body" -w '%{http_code}' -X "$1" -H "Authorization: Bearer $3" \
  -H 'Content-Type: application/json' ${5:+-H "$5"} ${4:+--data-binary "$4"} "$2" >"$RUN/status"; cat "$RUN/body"; }
ok() { local out; out=$(api "$@"); [ "$(cat "$RUN/status")" -lt 300 ] || die "$1 $2 answered $(cat "$RUN/status"): $out"
  echo "$out"; }
# an operator call of the runbook, counted in operatorCalls (the reads that only wait are not); its answer in
# $ANSWER, not on stdout: a call inside $(…) would count in a subshell
CALLS=0 ANSWER=
call() { CALLS=$((CALLS + 1)); ANSWER=$(ok "$@"); }

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
cursor() { ok GET "$R/v1/streams/$T/${1:-$C}/cursor" op | jq -r .position; }
completeness() { ok GET "$P/v1/projection-completeness?tenant=$T&catalog=${1:-$C}" op; }

# the streams' cursors summed, from the resolver's listing (one stream: its cursor)
cursors() { local after="" page total=0
  [ "$N" = 1 ] && { cursor; return; }
  while :; do
    page=$(ok GET "$R/v1/streams?tenant=$T&limit=5000${after:+&after=$after}" op)
    total=$((total + $(jq '[.streams[].cursor] | add // 0' <<<"$page")))
    after=$(jq -r '.next // empty' <<<"$page"); [ -n "$after" ] || break
  done; echo $total; }

# waits until the product has processed the resolver's head of stream $2 (completeness, cheap), then until its
# checksums equal the resolver's under both profiles
converged() { local deadline=$(( $(date +%s) + ${1:-1800} )) c=${2:-$C} profile a b ok head epoch
  while [ "$(date +%s)" -lt "$deadline" ]; do
    head=$(api GET "$R/v1/streams/$T/$c/cursor" op | jq -r '"\(.epoch) \(.position)"')
    [ "$(completeness "$c" | jq -r '"\(.epoch) \(.verifiedThrough)"')" = "$head" ] && break; sleep 0.5
  done
  while [ "$(date +%s)" -lt "$deadline" ]; do ok=1
    for profile in accepted-state-v1 public-view-v1; do
      a=$(api GET "$R/v1/streams/$T/$c/state-checksum?profile=$profile" op | jq -cS "{epoch,position,tables}")
      b=$(api GET "$P/v1/streams/$T/$c/projection-checksum?profile=$profile" op | jq -cS "{epoch,position,tables}" 2>/dev/null || true)
      [ -n "$b" ] && [ "$a" = "$b" ] || ok=0
    done
    [ $ok = 1 ] && return 0; sleep 2
  done
  log "not converged ($T/$c): resolver $a"; log "not converged ($T/$c): product  $b"; return 1; }

# The fleet's calls, run DRILL_PARALLEL at a time by xargs (each in its own bash: no shared files)
status_of() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
post_ok() { local out st; out=$(mktemp); st=$(curl -s -o "$out" -w '%{http_code}' -X POST -H 'Authorization: Bearer w' \
    -H 'Content-Type: application/json' --data-binary "$2" "$1")
  case $st in 2??) rm -f "$out"; return 0 ;; esac
  echo "[drill] $3 answered $st: $(cat "$out")" >&2; rm -f "$out"; return 255; }
seed_one() { local j body='{"changes":['
  for ((j = 0; j < PER; j++)); do
    body+="{\"op\":\"upsertItem\",\"itemId\":\"item-$j\",\"attributes\":{\"name\":\"Item $j\",\"price\":$((j % 997))}},"
  done
  post_ok "$R/v1/streams/$T/$1/transactions" "$body"'{"op":"putRelease","releaseId":"kept","visibility":"PUBLIC","items":[{"itemId":"item-0","revision":1}]}]}' "seed $1"; }
lose_one() { post_ok "$R/v1/streams/$T/$1/transactions" '{"changes":[{"op":"upsertItem","itemId":"lost-0","attributes":{"name":"Lost"}},{"op":"putRelease","releaseId":"lost","visibility":"PUBLIC","items":[{"itemId":"lost-0","revision":1}]}]}' "lost tail $1"; }
# prints $1 unless its item $2 is served publicly
unserved() { [ "$(status_of "$P/v1/catalog/$T/$1/items/$2")" = 200 ] || echo "$1"; }
# prints $1 when its item $2 is served publicly
served() { [ "$(status_of "$P/v1/catalog/$T/$1/items/$2")" = 200 ] && echo "$1" || true; }
# prints $1 unless its completeness is CURRENT at epoch $2
not_current() { curl -s -H 'Authorization: Bearer op' "$P/v1/projection-completeness?tenant=$T&catalog=$1" \
  | jq -e --argjson e "$2" '.epoch == $e and .state == "CURRENT"' >/dev/null || echo "$1"; }
# the kept-item sampler of one stream: from the product's maintenance-off (T3) until item-0 answers 200
kept_one() { while [ ! -f "$RUN/samples/stop" ]; do
    if [ "$(status_of "$P/v1/catalog/$T/$1/items/item-0")" = 200 ]; then
      awk -v a="$T3" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f\n", b - a }' >"$RUN/samples/kept.$1"; return 0
    fi
    sleep 0.25
  done; }
export -f status_of post_ok seed_one lose_one unserved served not_current kept_one
export R P T PER RUN
# each of stdin's streams through function $1 (extra arguments after it), DRILL_PARALLEL at a time
each() { local f=$1; shift; xargs -r -P "$PAR" -n 1 bash -c "$f \"\$0\" $*"; }

# waits (up to $3 s) until item $1 of every stream listed on stdin is served
await_served() { local item=$1 what=$2 deadline=$(( $(date +%s) + $3 )) left
  mapfile -t left
  while [ ${#left[@]} -gt 0 ] && [ "$(date +%s)" -lt "$deadline" ]; do
    mapfile -t left < <(printf '%s\n' "${left[@]}" | each unserved "$item")
    [ ${#left[@]} -gt 0 ] && { log "$what: ${#left[@]} streams not served yet"; sleep 1; }
  done
  [ ${#left[@]} = 0 ] || die "$what: ${#left[@]} streams not served, e.g. ${left[*]:0:5}"; }

# the fleet completeness view, when the product has one (GET /v1/projection-completeness without a stream)
fleet_view() { local out; out=$(api GET "$P/v1/projection-completeness" op)
  [ "$(cat "$RUN/status")" = 200 ] && jq -e 'has("byState")' <<<"$out" >/dev/null && echo "$out"; }
# true when the view counts every stream CURRENT at epoch $1 (byEpoch: a count, or counts by state; an epoch a
# non-empty byEpoch does not name has no stream at it yet)
fleet_current() { jq -e --argjson n "$N" --arg e "$1" '(.byState.CURRENT // 0) >= $n
    and ((.notCurrent // []) | length) == 0
    and ((.byEpoch // {}) as $b | ($b[$e] // (if ($b | length) > 0 then 0 else null end)) as $x
         | $x == null or ($x | if type == "number" then . >= $n
         elif type == "object" then ((.CURRENT // ([.[]] | add)) >= $n) else true end))' >/dev/null; }

log "starting both services (logs in $RUN)"
start_resolver
if [ "$N" -gt 1 ] && [ "$RUNBOOK" = fleet ]; then
  curl -s "$R/v3/api-docs" | jq -e '.paths["/v1/epochs/rotations"].post' >/dev/null \
    || die "this resolver has no POST /v1/epochs/rotations (the fleet runbook); DRILL_RUNBOOK=per-stream rotates each stream"
fi
start product-service "$PP" SPRING_DATASOURCE_URL="$PG_URL/${PREFIX}_product" RESOLVER_URL="$R" RESOLVER_TOKEN=c \
  PRODUCT_CONSUMER_ID=product-drill PRODUCT_DELIVERY_URL="$P/v1/inbox/events" PRODUCT_STREAMS="$SUBSCRIBED" \
  SPRING_APPLICATION_JSON='{"product":{"recovery":{"interval":"PT2S"},"epochs":{"poll-interval":"PT1S"}}}'

if [ "$N" = 1 ]; then
  log "writing $ITEMS items"
  write_items 0 1 item; release kept item-0
  ok POST "$R/v1/retention/consumers" c "{\"consumerId\":\"product-drill\",\"tenant\":\"$T\",\"catalog\":\"$C\",\"epoch\":1,\"deliveryUrl\":\"$P/v1/inbox/events\"}" >/dev/null
  write_items 1 "$ITEMS" item
  converged || die "the product did not converge before the dump"
else
  log "writing $N streams of $PER items and a PUBLIC release each ($PAR clients)"
  printf '%s\n' "${CATALOGS[@]}" | each seed_one || die "seeding failed"
  printf '%s\n' "${CATALOGS[@]}" | await_served item-0 "before the dump" 3600
fi
DUMPED=$(cursors)

log "pg_dump of ${PREFIX}_resolver at position $DUMPED"
pg_dump --format=custom --file="$DUMP" --dbname="${PREFIX}_resolver"

if [ "$N" = 1 ]; then
  log "writing $LOST items after the dump (the restore loses them)"
  write_items 0 "$LOST" lost; release lost lost-0
  converged || die "the product did not converge after the dump"
  HEAD=$(cursors)
  for _ in $(seq 1 100); do
    [ "$(ok GET "$R/v1/epochs/$T/$C" op | jq -r .highWaterMark)" = "$HEAD" ] && break; sleep 0.2
  done
else
  log "writing the lost tail (one item and a release) on ${#AFFECTED[@]} streams (the restore loses them)"
  printf '%s\n' "${AFFECTED[@]}" | each lose_one || die "the lost tail failed"
  printf '%s\n' "${AFFECTED[@]}" | await_served lost-0 "after the dump" 3600
  HEAD=$(cursors)
  # the control store records high-water marks asynchronously: wait until it has every affected stream's head
  for _ in $(seq 1 300); do
    [ "$(psql --no-psqlrc -At -d "${PREFIX}_control" -c "SELECT count(*) FROM control.stream_high_water_mark
      WHERE tenant = '$T' AND epoch = 1 AND position >= $((PER + 3))")" -ge ${#AFFECTED[@]} ] && break; sleep 0.2
  done
fi
LOST_SERVED_BEFORE=$(curl -s -o /dev/null -w '%{http_code}' "$P/v1/catalog/$T/${AFFECTED[0]}/items/lost-0")

log "stopping the resolver, restoring the dump (pg_restore into a fresh ${PREFIX}_resolver), starting it"
STOPPED_AT=$(psql --no-psqlrc -At -d "${PREFIX}_product" -c "SELECT clock_timestamp()")
stop resolver-service
T0=$(now)
sql "DROP DATABASE ${PREFIX}_resolver WITH (FORCE)"; sql "CREATE DATABASE ${PREFIX}_resolver"
pg_restore --exit-on-error --no-owner --dbname="${PREFIX}_resolver" "$DUMP"
T1=$(now)
start_resolver
T2=$(now)
RESTORED=$(cursors)

REFUSED=$(api PUT "$R/v1/streams/$T/${AFFECTED[0]}/items/after-restore" w '{"attributes":{"name":"x"}}' | jq -r .code)
[ "$(cat "$RUN/status")" = 503 ] || die "the restored resolver accepted a write (status $(cat "$RUN/status"))"
log "the restored resolver refuses writes: $REFUSED (cursor $RESTORED, high-water mark $HEAD)"

REASON='"reason":"restore drill: resolver database restored from pg_dump"'
if [ "$N" = 1 ]; then
  log "maintenance on both services, rotate, maintenance off"
  call POST "$P/v1/admin/maintenance" op '{"enabled":true}'
  call POST "$R/v1/admin/maintenance" op '{"enabled":true}'
  R0=$(now)
  call POST "$R/v1/epochs/$T/$C/rotate" op "{$REASON}"; EPOCH=$(jq -r .epoch <<<"$ANSWER")
  R1=$(now)
  call POST "$R/v1/admin/maintenance" op '{"enabled":false}'
  for _ in $(seq 1 100); do
    completeness | jq -e --argjson e "$EPOCH" '(.reason // "" | startswith("EPOCH_CHANGED")) or .epoch == $e' >/dev/null && break
    sleep 0.2
  done
  call POST "$P/v1/admin/maintenance" op '{"enabled":false}'
else
  log "the $RUNBOOK runbook: maintenance on (product, resolver), rotate, maintenance off (resolver, product)"
  call POST "$P/v1/admin/maintenance" op '{"enabled":true}'
  call POST "$R/v1/admin/maintenance" op '{"enabled":true}'
  R0=$(now)
  if [ "$RUNBOOK" = fleet ]; then
    call POST "$R/v1/epochs/rotations" op "{$REASON,\"scope\":{\"all\":true}}" "Idempotency-Key: drill-$(date +%s%N)"
    ID=$(jq -r .rotationId <<<"$ANSWER")
    while :; do
      JOB=$(ok GET "$R/v1/epochs/rotations/$ID" op)
      case $(jq -r .status <<<"$JOB") in
        DONE) break ;;
        FAILED) die "rotation $ID failed: $JOB" ;;
      esac
      log "rotation $ID: $(jq -c '{status,streams,rotated,failed,etaSeconds}' <<<"$JOB")"; sleep 0.5
    done
  else
    AFTER=""
    while :; do
      call GET "$R/v1/streams?limit=5000${AFTER:+&after=$AFTER}" op; PAGE=$ANSWER
      for s in $(jq -r '.streams[] | "\(.tenant)/\(.catalog)"' <<<"$PAGE"); do
        call POST "$R/v1/epochs/$s/rotate" op "{$REASON}"
      done
      AFTER=$(jq -r '.next // empty' <<<"$PAGE"); [ -n "$AFTER" ] || break
    done
  fi
  R1=$(now)
  EPOCH=$(ok GET "$R/v1/epochs/$T/${CATALOGS[0]}" op | jq -r .epoch)
  call POST "$R/v1/admin/maintenance" op '{"enabled":false}'
  call POST "$P/v1/admin/maintenance" op '{"enabled":false}'
fi
T3=$(now)
export T3

# from the product's maintenance-off to the end: every 0.5 s the lost item of (a sample of) the affected streams,
# and, for a fleet, until each serves it, the kept item of a sample of the unaffected ones
mapfile -t LOST_SAMPLED < <(spread "$LOST_SAMPLE" "${AFFECTED[@]}")
( while [ ! -f "$RUN/samples/stop" ]; do
    printf '%s\n' "${LOST_SAMPLED[@]}" | each served lost-0 | wc -l >>"$RUN/samples/lost"; sleep 0.5
  done ) &
SAMPLERS+=($!)
if [ ${#UNAFFECTED[@]} -gt 0 ]; then
  mapfile -t KEPT_SAMPLED < <(spread "$KEPT_SAMPLE" "${UNAFFECTED[@]}")
  ( printf '%s\n' "${KEPT_SAMPLED[@]}" | PAR=${#KEPT_SAMPLED[@]} each kept_one ) &
  SAMPLERS+=($!)
else
  KEPT_SAMPLED=()
fi

log "waiting until every stream is CURRENT at epoch $EPOCH"
if [ "$N" = 1 ]; then
  for _ in $(seq 1 3600); do
    completeness | jq -e --argjson e "$EPOCH" '.epoch == $e and .state == "CURRENT"' >/dev/null && break
    sleep 0.5
  done
  completeness | jq -e --argjson e "$EPOCH" '.epoch == $e and .state == "CURRENT"' >/dev/null \
    || die "the product did not reach epoch $EPOCH: $(completeness)"
elif VIEW=$(fleet_view); then
  for _ in $(seq 1 7200); do
    VIEW=$(fleet_view) && fleet_current "$EPOCH" <<<"$VIEW" && break
    log "fleet view: $(jq -c .byState <<<"$VIEW" 2>/dev/null)"; sleep 0.5
  done
  fleet_current "$EPOCH" <<<"$VIEW" || die "the product did not reach epoch $EPOCH: $VIEW"
else
  log "the product has no fleet completeness view: reading each stream's"
  LEFT=("${CATALOGS[@]}")
  for _ in $(seq 1 7200); do
    mapfile -t LEFT < <(printf '%s\n' "${LEFT[@]}" | each not_current "$EPOCH")
    [ ${#LEFT[@]} = 0 ] && break
    log "${#LEFT[@]} streams not CURRENT at epoch $EPOCH"; sleep 0.5
  done
  [ ${#LEFT[@]} = 0 ] || die "${#LEFT[@]} streams did not reach epoch $EPOCH, e.g. ${LEFT[*]:0:5}"
fi
T4=$(now)

EQUAL=true
if [ "$N" = 1 ]; then
  converged 60 || EQUAL=false
else
  mapfile -t CHECKED < <(printf '%s\n' "${AFFECTED[@]}"; spread "$CHECK_SAMPLE" "${UNAFFECTED[@]}")
  log "comparing checksums of ${#CHECKED[@]} streams (every affected one and $CHECK_SAMPLE others)"
  for c in "${CHECKED[@]}"; do converged 60 "$c" || EQUAL=false; done
fi
# the lost items once more at the end: every affected stream's
LOST_AT_END=$(printf '%s\n' "${AFFECTED[@]}" | each served lost-0 | wc -l)
KEPT_AT_END=$(printf '%s\n' "${CATALOGS[@]}" | each served item-0 | wc -l)
stop_samplers
LOST_SERVED=$(( LOST_AT_END + $(awk '{ s += $1 } END { print s + 0 }' "$RUN/samples/lost" 2>/dev/null || echo 0) ))
KEPT=$({ cat "$RUN"/samples/kept.* 2>/dev/null || true; } | sort -n | awk -v n=${#KEPT_SAMPLED[@]} '{ v[NR] = $1 }
  END { if (n == 0) { print "null"; exit }
        p50 = NR ? v[int((NR * 50 + 99) / 100)] : "null"; p99 = NR ? v[int((NR * 99 + 99) / 100)] : "null"
        printf "{\"streamsSampled\":%d,\"served\":%d,\"p50Seconds\":%s,\"p99Seconds\":%s}\n", n, NR, p50, p99 }')
LOST_SERVED_AFTER=$(curl -s -o /dev/null -w '%{http_code}' "$P/v1/catalog/$T/${AFFECTED[0]}/items/lost-0")
KEPT_SERVED=$(curl -s -o /dev/null -w '%{http_code}' "$P/v1/catalog/$T/${CATALOGS[0]}/items/item-0")
REBUILDS=$(psql --no-psqlrc -At -d "${PREFIX}_product" -c "SELECT count(*) FROM product.rebuild WHERE created_at >= '$STOPPED_AT'")
REBUILD_ID=$(psql --no-psqlrc -At -d "${PREFIX}_product" -c "SELECT rebuild_id FROM product.rebuild ORDER BY created_at DESC LIMIT 1")
REBUILD=$( [ -n "$REBUILD_ID" ] && api GET "$P/v1/rebuilds/$REBUILD_ID" op | jq -c '.phaseMillis // null' 2>/dev/null || echo null)
[ "$N" = 1 ] && ITEMS_TOTAL=$ITEMS LOST_TOTAL=$LOST RUNBOOK_DONE=single || ITEMS_TOTAL=$((N * PER)) LOST_TOTAL=${#AFFECTED[@]} RUNBOOK_DONE=$RUNBOOK

jq -n --argjson items "$ITEMS_TOTAL" --argjson lost "$LOST_TOTAL" --argjson dumped "$DUMPED" --argjson head "$HEAD" \
  --argjson restored "$RESTORED" --arg refused "$REFUSED" --argjson epoch "$EPOCH" \
  --argjson dumpBytes "$(stat -c %s "$DUMP")" --argjson pgRestore "$(secs "$T0" "$T1")" \
  --argjson resolverStart "$(secs "$T1" "$T2")" --argjson operator "$(secs "$T2" "$T3")" \
  --argjson rto "$(secs "$T2" "$T4")" --argjson rebuild "$(secs "$T3" "$T4")" --argjson equal "$EQUAL" \
  --arg lostBefore "$LOST_SERVED_BEFORE" --arg lostAfter "$LOST_SERVED_AFTER" --arg kept "$KEPT_SERVED" \
  --argjson phases "${REBUILD:-null}" --argjson streams "$N" --argjson lostStreams "${#AFFECTED[@]}" \
  --arg runbook "$RUNBOOK_DONE" --argjson calls "$CALLS" --argjson rotation "$(secs "$R0" "$R1")" \
  --argjson rebuilds "$REBUILDS" --argjson lostServed "$LOST_SERVED" --argjson keptSample "$KEPT" \
  --argjson keptAtEnd "$KEPT_AT_END" \
  '{drill: "restore", streams: $streams, items: $items, lostItems: $lost, lostStreams: $lostStreams,
    dumpedAt: $dumped, headBeforeRestore: $head,
    restoredCursor: $restored, dumpBytes: $dumpBytes, refusedWith: $refused, newEpoch: $epoch,
    runbook: $runbook, operatorCalls: $calls, rotationSeconds: $rotation,
    seconds: {pgRestore: $pgRestore, resolverStart: $resolverStart, operatorSteps: $operator,
              productRebuild: $rebuild},
    rtoSeconds: $rto, rebuildsRun: $rebuilds, rebuildPhaseMillis: $phases, checksumsEqual: $equal,
    lostItemStatus: {beforeRestore: ($lostBefore | tonumber), afterRecovery: ($lostAfter | tonumber)},
    lostItemsServedAfterMaintenanceOff: $lostServed,
    keptItemStatus: ($kept | tonumber), keptItemsServedAtEnd: $keptAtEnd, unaffectedKeptServed: $keptSample,
    ok: ($equal and $lostAfter == "404" and $kept == "200" and $refused == "HISTORY_ROLLED_BACK"
         and $lostServed == 0 and $keptAtEnd == $streams)}'
