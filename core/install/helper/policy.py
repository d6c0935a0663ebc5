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

KEYRING = KEYRING_DIR + "/rocm.gpg"
SOURCES = SOURCES_DIR + "/rocm.list"
AMDGPU_SOURCES = SOURCES_DIR + "/amdgpu.list"
PIN = PREFERENCES_DIR + "/rocm-pin-600"

ROCMATE_FILES: dict[str, str] = {
    KEYRING: "keyring",
    SOURCES: "apt-source",
    AMDGPU_SOURCES: "apt-source",
    SOURCES_DIR + "/rocm.sources": "apt-source",
    SOURCES_DIR + "/amdgpu.sources": "apt-source",
    PIN: "apt-pin",
}
"""Every file the helper may write, and its verb: the one place that says so.

These are rocmate's own files: what the planner writes (KEYRING, SOURCES, AMDGPU_SOURCES and
PIN; AMD's own instructions and amdgpu-install use the same names), plus the deb822 spelling of
the two source files (``.sources``, Ubuntu 24.04's format), which the planner does not write
today. Nothing else in /etc/apt is ever replaced: a plan that names docker.gpg, ubuntu.sources
or another pin is refused, whatever the file holds."""

PURGEABLE = re.compile(
    r"^(?:rocm(?:-[a-z0-9]+)*|rocminfo|amd-smi-lib|hsa-rocr(?:-dev)?|hip-runtime-amd)"
    r"(?:[0-9]+(?:\.[0-9]+)*)?$"
)
"""The packages ``apt-get purge`` may name: ROCm's own (rocm*, rocminfo, amd-smi-lib,
hsa-rocr[-dev], hip-runtime-amd, each with an optional version suffix such as 5.7.1). The
planner offers exactly these for removal. Everything else on the install allow-list
(ca-certificates, gnupg, python3-venv, kernel headers and modules, amdgpu-dkms) may be
installed, never purged."""

USER_NAME = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")
"""A user name ``usermod -aG`` may be given (Debian's default NAME_REGEX, 32 characters)."""
