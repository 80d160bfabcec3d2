#!/usr/bin/env bash
# SPK-05's long fault run (docs/spk-05.md "How to run"): two resolver and two product instances on PostgreSQL
# servers of the suite's own (the resolver's a primary on port 55432 with a streaming standby, product and control
# on another; under /tmp; the shared server on 5432 is never touched), a seeded load, failovers among the
# faults of every kind at seeded random times, then the history checker. Prints one JSON summary line.
#   bin/fault-run.sh [--minutes=20] [--seed=N]
# Run it on a quiet machine: it starts four JVMs and restarts PostgreSQL hundreds of times.
set -euo pipefail
cd "$(dirname "$0")/.."

MINUTES=20
SEED=$(date +%s%3N)
for arg in "$@"; do
  case "$arg" in
    --minutes=*) MINUTES=${arg#--minutes=} ;;
    --seed=*) SEED=${arg#--seed=} ;;
    *) echo "usage: $0 [--minutes=20] [--seed=N]" >&2; exit 2 ;;
  esac
done

LOG=fault-tests/target/fault-run-$SEED.log
mkdir -p fault-tests/target
echo "== fault run: $MINUTES min, seed $SEED (log: $LOG)" >&2
set +e
mvn -B verify -pl fault-tests -am -Dit.test=FaultSuiteIT -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
  -Dfailsafe.failIfNoSpecifiedTests=false -Dfault.minutes="$MINUTES" -Dfault.seed="$SEED" >"$LOG" 2>&1
rc=$?
set -e
grep -h '^FAULT-SUMMARY ' "$LOG" fault-tests/target/failsafe-reports/*-output.txt 2>/dev/null | tail -1 \
  | sed 's/^FAULT-SUMMARY //' || true
[ $rc -eq 0 ] || echo "== fault run FAILED (exit $rc), seed $SEED: replay with --seed=$SEED; see $LOG" >&2
exit $rc
