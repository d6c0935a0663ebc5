"""What the root helper accepts, as data the planner builds plans from (the one public module of
core.install.helper; the planner, the plan and the runner import it, nothing else of the helper).

The helper checks every plan against these; the planner writes exactly these, so a plan it makes
is never refused for a name or a path.
"""

from __future__ import annotations

import re

SCHEMA = "rocmate.plan/1"
"""The plan document's schema name (docs/contracts.md, ``rocmate install --dry-run --json``)."""

KEYRING_DIR = "/etc/apt/keyrings"
SOURCES_DIR = "/etc/apt/sources.list.d"
PREFERENCES_DIR = "/etc/apt/preferences.d"
MODPROBE_DIR = "/etc/modprobe.d"

KEYRING = KEYRING_DIR + "/rocm.gpg"
SOURCES = SOURCES_DIR + "/rocm.list"
PIN = PREFERENCES_DIR + "/rocm-pin-600"
CORE_SDK_KEYRING = KEYRING_DIR + "/amdrocm.gpg"
CORE_SDK_SOURCES = SOURCES_DIR + "/amdrocm-stable.sources"
"""The ROCm Core SDK's (7.14 on, stable.repo.amd.com) keyring and deb822 source: the names AMD's
install page writes (ROCm/rocm-docs docs/install/include/200-install.rst, "Register ROCm
repositories") and its uninstall page removes (400-uninstall.rst), so a machine set up by hand
from AMD's page and one set up by rocmate have the same two files, never two entries for one
repository with different keys."""
TTM_CONF = MODPROBE_DIR + "/rocmate-ttm.conf"
"""ttm's memory limits for the next boot (issue 35, ``rocmate memory apply``): only
:func:`ttm_conf_text` of a number of pages, never anything else. amd-ttm (amd-debug-tools) writes
``ttm.conf`` in the same folder; rocmate never touches that one."""
TTM_UNDO_DIR = "/var/lib/rocmate"
TTM_UNDO = TTM_UNDO_DIR + "/rocmate-ttm.conf.before"
"""What :data:`TTM_CONF` held before rocmate first changed it (JSON: whether it existed, its
bytes and mode), written by the helper as root beside the change and read back by the
``ttm-restore`` verb (``rocmate memory undo``), which then removes it. World-readable, so that
the user's side can say what an undo would put back before asking for the password."""

ROCMATE_FILES: dict[str, str] = {
    KEYRING: "keyring",
    SOURCES: "apt-source",
    SOURCES_DIR + "/rocm.sources": "apt-source",
    PIN: "apt-pin",
    CORE_SDK_KEYRING: "keyring",
    CORE_SDK_SOURCES: "apt-source",
    TTM_CONF: "ttm-limit",
}
"""Every file the helper may write, and its verb: the one place that says so.

These are rocmate's own files: what the planner writes (KEYRING, SOURCES and PIN for the legacy
repository, CORE_SDK_KEYRING and CORE_SDK_SOURCES for the Core SDK's; AMD's own instructions use
the same names), plus the deb822 spelling of the legacy source file (``rocm.sources``, Ubuntu
24.04's format), which the planner does not write today, and TTM_CONF (``rocmate memory
apply``). Nothing else in /etc/apt or /etc/modprobe.d is ever replaced: a plan that names
docker.gpg, ubuntu.sources, another pin or amd-ttm's ttm.conf is refused, whatever the file
holds. Nor amdgpu.list or amdgpu.sources: only the retired amdgpu-install WSL route wrote the
amdgpu repository (for amdgpu-install and its WSL runtime), and AMD's amdgpu-install package
writes amdgpu.list itself, so that file is the installer's, not rocmate's."""

PURGEABLE = re.compile(
    r"^(?:rocm(?:-[a-z0-9]+)*|rocminfo|amd-smi-lib|hsa-rocr(?:-dev)?|hip-runtime-amd)"
    r"(?:[0-9]+(?:\.[0-9]+)*)?$"
    r"|^amdrocm(?:-[a-z][a-z0-9]*)*[0-9]{1,2}\.[0-9]{1,2}(?:-gfx[0-9a-f]{3,4})?$"
)
"""The packages ``apt-get purge`` may name: ROCm's own (rocm*, rocminfo, amd-smi-lib,
hsa-rocr[-dev], hip-runtime-amd, each with an optional version suffix such as 5.7.1), and the
Core SDK's versioned ones (amdrocm10.0, amdrocm10.0-gfx1151, amdrocm-core-sdk10.0-gfx1151,
amdrocm-base10.0: the X.Y series is part of every name, so one series can go while another
stays; AMD's uninstall page removes them with ``apt autoremove amdrocm10.0``). Never an
amdrocm name without a series (amdrocm-repo, the repository package). The planner offers
exactly these for removal. Of the install allow-list (:data:`INSTALLABLE`), python3-venv may be
installed, never purged."""

_SERIES = r"[0-9]{1,2}\.[0-9]{1,2}"
_GFX = r"-gfx[0-9a-f]{3,4}"
INSTALLABLE: tuple[str, ...] = (
    "rocm-hip-runtime",
    "rocminfo",
    "rocm-hip-sdk",
    "rocm-developer-tools",
    rf"amdrocm{_SERIES}{_GFX}",
    rf"amdrocm{_SERIES}",
    rf"amdrocm-core-dev{_SERIES}{_GFX}",
    rf"amdrocm-core-dev{_SERIES}",
    rf"amdrocm-developer-tools{_SERIES}",
    "python3-venv",
)
"""The packages ``apt-get install`` may name, one pattern each (a plain name, or a Core SDK
family with its X.Y series and gfx target): exactly what the planner's routes install, nothing
more (tests/install/test_helper_allow_list.py fails on an entry no plan produces):

* the legacy repository's package sets (core.install.apt_route.PACKAGE_SETS: rocm-hip-runtime
  and rocminfo; rocm-hip-sdk, rocminfo and rocm-developer-tools), never versioned names;
* the Core SDK's meta packages (core.install.core_sdk_route.CORE_SDK_PACKAGE_SETS):
  amdrocmX.Y and amdrocm-core-devX.Y with the card's ``-gfxNNNN``, or without it where the
  release does not list the card's target (the route's fallback, which no recorded machine
  reaches), and amdrocm-developer-toolsX.Y; never amdrocm-repo (the repository package) or
  another amdrocm name;
* python3-venv (core.install.system_steps.venv_package), where python3 lacks ensurepip.

No route installs a kernel module or what builds one: ROCm comes without DKMS (the kernel's own
amdgpu driver serves, and in WSL the Windows driver), so amdgpu-dkms, amdgpu-dkms-firmware,
linux-headers-* and linux-modules-extra-* left the list; so did gnupg and ca-certificates, which
no plan asks for (the helper reads and checks AMD's keys itself, core.install.helper.openpgp),
and the rocm, rocm-*, amd-smi-lib, hsa-rocr and hip-runtime-amd names beyond the sets above
and any versioned name (purgeable, :data:`PURGEABLE`, never installed). The doctor may still
tell the user to install kernel headers by hand; the helper never does."""
INSTALLABLE_RE = re.compile("^(?:" + "|".join(INSTALLABLE) + ")$")

USER_NAME = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")
"""A user name ``usermod -aG`` may be given (Debian's default NAME_REGEX, 32 characters)."""

TTM_PAGES_PER_GIB = 262144
"""ttm counts 4 KiB pages: one GiB is 262144 of them (resources/data/apu_memory.toml [ttm])."""
TTM_MAX_GIB = 4096
"""No machine rocmate knows has 4 TiB of RAM shared with an integrated GPU: a larger value is
absurd whatever the machine's RAM says."""
TTM_HEADER = (
    "# Written by rocmate (rocmate memory apply): how much system memory the GPU may map\n"
    "# (ttm's limits, in pages of 4 KiB). rocmate memory undo puts back what was here before.\n"
)


def ttm_conf_text(pages: int) -> str:
    """The whole of :data:`TTM_CONF` for a limit of ``pages`` (the planner writes it, and the
    helper writes only what it recomputes from the number)."""
    return TTM_HEADER + f"options ttm pages_limit={pages} page_pool_size={pages}\n"


TTM_LINE = re.compile(
    r"options ttm pages_limit=(?P<limit>[1-9][0-9]{0,15})"
    r" page_pool_size=(?P<pool>[1-9][0-9]{0,15})\n"
)
"""The one options line :data:`TTM_CONF` may hold after :data:`TTM_HEADER`."""
