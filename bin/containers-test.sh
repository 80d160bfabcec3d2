#!/usr/bin/env bash
# The container test (docs/deployment.md): builds the base, both service images, the S3 server (s3proxy),
# PostgreSQL and Prometheus images; runs them with host networking on loopback ports only (never a bridge
# network); runs the README's demo flow and a rebuild through S3 against them; requires the product's checksum to
# equal the resolver's, every Prometheus rule to evaluate without error and every dashboard query of
# docs/grafana/ to evaluate and return data; removes every container it started (images stay, as build cache).
# Exit 0 pass, 1 fail. CT_KEEP=1 keeps the containers for a look. Ports: CT_PG_PORT ... below.
set -euo pipefail
cd "$(dirname "$0")/.."

PODMAN=${PODMAN:-podman --runtime runc --cgroup-manager=cgroupfs}
TAG=${CT_TAG:-local}
BASE_IMAGE=${BASE_IMAGE:-localhost/catalog-jre:17}
DEBIAN_IMAGE=${DEBIAN_IMAGE:-localhost/debian-base:bookworm}
PG_PORT=${CT_PG_PORT:-55433}
S3_PORT=${CT_S3_PORT:-18090}
RESOLVER_PORT=${CT_RESOLVER_PORT:-18081}
PRODUCT_PORT=${CT_PRODUCT_PORT:-18082}
PROM_PORT=${CT_PROM_PORT:-19090}
# a service that is not healthy by then fails the test (its start takes 30-60 s on a quiet 2-core machine)
HEALTH_TIMEOUT=${CT_HEALTH_TIMEOUT:-240}
PREFIX=catalog-ct
CONTAINERS=("$PREFIX-product" "$PREFIX-resolver" "$PREFIX-prometheus" "$PREFIX-s3" "$PREFIX-postgres")
WORK=$(mktemp -d /tmp/catalog-ct.XXXXXX)
started=$(date +%s)
log() { printf '[containers-test %3ss] %s\n' "$(( $(date +%s) - started ))" "$*"; }
fail() { log "FAIL: $*"; exit 1; }

cleanup() {
  local rc=$?
  if [ "$rc" != 0 ]; then
    for c in "${CONTAINERS[@]}"; do
      $PODMAN container exists "$c" 2>/dev/null || continue
      echo "---- last log lines of $c"; $PODMAN logs --tail 25 "$c" 2>&1 | cut -c1-300 || true
    done
  fi
  if [ "${CT_KEEP:-0}" != 1 ]; then
    for c in "${CONTAINERS[@]}"; do $PODMAN rm -f -t 5 "$c" >/dev/null 2>&1 || true; done
    rm -rf "$WORK"
  fi
  log "$([ "$rc" = 0 ] && echo PASS || echo "FAILED (exit $rc)")"
}
trap cleanup EXIT
for c in "${CONTAINERS[@]}"; do $PODMAN rm -f -t 2 "$c" >/dev/null 2>&1 || true; done

# ---------------------------------------------------------------- images
if [ "${CT_SKIP_BUILD:-0}" != 1 ]; then
  [ -f resolver-service/target/resolver-service.jar ] && [ -f product-service/target/product-service.jar ] \
    || { log "building the jars"; mvn -B -q -DskipTests package; }
  [ -d deploy/s3proxy/target/lib ] \
    || { log "staging s3proxy"; mvn -B -q -f deploy/s3proxy/pom.xml dependency:copy-dependencies; }
  bin/base-image.sh
  build() { # image context [build-arg]
    log "building $1"
    $PODMAN build -q --format docker --network host --build-arg BASE_IMAGE="$3" -t "$1" "$2" >/dev/null
  }
  build "localhost/catalog/resolver-service:$TAG" resolver-service "$BASE_IMAGE"
  build "localhost/catalog/product-service:$TAG" product-service "$BASE_IMAGE"
  build "localhost/catalog/s3proxy:$TAG" deploy/s3proxy "$BASE_IMAGE"
  build "localhost/catalog/postgres:$TAG" deploy/postgres "$DEBIAN_IMAGE"
  build "localhost/catalog/prometheus:$TAG" deploy/prometheus "$DEBIAN_IMAGE"
fi

# ---------------------------------------------------------------- containers (host network, loopback ports)
run() { # podman without systemd cannot schedule HEALTHCHECKs itself (it says so on stderr): healthy() runs them
  local name=$1; shift
  $PODMAN run -d --name "$name" --network host "$@" >/dev/null 2>"$WORK/run.err" \
    || { cat "$WORK/run.err"; fail "podman run $name"; }
}
healthy() { # container seconds: podman's HEALTHCHECK run (the image's own check) until it passes
  local c=$1 limit=$2 t0; t0=$(date +%s)
  while :; do
    [ "$($PODMAN inspect -f '{{.State.Running}}' "$c" 2>/dev/null)" = true ] || fail "$c is not running"
    $PODMAN healthcheck run "$c" >/dev/null 2>&1 && { log "$c healthy"; return 0; }
    [ $(( $(date +%s) - t0 )) -lt "$limit" ] || fail "$c not healthy after ${limit}s (its HEALTHCHECK)"
    sleep 2
  done
}

S3_ACCESS_KEY=ct-access; S3_SECRET_KEY=ct-secret-key
TOKENS='op=operator;w=writer;r=relay;c=consumer'
PG="jdbc:postgresql://127.0.0.1:$PG_PORT"

run "$PREFIX-postgres" -e PGPORT="$PG_PORT" "localhost/catalog/postgres:$TAG"
run "$PREFIX-s3" -e S3PROXY_BIND=127.0.0.1 -e S3PROXY_PORT="$S3_PORT" -e S3_ACCESS_KEY=$S3_ACCESS_KEY -e S3_SECRET_KEY=$S3_SECRET_KEY \
  -e S3_BUCKETS=exports "localhost/catalog/s3proxy:$TAG"
healthy "$PREFIX-postgres" 60
healthy "$PREFIX-s3" 60

common=(-e OBJECT_STORE_URI=s3://exports/catalog -e OBJECT_STORE_S3_ENDPOINT="http://127.0.0.1:$S3_PORT"
  -e AWS_REGION=us-east-1 -e AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY -e AWS_SECRET_ACCESS_KEY=$S3_SECRET_KEY
  -e SPRING_DATASOURCE_USERNAME=postgres -e SPRING_DATASOURCE_PASSWORD=postgres -e SECURITY_TOKENS="$TOKENS"
  -e SERVER_ADDRESS=127.0.0.1)
run "$PREFIX-resolver" "${common[@]}" -e SERVER_PORT="$RESOLVER_PORT" \
  -e SPRING_DATASOURCE_URL="$PG/resolver" \
  -e CONTROL_DATASOURCE_URL="$PG/control" -e CONTROL_DATASOURCE_USERNAME=postgres -e CONTROL_DATASOURCE_PASSWORD=postgres \
  -e RELAY_TOKEN=r -e RELAY_ALLOWED_DELIVERY_URLS="http://127.0.0.1:$PRODUCT_PORT/" \
  "localhost/catalog/resolver-service:$TAG"
# Prometheus: the compose configuration with its targets moved to the loopback ports, and a fast cadence
sed -e "s/resolver:8081/127.0.0.1:$RESOLVER_PORT/" -e "s/product:8082/127.0.0.1:$PRODUCT_PORT/" \
    -e 's/scrape_interval: .*/scrape_interval: 2s/' -e 's/evaluation_interval: .*/evaluation_interval: 2s/' \
    deploy/prometheus/prometheus.yml >"$WORK/prometheus.yml"
cp deploy/prometheus/catalog-rules.yml "$WORK/"
chmod -R a+rX "$WORK"
run "$PREFIX-prometheus" -v "$WORK/prometheus.yml:/etc/prometheus/prometheus.yml:ro" \
  -v "$WORK/catalog-rules.yml:/etc/prometheus/catalog-rules.yml:ro" "localhost/catalog/prometheus:$TAG" \
  --config.file=/etc/prometheus/prometheus.yml --web.listen-address="127.0.0.1:$PROM_PORT"

healthy "$PREFIX-resolver" "$HEALTH_TIMEOUT"
# like compose's depends_on: the product starts once the resolver is healthy (it bootstraps PRODUCT_STREAMS)
run "$PREFIX-product" "${common[@]}" -e SERVER_PORT="$PRODUCT_PORT" \
  -e SPRING_DATASOURCE_URL="$PG/product" \
  -e RESOLVER_URL="http://127.0.0.1:$RESOLVER_PORT" -e RESOLVER_TOKEN=c \
  -e PRODUCT_CONSUMER_ID=product-ct -e PRODUCT_DELIVERY_URL="http://127.0.0.1:$PRODUCT_PORT/v1/inbox/events" \
  -e PRODUCT_STREAMS=demo/shoes -e PRODUCT_INSTANCE_ID=product-ct-1 \
  "localhost/catalog/product-service:$TAG"
healthy "$PREFIX-product" "$HEALTH_TIMEOUT"

# ---------------------------------------------------------------- the README's demo flow
R="http://127.0.0.1:$RESOLVER_PORT"; P="http://127.0.0.1:$PRODUCT_PORT"; PROM="http://127.0.0.1:$PROM_PORT"
log "demo flow"
RESOLVER=$R PRODUCT=$P PRODUCT_CONSUMER_ID=product-ct PRODUCT_DELIVERY_URL="$P/v1/inbox/events" \
  bin/demo-flow.sh >"$WORK/demo.out" 2>&1 || { cat "$WORK/demo.out"; fail "demo flow"; }
grep -q '"Trail runner"' "$WORK/demo.out" || { cat "$WORK/demo.out"; fail "the product does not serve trail-1"; }

# a rebuild through an export in S3 (fills the rebuild dashboard's series)
log "rebuild of demo/shoes (export through s3proxy)"
rid=$(curl -sf -X POST -H 'Authorization: Bearer op' -H 'Content-Type: application/json' \
  -d '{"tenant":"demo","catalog":"shoes"}' "$P/v1/rebuilds" | python3 -c 'import json,sys; print(json.load(sys.stdin)["rebuildId"])') \
  || fail "rebuild request"
for _ in $(seq 1 60); do
  phase=$(curl -sf -H 'Authorization: Bearer op' "$P/v1/rebuilds/$rid" | python3 -c 'import json,sys; print(json.load(sys.stdin)["phase"])')
  case $phase in DONE) break;; FAILED|ABORTED) curl -s -H 'Authorization: Bearer op' "$P/v1/rebuilds/$rid"; fail "rebuild $phase";; esac
  sleep 1
done
[ "$phase" = DONE ] || fail "rebuild still $phase"
log "rebuild DONE"

# ---------------------------------------------------------------- checksums
checksums_equal() { # profile
  curl -sf -H 'Authorization: Bearer op' "$R/v1/streams/demo/shoes/state-checksum?profile=$1" >"$WORK/resolver.sum" &&
  curl -sf -H 'Authorization: Bearer op' "$P/v1/streams/demo/shoes/projection-checksum?profile=$1" >"$WORK/product.sum" &&
  python3 - "$WORK/resolver.sum" "$WORK/product.sum" "$1" <<'PY'
import json, sys
r, p = (json.load(open(f)) for f in sys.argv[1:3])
keys = ("epoch", "position", "profile", "tables")
ok = all(r.get(k) == p.get(k) for k in keys) and bool(r["tables"]) and r["profile"] == sys.argv[3]
print("resolver", json.dumps({k: r.get(k) for k in keys}))
print("product ", json.dumps({k: p.get(k) for k in keys}))
sys.exit(0 if ok else 1)
PY
}
for profile in accepted-state-v1 public-view-v1; do
  for i in $(seq 1 20); do checksums_equal "$profile" >"$WORK/sums.out" 2>&1 && break; sleep 1; done
  cat "$WORK/sums.out"
  checksums_equal "$profile" >/dev/null 2>&1 || fail "the product's $profile checksum differs from the resolver's"
done
log "checksums equal (accepted-state-v1, public-view-v1)"


# ---------------------------------------------------------------- Prometheus: targets, rules, dashboards
log "waiting for Prometheus to scrape both targets and evaluate the rules"
python3 - "$PROM" docs/grafana deploy/prometheus/catalog-rules.yml <<'PY' || fail "Prometheus checks"
import glob, json, sys, time, urllib.parse, urllib.request
prom, dashboards, rules_file = sys.argv[1:4]
def get(path, **q):
    url = prom + path + ("?" + urllib.parse.urlencode(q) if q else "")
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.load(r)
deadline = time.time() + 90
while True:
    try:
        targets = get("/api/v1/targets")["data"]["activeTargets"]
        groups = get("/api/v1/rules")["data"]["groups"]
        up = {t["labels"]["job"]: t["health"] for t in targets}
        rules = [r for g in groups for r in g["rules"]]
        evaluated = rules and all(r.get("lastEvaluation", "").startswith("0001") is False for r in rules)
        if up == {"resolver": "up", "product": "up"} and evaluated:
            break
    except Exception as e:
        up = str(e)
    if time.time() > deadline:
        sys.exit(f"targets/rules not ready: {up}")
    time.sleep(2)
time.sleep(8)  # a few scrapes, so rate()/increase() have two samples
problems = []
groups = get("/api/v1/rules")["data"]["groups"]
rules = [r for g in groups for r in g["rules"]]
for r in rules:
    if r.get("health") != "ok" or r.get("lastError"):
        problems.append(f"rule {r['name']}: health {r.get('health')} {r.get('lastError')}")
    # each rule's query also evaluates on its own (an alert's expression may be empty: nothing fires)
    res = get("/api/v1/query", query=r["query"])
    if res.get("status") != "success":
        problems.append(f"rule {r['name']}: {res}")
print(f"{len(rules)} rules evaluate without error")
subst = {"$__rate_interval": "1m", "${__rate_interval}": "1m", "$__interval": "10s", "${__interval}": "10s",
         "$__range": "5m", "${tenant}": ".*", "$tenant": ".*", "${catalog}": ".*", "$catalog": ".*"}
queries = 0
# series that exist only while their condition holds (docs/metrics.md "Metrics and cardinality"): a blocked stream,
# a refused stream, a running rebuild, a stream holding more retained bytes than the threshold; a panel over one of
# them may show no data on a healthy stack
conditional = ["resolver_outbox_pruned_through", "resolver_retention_blocked", "resolver_history_rolled_back",
    "product_rebuild_phase", "resolver_retention_retained_bytes{"]
for path in sorted(glob.glob(dashboards + "/*.json")):
    d = json.load(open(path))
    for p in d.get("panels", []):
        for t in p.get("targets", []):
            expr = t.get("expr")
            if not expr:
                continue
            for k, v in subst.items():
                expr = expr.replace(k, v)
            res = get("/api/v1/query", query=expr)
            # a recording rule over a counter that appeared a scrape ago (the rebuild's) has data only after
            # another evaluation or two: ask again for up to 30 s before calling it empty
            waited = 0
            while res.get("status") == "success" and not res["data"]["result"] and waited < 30:
                time.sleep(2)
                waited += 2
                res = get("/api/v1/query", query=expr)
            queries += 1
            if res.get("status") != "success":
                problems.append(f"{path} '{p.get('title')}': {res.get('error')}")
            elif not res["data"]["result"] and not any(c in expr for c in conditional):
                problems.append(f"{path} '{p.get('title')}': no data for {expr}")
print(f"{queries} dashboard queries evaluated")
# every contract metric (docs/design.md §11) is exposed (registered at start, counters at 0)
contract = ["resolver_stream_position", "resolver_outbox_pruned_through", "resolver_retention_retained_events",
    "resolver_retention_blocked", "resolver_consumer_lag_events", "resolver_leases_active",
    "resolver_leases_expired_total", "resolver_outbox_pruned_events_total", "resolver_writes_total",
    "resolver_write_seconds_count", "resolver_export_seconds_count", "product_applied_position",
    "product_apply_lag_events", "product_parked_events", "product_rebuild_phase",
    "product_old_epoch_deliveries_total", "product_completeness_state", "resolver_history_rolled_back",
    "resolver_control_store_up", "resolver_evidence_missing", "resolver_evidence_expired_total"]
for m in contract:
    if m not in conditional and not get("/api/v1/query", query=m)["data"]["result"]:
        problems.append(f"contract metric {m} is not exposed")
print(f"{len(contract)} contract metrics checked")
if problems:
    print("\n".join(problems))
    sys.exit(1)
PY
log "Prometheus: rules, dashboard queries and contract metrics OK"
