#!/bin/sh
# Install the Debian packages the privileged-helper tests need (tests/install/):
#   mmdebstrap              builds the throwaway Debian root the helper runs in (chroot)
#   gnupg                   the test's own signing key for its apt repository
#   dpkg-dev                dpkg-deb, for the test package (usually there already)
#   apt-utils               apt-ftparchive, for the repository's Packages and Release files
#   debian-archive-keyring  lets mmdebstrap verify Debian's archive
#   fonts-wqy-microhei      Chinese glyphs for the app's and the HTML report's zh_CN tests
#   fish, tcsh              source the install plan's rocmate-env.fish/.csh in real shells
#                           (tests/planner/test_plans.py; those tests skip without them)
#   fuse, libfuse2          start the AppImage mounted, as a desktop does (tests/packaging/)
#   desktop-file-utils,     desktop-file-validate and appstreamcli validate the AppDir's
#   appstream               desktop file and metainfo
#   xvfb, libxcb-*, ...     a real X server and the X11 libraries Qt's xcb platform needs
#                           (resources/data/desktop.toml), for the launcher's display check
#                           (tests/gui/test_display.py: a live display answers, a dead one
#                           does not, and neither aborts)
#   squashfs-tools,         make appimage's mksquashfs and readelf (scripts/
#   binutils                install-build-system-deps.sh installs them for the build too)
# Idempotent: installs only what is missing and says what it did. Root only (elsewhere it says
# so and exits 0: the root-only tests then skip with that reason). Quiet: apt's output is shown
# only when it fails. The tests never install anything themselves.
set -eu

PACKAGES="mmdebstrap gnupg dpkg-dev apt-utils debian-archive-keyring chromium fonts-dejavu-core"
PACKAGES="$PACKAGES fonts-wqy-microhei"
PACKAGES="$PACKAGES fish tcsh xvfb libx11-xcb1 libxcb-cursor0 libxcb-icccm4 libxcb-image0"
PACKAGES="$PACKAGES libxcb-keysyms1 libxcb-render-util0 libxcb-shape0 libxkbcommon-x11-0"
PACKAGES="$PACKAGES fuse libfuse2 desktop-file-utils appstream squashfs-tools binutils"
NAME=install-test-system-deps

if [ "$(id -u)" -ne 0 ]; then
    echo "$NAME: not root; nothing installed (the root-only helper tests will skip)" >&2
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-query >/dev/null 2>&1; then
    echo "$NAME: no apt-get/dpkg on this machine; nothing installed" >&2
    exit 0
fi

missing=""
for pkg in $PACKAGES; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
    if [ "$status" != "installed" ]; then
        missing="$missing $pkg"
    fi
done

if [ -z "$missing" ]; then
    echo "$NAME: nothing to do, already installed: $PACKAGES"
    exit 0
fi

echo "$NAME: installing:$missing"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086  # the package list is split into words on purpose
if ! { apt-get update -q && apt-get install -y -q --no-install-recommends $missing; } \
        >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "$NAME: apt-get failed" >&2
    exit 1
fi
echo "$NAME: installed:$missing"
