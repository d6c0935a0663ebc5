#!/bin/sh
# Install the Debian packages `make appimage` needs:
#   squashfs-tools  mksquashfs, which squashes the AppDir (xz)
#   binutils        readelf, which finds the bundled libraries nothing links to
#   patchelf        drops the library search paths that point at the build machine
# Idempotent and quiet, as scripts/install-test-system-deps.sh. Not root, or no apt: says what
# is missing and exits 0 (the build then says which tool it lacks).
set -eu
PACKAGES="squashfs-tools binutils patchelf"
NAME=install-build-system-deps
missing=""
for pkg in $PACKAGES; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
    [ "$status" = "installed" ] || missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "$NAME: please install:$missing" >&2
    exit 0
fi
echo "$NAME: installing:$missing"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
if ! { apt-get update -q && apt-get install -y -q --no-install-recommends $missing; } \
        >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "$NAME: apt-get failed" >&2
    exit 1
fi
