"""Garbage in, findings out: corrupted, truncated or binary inputs never raise a traceback."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.diagnose.doctor import run_doctor
from core.system import SnapshotSystem

KFD = "files/sys/class/kfd/kfd/topology/nodes"
PCI = "files/sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0"

BASE_FILES = {
    "files/etc/os-release": 'ID=ubuntu\nVERSION_ID="22.04"\nVERSION_CODENAME=jammy\n'
    "UBUNTU_CODENAME=jammy\n",
    "files/proc/version": "Linux version 6.8.0-45-generic (buildd@lcy02) (gcc 13) #45-Ubuntu\n",
    f"{KFD}/0/properties": "cpu_cores_count 16\nsimd_count 0\n",
    f"{KFD}/1/properties": "cpu_cores_count 0\nsimd_count 120\nsimd_per_cu 2\n"
    "gfx_target_version 100301\nvendor_id 4098\ndevice_id 29663\nlocation_id 768\n"
    "domain 0\ndrm_render_minor 128\n",
    f"{KFD}/1/mem_banks/0/properties": "heap_type 1\nsize_in_bytes 12868124672\n",
    f"{PCI}/class": "0x030000\n",
    f"{PCI}/vendor": "0x1002\n",
    f"{PCI}/device": "0x73df\n",
    f"{PCI}/revision": "0xc1\n",
    "files/home/ana/.bashrc": "export HSA_OVERRIDE_GFX_VERSION=10.3.0\n",
    "files/var/lib/dpkg/status": "Package: rocm-core\nStatus: install ok installed\n"
    "Version: 6.2.0.60200-66~22.04\n",
    "commands/rocminfo.txt": "ROCk module is loaded\n*******\nAgent 2\n*******\n"
    "  Name:                    gfx1031\n  Device Type:             GPU\n",
    "commands/rocm-smi_--showproductname.txt": "GPU[0]\t\t: Card series: Navi 22\n",
    "commands/lspci_-nn.txt": "03:00.0 VGA compatible controller [0300]: AMD [1002:73df] "
    "(rev c1)\n",
    "env.json": json.dumps({"HSA_OVERRIDE_GFX_VERSION": "10.3.0", "HOME": "/home/ana"}),
    "user.json": json.dumps(
        {"name": "ana", "uid": 1000, "home": "/home/ana", "groups": ["ana", "render", "video"]}
    ),
    "devices.json": json.dumps(
        {
            "/dev/kfd": {
                "exists": True,
                "mode": "0660",
                "group": "render",
                "readable": True,
                "writable": True,
            }
        }
    ),
    "torch.json": json.dumps(
        {
            "python": "/usr/bin/python3",
            "version": "2.5.1+rocm6.2",
            "hip": "6.2.41133",
            "cuda": None,
            "available": True,
            "device_count": 1,
            "devices": ["AMD Radeon RX 6700 XT"],
            "arch_list": ["gfx1030", "gfx1100"],
            "error": None,
        }
    ),
}


def _build(root: Path) -> None:
    for rel, text in BASE_FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "files/sys/bus/pci/devices").mkdir(parents=True)
    os.symlink(
        "../../../devices/pci0000:00/0000:00:01.1/0000:03:00.0",
        root / "files/sys/bus/pci/devices/0000:03:00.0",
    )


def test_base_machine_is_understood(tmp_path: Path) -> None:
    _build(tmp_path)
    answer = run_doctor(SnapshotSystem(tmp_path)).to_json()
    assert [g["gfx"] for g in answer["gpus"]] == ["gfx1031"]
    assert answer["gpus"][0]["support"]["status"] == "override"
    ids = {f["id"] for f in answer["findings"]}
    assert "override-ok" in ids and "gfx-needs-override" not in ids


junk = st.one_of(
    st.binary(max_size=400),
    st.text(max_size=400),
    st.sampled_from(
        ["", "\x00" * 50, "{", "[]", "null", "9" * 40, "-1", "0x", "gfx_target_version"]
    ),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(target=st.sampled_from(sorted(BASE_FILES)), content=junk, truncate=st.booleans())
def test_any_corrupted_input_gives_an_answer(target: str, content: object, truncate: bool) -> None:
    root = Path(tempfile.mkdtemp())
    try:
        _build(root)
        path = root / target
        if truncate:
            original = path.read_bytes()
            path.write_bytes(original[: len(original) // 2])
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(str(content), encoding="utf-8", errors="surrogatepass")
        answer = run_doctor(SnapshotSystem(root)).to_json()
        json.dumps(answer)
        assert answer["verdict"] in {"Ready", "Ready after these fixes", "Not supported",
                                     "Not yet proved"}
        for finding in answer["findings"]:
            assert finding["id"] and finding["title"]
    finally:
        shutil.rmtree(root)


def test_missing_commands_and_timeouts(tmp_path: Path) -> None:
    _build(tmp_path)
    for name in ("rocminfo.txt", "rocm-smi_--showproductname.txt"):
        (tmp_path / "commands" / name).unlink()
    (tmp_path / "commands/amd-smi_static.txt").write_text("")
    (tmp_path / "commands/amd-smi_static.rc").write_text("timeout\n")
    answer = run_doctor(SnapshotSystem(tmp_path)).to_json()
    assert answer["gpus"][0]["gfx"] == "gfx1031"
