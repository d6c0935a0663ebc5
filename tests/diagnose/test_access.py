"""Device access and groups: blocked nodes, missing groups, and a group change not yet in effect."""

from __future__ import annotations

import json
from pathlib import Path

from core.diagnose.doctor import run_doctor
from core.system import SnapshotSystem
from tests.diagnose.test_robustness import _build


def _with_user(root: Path, groups: list[str], configured: list[str] | None, readable: bool) -> dict:
    _build(root)
    user = {"name": "ana", "uid": 1000, "home": "/home/ana", "groups": groups}
    if configured is not None:
        user["configured_groups"] = configured
    (root / "user.json").write_text(json.dumps(user))
    node = {
        "exists": True,
        "mode": "0660",
        "group": "render",
        "readable": readable,
        "writable": readable,
    }
    (root / "devices.json").write_text(json.dumps({"/dev/kfd": node, "/dev/dri/renderD128": node}))
    return {f["id"]: f for f in run_doctor(SnapshotSystem(root)).to_json()["findings"]}


def test_not_in_render_group_and_no_access(tmp_path: Path) -> None:
    found = _with_user(tmp_path, ["ana"], None, readable=False)
    assert found["kfd-no-access"]["severity"] == "error"
    assert "usermod -aG render,video" in found["kfd-no-access"]["fix"]
    assert found["not-in-render-group"]["severity"] == "error"


def test_group_added_but_session_is_older(tmp_path: Path) -> None:
    found = _with_user(tmp_path, ["ana"], ["ana", "render", "video"], readable=False)
    assert "this login is older" in found["not-in-render-group"]["title"]
    assert "Log out" in found["not-in-render-group"]["fix"]


def test_access_through_acl_is_a_warning_only(tmp_path: Path) -> None:
    found = _with_user(tmp_path, ["ana"], None, readable=True)
    assert "kfd-no-access" not in found
    assert found["not-in-render-group"]["severity"] == "warning"


def test_in_the_groups_nothing_to_say(tmp_path: Path) -> None:
    found = _with_user(tmp_path, ["ana", "render", "video"], None, readable=True)
    assert "kfd-no-access" not in found and "not-in-render-group" not in found


def test_visible_devices_follow_the_runtimes() -> None:
    from core.diagnose.rules_gpu import visible_indexes

    assert visible_indexes(2, None, None, None) == ({0, 1}, [])
    assert visible_indexes(2, None, "", "") == ({0, 1}, [])  # empty HIP/CUDA: no filter
    assert visible_indexes(2, "", None, None) == (set(), ["ROCR_VISIBLE_DEVICES"])
    assert visible_indexes(2, None, "0", "1")[0] == {0}  # HIP wins over CUDA
    assert visible_indexes(2, "1", "1", None)[0] == set()  # HIP indexes what ROCr left
    assert visible_indexes(2, "1", "0", None)[0] == {1}
    assert visible_indexes(3, None, "2,x,0", None)[0] == {2}  # stops at the first bad token
    assert visible_indexes(2, None, "--1", None)[0] == set()
    assert visible_indexes(2, None, "²", None)[0] == set()
    assert visible_indexes(2, None, "01", None)[0] == set()
    assert visible_indexes(2, "GPU-abc,1", None, None)[0] is None
