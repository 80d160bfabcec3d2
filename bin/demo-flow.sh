#!/usr/bin/env bash
# The README's demo flow against running services (bin/demo.sh starts them from the jars; bin/containers-test.sh
# from the images): writes, the product registers as a consumer, a release, then the product's public reads.
# RESOLVER / PRODUCT: base URLs; PRODUCT_CONSUMER_ID, PRODUCT_DELIVERY_URL: the product's consumer; tokens as in
# bin/demo.sh's SECURITY_TOKENS (w writer, c consumer, op operator). Fails when the product never serves the item.
set -euo pipefail
RESOLVER=${RESOLVER:-http://localhost:8081}
PRODUCT=${PRODUCT:-http://localhost:8082}
CONSUMER_ID=${PRODUCT_CONSUMER_ID:-product-demo}
DELIVERY_URL=${PRODUCT_DELIVERY_URL:-$PRODUCT/v1/inbox/events}

api() { local method=$1 path=$2 body=${3:-}; shift 3 || true
  curl -s -X "$method" -H "Authorization: Bearer ${TOKEN:-w}" -H 'Content-Type: application/json' \
    ${body:+-d "$body"} "$RESOLVER$path"; echo; }

S=/v1/streams/demo/shoes
echo "== writes"
api PUT "$S/items/trail-1" '{"attributes":{"name":"Trail runner","price":120}}'
echo "== the product registers as a consumer of demo/shoes (the relay then pushes events to its inbox)"
TOKEN=c api POST /v1/retention/consumers "{\"consumerId\":\"$CONSUMER_ID\",\"tenant\":\"demo\",\"catalog\":\"shoes\",\"epoch\":1,\"deliveryUrl\":\"$DELIVERY_URL\"}"
api PUT "$S/items/road-2" '{"attributes":{"name":"Road racer","price":150}}'
api POST "$S/transactions" '{"changes":[{"op":"upsertMapping","mappingId":"color","source":"colour","target":"color"},{"op":"putRelease","releaseId":"spring","visibility":"PUBLIC","items":[{"itemId":"trail-1","revision":1},{"itemId":"road-2","revision":1}]}]}'
echo "== cursor of demo/shoes"
TOKEN=op api GET "$S/cursor"

echo "== the product's public catalog (no token), once the relay has delivered"
for _ in $(seq 1 30); do
  curl -sf "$PRODUCT/v1/catalog/demo/shoes/items/trail-1" >/dev/null && break; sleep 1
done
curl -sf "$PRODUCT/v1/catalog/demo/shoes/items/trail-1"; echo
curl -s "$PRODUCT/v1/catalog/demo/shoes/search?q=racer"; echo
echo "== retention status of demo/shoes"
TOKEN=op api GET /v1/retention/streams/demo/shoes
