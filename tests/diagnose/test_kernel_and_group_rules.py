"""Two system rules a review found wrong, replayed on recorded machines changed in tmp_path:

- kernel-old compared every distribution's kernel with Ubuntu's GA kernel (min_kernel), so RHEL 9
  with its supported vendor kernel 5.14 was told to install a newer kernel with apt;
- not-in-render-group warned when /dev/kfd and the render nodes are 0666 (fedora42-rx7900xtx),
  although then no group is needed, over ssh, from services or from containers.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from core.diagnose.doctor import run_doctor
from core.diagnose.release_choice import serving_releases
from core.knowledge.loader import load_knowledge
from core.probe.platform import probe_platform
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"

# /etc/os-release of RHEL 9.6, copied from /work/shared/fixtures/os/os-release-rhel9.txt
# (source: python-distro/distro tests/resources/distros/rhel9/etc/os-release).
RHEL_96_OS_RELEASE = """\
NAME="Red Hat Enterprise Linux"
VERSION="9.6 (Plow)"
ID="rhel"
ID_LIKE="fedora"
VERSION_ID="9.6"
PLATFORM_ID="platform:el9"
PRETTY_NAME="Red Hat Enterprise Linux 9.6 (Plow)"
ANSI_COLOR="0;31"
LOGO="fedora-logo-icon"
CPE_NAME="cpe:/o:redhat:enterprise_linux:9::baseos"
HOME_URL="https://www.redhat.com/"
DOCUMENTATION_URL="https://access.redhat.com/documentation/en-us/red_hat_enterprise_linux/9"
BUG_REPORT_URL="https://issues.redhat.com/"

REDHAT_BUGZILLA_PRODUCT="Red Hat Enterprise Linux 9"
REDHAT_BUGZILLA_PRODUCT_VERSION=9.6
REDHAT_SUPPORT_PRODUCT="Red Hat Enterprise Linux"
REDHAT_SUPPORT_PRODUCT_VERSION="9.6"
"""
# RHEL 9.6's kernel: AMD's ROCm system requirements list RHEL 9.x with 5.14.0 (rocm-facts.md 2.2).
RHEL_96_KERNEL = "5.14.0-570.el9.x86_64"


def copy_machine(tmp_path: Path, machine: str) -> Path:
    root = tmp_path / machine
    shutil.copytree(MACHINES / machine, root, symlinks=True)
    return root


def answer(root: Path) -> dict[str, Any]:
    return run_doctor(SnapshotSystem(root)).to_json()


def ids(result: dict[str, Any]) -> dict[str, dict[str, str]]:
    return {f["id"]: f for f in result["findings"]}


def set_kernel(root: Path, release: str) -> None:
    """Make the snapshot run ``release``: /proc/sys/kernel/osrelease, /proc/version, and the
    /lib/modules folder of the running kernel."""
    files = root / "files"
    old = (files / "proc/sys/kernel/osrelease").read_text().strip()
    (files / "proc/sys/kernel/osrelease").write_text(release + "\n")
    version = files / "proc/version"
    version.write_text(version.read_text().replace(old, release))
    modules = files / "lib/modules"
    if (modules / old).is_dir():
        (modules / old).rename(modules / release)


def make_rhel96(root: Path) -> None:
    files = root / "files"
    (files / "etc/os-release").write_text(RHEL_96_OS_RELEASE)
    (files / "etc/lsb-release").unlink(missing_ok=True)  # RHEL has none
    set_kernel(root, RHEL_96_KERNEL)


def set_devices(root: Path, nodes: dict[str, dict[str, Any]]) -> None:
    (root / "devices.json").write_text(json.dumps(nodes))


def node(mode: str, group: str = "render", *, usable: bool) -> dict[str, Any]:
    return {"exists": True, "mode": mode, "group": group, "readable": usable, "writable": usable}


# --- kernel-old -------------------------------------------------------------------------------


def test_rhel_vendor_kernel_is_not_too_old(tmp_path: Path) -> None:
    """The Pop!_OS RX 6800 machine (Ready) turned into RHEL 9.6 on its 5.14 vendor kernel."""
    before = answer(MACHINES / "popos2204-rx6800-ready")
    # nothing to fix; no kernel check recorded, so not yet proved (issue 32)
    assert before["verdict"] == "Not yet proved" and "kernel-old" not in ids(before)

    root = copy_machine(tmp_path, "popos2204-rx6800-ready")
    make_rhel96(root)
    system = SnapshotSystem(root)
    platform = probe_platform(system)
    assert (platform.distro_id, platform.distro_version) == ("rhel", "9.6")
    assert platform.kernel == RHEL_96_KERNEL and not platform.is_ubuntu_family
    # the trap: the releases serving RHEL 9.6 carry Ubuntu's min_kernel 5.15, above 5.14
    kb = load_knowledge()
    serving = serving_releases(kb, platform, ("10.0", "7.2"))
    assert serving and all(r.min_kernel == "5.15" for r in serving)

    after = answer(root)
    found = ids(after)
    assert after["platform"]["distro_id"] == "rhel"
    assert after["platform"]["kernel"] == RHEL_96_KERNEL
    assert "kernel-old" not in found
    assert "distro-unsupported" not in found  # AMD serves RHEL 9.6
    assert {"gpu-found", "kfd-ok", "torch-ok"} <= set(found)  # the rest of the answer stays
    assert [f["severity"] for f in after["findings"] if f["severity"] in ("error", "warning")] == []
    assert after["verdict"] == before["verdict"] == "Not yet proved"


def test_rhel_with_an_old_kernel_gets_no_apt_advice(tmp_path: Path) -> None:
    """Not even 4.18 (RHEL 8's kernel) on a RHEL os-release: rocm.toml has no kernel numbers
    for other distributions, so the doctor says nothing rather than quote Ubuntu's."""
    root = copy_machine(tmp_path, "popos2204-rx6800-ready")
    make_rhel96(root)
    set_kernel(root, "4.18.0-553.el8_10.x86_64")
    assert "kernel-old" not in ids(answer(root))


def test_ubuntu_2204_with_an_old_kernel_still_gets_kernel_old(tmp_path: Path) -> None:
    before = answer(MACHINES / "mi300x-x4-ubuntu2204")
    assert "kernel-old" not in ids(before)  # 5.15.0-119: 22.04's GA kernel

    root = copy_machine(tmp_path, "mi300x-x4-ubuntu2204")
    set_kernel(root, "5.13.0-52-generic")
    after = answer(root)
    old = ids(after)["kernel-old"]
    assert old["severity"] == "warning"
    assert "5.13.0-52-generic" in old["title"]
    # judged against ROCm 7.2, the release the plan installs here (pytorch.org's rocm7.2
    # wheels; tests/diagnose/test_kernel_release_agrees.py), which serves 22.04 from 5.15
    assert "ROCm 7.2" in old["title"]
    assert "Judged against ROCm 7.2, the release rocmate install plans" in old["detail"]
    assert "Ubuntu 22.04 with kernels 5.15 and newer" in old["detail"]
    assert "linux-generic-hwe" in old["fix"]
    assert after["verdict"] == "Ready after these fixes"


def test_ubuntu_derivative_with_an_old_kernel_still_gets_kernel_old(tmp_path: Path) -> None:
    root = copy_machine(tmp_path, "popos2204-rx6800-ready")
    set_kernel(root, "5.13.0-7620-generic")
    after = answer(root)
    assert after["platform"]["distro_id"] == "pop"
    assert "Ubuntu 22.04 with kernels 5.15" in ids(after)["kernel-old"]["detail"]


def test_unserved_ubuntu_quotes_the_releases_own_ubuntus() -> None:
    """Ubuntu 20.04 (served by no current release) on 5.4: compared with the planned release's
    (7.2, pytorch.org's wheels) min_kernel, naming the Ubuntu versions that number is for."""
    found = ids(answer(MACHINES / "ubuntu2004-kernel54-rx7900xtx"))
    old = found["kernel-old"]
    assert "5.4.0-150-generic" in old["title"]
    assert "ROCm 7.2" in old["title"]
    assert "Ubuntu 22.04 and 24.04 with kernels 5.15 and newer" in old["detail"]


# --- not-in-render-group ------------------------------------------------------------------------


def test_world_open_nodes_need_no_group() -> None:
    """fedora42-rx7900xtx as recorded: /dev/kfd and renderD128 are 0666, alice is in neither
    render nor video. Any account opens 0666 nodes, so the groups would change nothing."""
    result = answer(MACHINES / "fedora42-rx7900xtx")
    devices = result["permissions"]["devices"]
    assert {d["mode"] for d in devices.values()} == {"0666"}
    assert not {"render", "video"} & set(result["permissions"]["groups"])
    found = ids(result)
    assert "not-in-render-group" not in found
    assert "kfd-no-access" not in found
    # the findings that belong there remain
    assert "distro-unsupported" in found and "torch-missing" in found
    assert [f["id"] for f in result["findings"] if f["severity"] in ("error", "warning")] == [
        "torch-missing"
    ]


def test_0660_render_nodes_still_warn(tmp_path: Path) -> None:
    """The same machine with the usual 0660 root:render nodes: the real cases stay."""
    root = copy_machine(tmp_path, "fedora42-rx7900xtx")

    def both_0660(usable: bool) -> dict[str, dict[str, str]]:
        nodes = ("/dev/kfd", "/dev/dri/renderD128")
        set_devices(root, {path: node("0660", usable=usable) for path in nodes})
        return ids(answer(root))

    # opened only through the desktop session's ACL (uaccess): a warning
    found = both_0660(usable=True)
    assert found["not-in-render-group"]["severity"] == "warning"
    assert "kfd-no-access" not in found
    # not openable at all: both errors, with the usermod fix
    found = both_0660(usable=False)
    assert found["kfd-no-access"]["severity"] == "error"
    assert found["not-in-render-group"]["severity"] == "error"
    assert "usermod -aG render,video" in found["not-in-render-group"]["fix"]


def test_one_closed_node_keeps_the_warning(tmp_path: Path) -> None:
    """ROCm opens /dev/kfd and the render node: one of them 0660 is enough to need render."""
    root = copy_machine(tmp_path, "fedora42-rx7900xtx")
    for kfd_mode, render_mode in (("0666", "0660"), ("0660", "0666")):
        set_devices(
            root,
            {
                "/dev/kfd": node(kfd_mode, usable=True),
                "/dev/dri/renderD128": node(render_mode, usable=True),
            },
        )
        assert ids(answer(root))["not-in-render-group"]["severity"] == "warning"


def test_unknown_mode_keeps_the_warning(tmp_path: Path) -> None:
    root = copy_machine(tmp_path, "fedora42-rx7900xtx")
    nodes = {
        "/dev/kfd": node("0666", usable=True),
        "/dev/dri/renderD128": node("0666", usable=True),
    }
    del nodes["/dev/kfd"]["mode"]
    set_devices(root, nodes)
    assert "not-in-render-group" in ids(answer(root))


def test_world_open_nodes_after_a_group_change_say_nothing(tmp_path: Path) -> None:
    """A group added in /etc/group but not in this login: with 0666 nodes no re-login is needed."""
    root = copy_machine(tmp_path, "fedora42-rx7900xtx")
    user = json.loads((root / "user.json").read_text())
    user["configured_groups"] = [*user["groups"], "render", "video"]
    (root / "user.json").write_text(json.dumps(user))
    assert "not-in-render-group" not in ids(answer(root))
    set_devices(
        root,
        {
            "/dev/kfd": node("0660", usable=True),
            "/dev/dri/renderD128": node("0660", usable=True),
        },
    )
    assert "this login is older" in ids(answer(root))["not-in-render-group"]["title"]


def test_a_dkms_driver_that_runs_is_not_called_stale(tmp_path: Path) -> None:
    """8 x Vega 20 on an old rock-dkms: no /sys/module/amdgpu/version, but the running kernel's
    modules.dep takes amdgpu.ko from updates/dkms, so the DKMS tree is the driver in use."""
    found = ids(answer(MACHINES / "vega20-x8-epyc-aspeed"))
    assert "dkms-leftovers" not in found
    # the same machine with an old crash report: only that is left to clean, as info
    root = copy_machine(tmp_path, "vega20-x8-epyc-aspeed")
    (root / "files/var/crash").mkdir(parents=True, exist_ok=True)
    (root / "files/var/crash/amdgpu-dkms.0.crash").write_text("")
    leftovers = ids(answer(root))["dkms-leftovers"]
    assert leftovers["severity"] == "info" and "apt purge" not in leftovers["fix"]
    # a failed build next to the kernel's own driver still gets the purge advice
    failed = ids(answer(MACHINES / "dkms-build-failed-rx7800xt"))["dkms-leftovers"]
    assert failed["severity"] == "warning" and "apt purge amdgpu-dkms" in failed["fix"]
