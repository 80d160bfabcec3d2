#!/usr/bin/env bash
# Moves one stream (tenant, catalog) from one resolver database to another (docs/runbooks/move-stream.md):
#
#   1 fence    POST FROM/v1/streams/T/C/move        the source refuses writes (409 STREAM_MOVING) from here on
#   2 export   lease + POST FROM/v1/exports          one snapshot of the fenced stream, checksummed objects
#   3 convert  resolver-service.jar --convert-snapshot   the export's objects (verified) -> events.json
#   4 import   POST TO/v1/streams/T/C/bootstrap-import?epochAbove=E   into the empty target, in an epoch above the
#                                                    source's E (a product that served the stream learns a newer one)
#   5 verify   the target's accepted-state-v1 equals the export's (and public-view-v1 the source's)
#   6 retire   POST FROM/v1/streams/T/C/move/complete   the source is retired for good: writes 410 STREAM_MOVED
#                                                    naming TO; its relay delivers nothing more of the stream
#   7 product  with --product: waits until the product serves the stream from the target (CURRENT in the target's
#              epoch, both checksum profiles equal to the target's). The product must follow the target: point its
#              RESOLVER_URL there (it subscribes at start) - the script does not reconfigure it.
#
# Prints progress on stderr and one JSON line on stdout with every phase's seconds, the time writes were refused
# (fence to retire), the events moved and both epochs. A failure before step 6 leaves the source MOVING (writes
# refused) and says how to cancel (DELETE FROM/v1/streams/T/C/move) or rerun; nothing is retired.
#
#   bin/move-stream.sh --tenant acme --catalog shoes --from http://resolver-a:8081 --to http://resolver-b:8081 \
#       --object-store file:/data/objects [--token OP] [--to-token OP] [--product http://product:8082 \
#       --product-token OP] [--work DIR] [--jar PATH] [--reason TEXT] [--timeout SECONDS] [--reset-target]
#
# --reset-target: the target holds a partial import of an earlier run that failed: the import resets it to a new,
# empty epoch under its import fence first (never use it for a target stream that holds anything else).
#
# --object-store is the SOURCE resolver's OBJECT_STORE_URI (the converter reads the export's objects from it; an S3
# store takes OBJECT_STORE_S3_ENDPOINT, AWS_REGION and the AWS credentials from the environment). Tokens default to
# $MOVE_TOKEN (operator at both resolvers); --to-token to the same. Needs curl, jq and java 17.
set -euo pipefail
cd "$(dirname "$0")/.."

T="" C="" FROM="" TO="" STORE="" TOKEN=${MOVE_TOKEN:-} TO_TOKEN="" PRODUCT="" PRODUCT_TOKEN=""
WORK="" JAR=resolver-service/target/resolver-service.jar REASON="" TIMEOUT=1800 RESET_TARGET=0
while [ $# -gt 0 ]; do
  case "$1" in
    --tenant) T=$2 ;; --catalog) C=$2 ;; --from) FROM=${2%/} ;; --to) TO=${2%/} ;; --object-store) STORE=$2 ;;
    --token) TOKEN=$2 ;; --to-token) TO_TOKEN=$2 ;; --product) PRODUCT=${2%/} ;; --product-token) PRODUCT_TOKEN=$2 ;;
    --work) WORK=$2 ;; --jar) JAR=$2 ;; --reason) REASON=$2 ;; --timeout) TIMEOUT=$2 ;;
    --reset-target) RESET_TARGET=1; shift; continue ;;
    -h|--help) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "move-stream: unknown argument $1 (--help)" >&2; exit 2 ;;
  esac
  shift 2
done
TO_TOKEN=${TO_TOKEN:-$TOKEN}
REASON=${REASON:-"move $T/$C from $FROM to $TO"}

log() { echo "[move $(date +%T)] $*" >&2; }
FENCED=0
die() { log "FAILED: $*"; exit 1; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

[ -n "$T" ] && [ -n "$C" ] && [ -n "$FROM" ] && [ -n "$TO" ] && [ -n "$STORE" ] && [ -n "$TOKEN" ] \
  || { echo "move-stream: --tenant, --catalog, --from, --to, --object-store and --token (or MOVE_TOKEN) are required" >&2; exit 2; }
[ "$FROM" != "$TO" ] || { echo "move-stream: --from and --to are the same resolver" >&2; exit 2; }
for tool in curl jq java; do command -v $tool >/dev/null || die "$tool is not installed"; done
[ -f "$JAR" ] || die "no resolver jar at $JAR (mvn -B -DskipTests package, or --jar)"
WORK=${WORK:-$(mktemp -d -t move-stream-XXXXXX)}
mkdir -p "$WORK"

# api METHOD URL TOKEN [BODY|@FILE] -> body on stdout, status in $WORK/status
api() { local data=()
  if [ -n "${4:-}" ]; then data=(--data-binary "$4"); fi
  curl -s -o "$WORK/body" -w '%{http_code}' -X "$1" -H "Authorization: Bearer $3" \
    -H 'Content-Type: application/json' "${data[@]}" "$2" >"$WORK/status" || echo 000 >"$WORK/status"
  cat "$WORK/body"; }
ok() { local out; out=$(api "$@"); [ "$(cat "$WORK/status")" -lt 300 ] || die "$1 $2 answered $(cat "$WORK/status"): $out"
  echo "$out"; }
fenced_hint() { log "the source still refuses writes of $T/$C (MOVING): fix the cause and rerun this script, or" \
  "cancel the move: curl -X DELETE -H 'Authorization: Bearer …' $FROM/v1/streams/$T/$C/move"; }

SRC="$FROM/v1/streams/$T/$C" DST="$TO/v1/streams/$T/$C"
T_START=$(now)

log "1/6 fence: $T/$C at $FROM refuses writes from now on (moving to $TO)"
FENCE=$(ok POST "$SRC/move" "$TOKEN" "$(jq -nc --arg t "$TO" --arg r "$REASON" '{target:$t,reason:$r}')")
SRC_EPOCH=$(jq -r .epoch <<<"$FENCE")
FENCED=1
trap '[ $? -ne 0 ] && [ $FENCED = 1 ] && fenced_hint' EXIT
T_FENCED=$(now)

log "2/6 export of $T/$C epoch $SRC_EPOCH (cursor $(jq -r .cursor <<<"$FENCE"))"
LEASE=$(ok POST "$FROM/v1/retention/leases" "$TOKEN" "$(jq -nc --arg t "$T" --arg c "$C" --argjson e "$SRC_EPOCH" \
  '{tenant:$t,catalog:$c,epoch:$e,ttlSeconds:3600,owner:"move-stream"}')" | jq -r .leaseId)
EXPORT_ID=$(ok POST "$FROM/v1/exports" "$TOKEN" "$(jq -nc --arg t "$T" --arg c "$C" --arg l "$LEASE" \
  '{tenant:$t,catalog:$c,leaseId:$l}')" | jq -r .exportId)
deadline=$(( $(date +%s) + TIMEOUT ))
while :; do
  EXPORT=$(ok GET "$FROM/v1/exports/$EXPORT_ID" "$TOKEN")
  case "$(jq -r .status <<<"$EXPORT")" in
    READY) break ;;
    RUNNING) [ "$(date +%s)" -lt "$deadline" ] || die "export $EXPORT_ID still RUNNING after ${TIMEOUT}s"; sleep 0.2 ;;
    *) die "export $EXPORT_ID ended $(jq -c '{status,error}' <<<"$EXPORT")" ;;
  esac
done
MANIFEST_KEY=$(jq -r .manifestKey <<<"$EXPORT")
T_EXPORTED=$(now)

log "3/6 convert $MANIFEST_KEY -> $WORK/events.json"
java -XX:TieredStopAtLevel=1 -jar "$JAR" --convert-snapshot "$MANIFEST_KEY" --object-store "$STORE" \
  --output "$WORK/events.json" >"$WORK/convert.json" || die "conversion failed: $(cat "$WORK/convert.json")"
EVENTS=$(jq -r .events "$WORK/convert.json")
T_CONVERTED=$(now)

log "4/6 import of $EVENTS events into $T/$C at $TO, in an epoch above $SRC_EPOCH"
if [ "$EVENTS" -gt 0 ]; then
  query="epochAbove=$SRC_EPOCH"
  [ $RESET_TARGET = 1 ] && query+="&reset=$(jq -rn --arg r "retry of: $REASON" '$r|@uri')"
  IMPORT=$(ok POST "$DST/bootstrap-import?$query" "$TO_TOKEN" "@$WORK/events.json")
  DST_EPOCH=$(jq -r .epoch <<<"$IMPORT")
else
  log "the stream holds no accepted state: nothing to import"
  DST_EPOCH=null
fi
T_IMPORTED=$(now)

log "5/6 verify: the target's accepted-state-v1 equals the export's"
if [ "$EVENTS" -gt 0 ]; then
  want=$(jq -cS .expectedStateChecksum "$WORK/convert.json")
  got=$(ok GET "$DST/state-checksum?profile=accepted-state-v1" "$TO_TOKEN" | jq -cS .tables)
  [ "$want" = "$got" ] || die "accepted-state-v1 differs: export $want, target $got"
  want=$(ok GET "$SRC/state-checksum?profile=public-view-v1" "$TOKEN" | jq -cS .tables)
  got=$(ok GET "$DST/state-checksum?profile=public-view-v1" "$TO_TOKEN" | jq -cS .tables)
  [ "$want" = "$got" ] || die "public-view-v1 differs: source $want, target $got"
fi
T_VERIFIED=$(now)

log "6/6 retire $T/$C at $FROM: writes there now answer 410 STREAM_MOVED naming $TO"
ok POST "$SRC/move/complete" "$TOKEN" "$(jq -nc --arg t "$TO" '{target:$t}')" >/dev/null
FENCED=0
T_RETIRED=$(now)

PRODUCT_S=null
if [ -n "$PRODUCT" ]; then
  log "product: waiting until $PRODUCT serves $T/$C from $TO (point its RESOLVER_URL at $TO)"
  deadline=$(( $(date +%s) + TIMEOUT ))
  while :; do
    c=$(api GET "$PRODUCT/v1/projection-completeness?tenant=$T&catalog=$C" "$PRODUCT_TOKEN")
    head=$(ok GET "$DST/cursor" "$TO_TOKEN" | jq -r '"\(.epoch) \(.position)"')
    if [ "$(cat "$WORK/status")" = 200 ] && [ "$(jq -r '"\(.state) \(.epoch) \(.verifiedThrough)"' <<<"$c")" = "CURRENT $head" ]; then
      same=1
      for profile in accepted-state-v1 public-view-v1; do
        a=$(ok GET "$DST/state-checksum?profile=$profile" "$TO_TOKEN" | jq -cS '{epoch,position,tables}')
        b=$(api GET "$PRODUCT/v1/streams/$T/$C/projection-checksum?profile=$profile" "$PRODUCT_TOKEN" | jq -cS '{epoch,position,tables}' 2>/dev/null || true)
        [ "$a" = "$b" ] || same=0
      done
      [ $same = 1 ] && break
    fi
    [ "$(date +%s)" -lt "$deadline" ] || die "the product did not serve $T/$C from $TO within ${TIMEOUT}s (last: $c)"
    sleep 1
  done
  PRODUCT_S=$(secs "$T_RETIRED" "$(now)")
fi

jq -nc --arg t "$T" --arg c "$C" --arg from "$FROM" --arg to "$TO" --arg export "$EXPORT_ID" \
  --argjson events "$EVENTS" --argjson src "$SRC_EPOCH" --argjson dst "$DST_EPOCH" \
  --argjson fence "$(secs "$T_START" "$T_FENCED")" --argjson exp "$(secs "$T_FENCED" "$T_EXPORTED")" \
  --argjson conv "$(secs "$T_EXPORTED" "$T_CONVERTED")" --argjson imp "$(secs "$T_CONVERTED" "$T_IMPORTED")" \
  --argjson ver "$(secs "$T_IMPORTED" "$T_VERIFIED")" --argjson ret "$(secs "$T_VERIFIED" "$T_RETIRED")" \
  --argjson refused "$(secs "$T_FENCED" "$T_RETIRED")" --argjson total "$(secs "$T_START" "$T_RETIRED")" \
  --argjson product "$PRODUCT_S" \
  '{status:"MOVED",tenant:$t,catalog:$c,from:$from,to:$to,exportId:$export,events:$events,sourceEpoch:$src,
    targetEpoch:$dst,phases:{fence:$fence,export:$exp,convert:$conv,import:$imp,verify:$ver,retire:$ret},
    exportPlusImportSeconds:(($exp + $imp) * 100 | round / 100),writesRefusedSeconds:$refused,totalSeconds:$total,productReadySeconds:$product}'
log "moved $T/$C ($EVENTS events) to $TO in $(secs "$T_START" "$T_RETIRED") s"
