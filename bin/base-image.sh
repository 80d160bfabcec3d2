#!/usr/bin/env bash
# Builds the local JRE 17 base image from Debian packages, for machines that reach no container registry:
#   1. debootstrap --variant=minbase bookworm → imported as localhost/debian-base:bookworm
#   2. + openjdk-17-jre-headless (deploy/base/Dockerfile) → localhost/catalog-jre:17   (the BASE_IMAGE build arg)
# The mirror is the one apt uses on this machine (DEBIAN_MIRROR overrides). Skips what already exists
# (REBUILD=1 forces both). Needs root (debootstrap) and podman; see docs/deployment.md.
set -euo pipefail
cd "$(dirname "$0")/.."

PODMAN=${PODMAN:-podman --runtime runc --cgroup-manager=cgroupfs}
DEBIAN_IMAGE=${DEBIAN_IMAGE:-localhost/debian-base:bookworm}
BASE_IMAGE=${BASE_IMAGE:-localhost/catalog-jre:17}
log() { printf '[base-image] %s\n' "$*"; }

mirror() {
  if [ -n "${DEBIAN_MIRROR:-}" ]; then echo "$DEBIAN_MIRROR"; return; fi
  local m
  m=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | head -n 1 || true)
  [ -n "$m" ] || m=$(grep -hsE '^deb ' /etc/apt/sources.list | awk '{print $2}' | grep -v security | head -n 1 || true)
  echo "${m:-http://deb.debian.org/debian}"
}

exists() { $PODMAN image exists "$1"; }

if [ "${REBUILD:-0}" = 1 ] || ! exists "$DEBIAN_IMAGE"; then
  rootfs=$(mktemp -d /tmp/debian-rootfs.XXXXXX)
  trap 'rm -rf "$rootfs"' EXIT
  log "debootstrap minbase bookworm from $(mirror) (about 30 s)"
  debootstrap --variant=minbase bookworm "$rootfs" "$(mirror)" >"$rootfs.log" 2>&1 \
    || { tail -20 "$rootfs.log"; exit 1; }
  rm -f "$rootfs.log"
  # the image's apt uses the same mirror as the build machine
  echo "deb $(mirror) bookworm main" >"$rootfs/etc/apt/sources.list"
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | $PODMAN import - "$DEBIAN_IMAGE" >/dev/null
  log "imported $DEBIAN_IMAGE"
fi

if [ "${REBUILD:-0}" = 1 ] || ! exists "$BASE_IMAGE"; then
  log "building $BASE_IMAGE (openjdk-17-jre-headless on $DEBIAN_IMAGE)"
  $PODMAN build -q --network host --format docker --build-arg DEBIAN_IMAGE="$DEBIAN_IMAGE" \
    -t "$BASE_IMAGE" deploy/base >/dev/null
fi
log "ready: $BASE_IMAGE"
