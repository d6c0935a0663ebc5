"""WSL 2 has no KFD sysfs: the GPU comes from rocminfo, whose gfx shows an override's target."""

from __future__ import annotations

import json
from pathlib import Path

from core.diagnose.doctor import run_doctor
from core.system import SnapshotSystem

OUTPUTS = Path(__file__).resolve().parents[1] / "fixtures" / "outputs"


def _body(path: Path) -> str:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
    return "".join(lines[4:])  # the three header lines and the blank line


def test_true_gfx_from_chip_id_when_rocminfo_reports_the_override(tmp_path: Path) -> None:
    # The real rocminfo of an RX 6700 XT run with HSA_OVERRIDE_GFX_VERSION=10.3.0: Name gfx1030,
    # Chip ID 0x73df (Navi 22, gfx1031).
    (tmp_path / "commands").mkdir()
    (tmp_path / "commands/rocminfo.txt").write_text(
        _body(OUTPUTS / "rocminfo/rx6700xt-i3-12100f.txt")
    )
    (tmp_path / "files/proc").mkdir(parents=True)
    (tmp_path / "files/proc/version").write_text(
        "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@host) (gcc 11.2.0) #1 SMP\n"
    )
    (tmp_path / "devices.json").write_text(json.dumps({"/dev/dxg": {"exists": True}}))
    (tmp_path / "env.json").write_text(json.dumps({"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}))
    answer = run_doctor(SnapshotSystem(tmp_path), probe_torch=False).to_json()
    assert answer["platform"]["wsl"] == 2
    assert [g["gfx"] for g in answer["gpus"]] == ["gfx1031"]
    assert answer["gpus"][0]["name"] == "Radeon RX 6700 XT"
    ids = {f["id"] for f in answer["findings"]}
    assert "override-ok" in ids and "kfd-missing" not in ids
