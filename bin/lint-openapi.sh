#!/usr/bin/env bash
# Lints the services' OpenAPI documents with Redocly CLI's recommended rules (redocly.yaml at the repository root).
# The documents are written by the services' OpenApiIT (target/openapi/<service>.json): run `mvn -B verify` (or
# the two OpenApiIT) first. Redocly CLI is installed at its pinned version into .tools/redocly (git-ignored) when
# missing; npm's registry must be reachable the first time. Exits non-zero on any error (and on a missing document);
# warnings are printed and counted, not fatal.
#   bin/lint-openapi.sh                 # both services
#   bin/lint-openapi.sh path/to/a.json  # given documents
set -euo pipefail
cd "$(dirname "$0")/.."

REDOCLY_VERSION=2.77.0
TOOLS=.tools/redocly
log() { printf '[lint-openapi] %s\n' "$*"; }

command -v node >/dev/null || { log "Node.js is needed (20.19+ or 22.12+, @redocly/cli's engines)"; exit 1; }
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>=22||(a===20&&b>=19)?0:1)' \
  || { log "Node.js $(node --version) is too old for @redocly/cli $REDOCLY_VERSION (needs 20.19+ or 22.12+)"; exit 1; }

redocly="$TOOLS/node_modules/.bin/redocly"
installed=$(node -p "require('./$TOOLS/node_modules/@redocly/cli/package.json').version" 2>/dev/null || true)
if [ "$installed" != "$REDOCLY_VERSION" ]; then
  command -v npm >/dev/null || { log "npm is needed to install @redocly/cli (Node.js 20 or later)"; exit 1; }
  log "installing @redocly/cli@$REDOCLY_VERSION into $TOOLS"
  mkdir -p "$TOOLS"
  npm install --prefix "$TOOLS" --no-save --no-audit --no-fund --loglevel=error "@redocly/cli@$REDOCLY_VERSION" >/dev/null
fi

if [ $# -gt 0 ]; then
  docs=("$@")
else
  docs=(resolver-service/target/openapi/resolver-service.json product-service/target/openapi/product-service.json)
fi
for d in "${docs[@]}"; do
  [ -s "$d" ] || { log "missing $d: the service's OpenApiIT writes it (mvn -B verify)"; exit 1; }
done

log "redocly lint (redocly.yaml) ${docs[*]}"
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
  "$redocly" lint --config redocly.yaml --format=stylish "${docs[@]}"
