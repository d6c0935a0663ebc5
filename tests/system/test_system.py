"""The machine layer: snapshot replay (links, commands, devices) and the live implementation."""

from __future__ import annotations

import json
import os
from pathlib import Path

from core.system import LiveSystem, SnapshotSystem, clean_env, command_name


def _snapshot(tmp_path: Path) -> SnapshotSystem:
    files = tmp_path / "files"
    device = files / "sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0"
    device.mkdir(parents=True)
    (device / "vendor").write_text("0x1002\n")
    (files / "sys/bus/pci/drivers/amdgpu").mkdir(parents=True)
    os.symlink("../../../../bus/pci/drivers/amdgpu", device / "driver")
    (files / "sys/bus/pci/devices").mkdir(parents=True)
    os.symlink(
        "../../../devices/pci0000:00/0000:00:01.1/0000:03:00.0",
        files / "sys/bus/pci/devices/0000:03:00.0",
    )
    (tmp_path / "commands").mkdir()
    (tmp_path / "commands/lspci_-nn.txt").write_text("03:00.0 VGA ...\n")
    (tmp_path / "commands/rocminfo.txt").write_text("ROCk module is NOT loaded\n")
    (tmp_path / "commands/rocminfo.rc").write_text("1\n")
    (tmp_path / "commands/amd-smi_static.txt").write_text("")
    (tmp_path / "commands/amd-smi_static.rc").write_text("timeout\n")
    (tmp_path / "devices.json").write_text(
        json.dumps(
            {
                "/dev/kfd": {
                    "exists": True,
                    "mode": "0660",
                    "group": "render",
                    "readable": False,
                    "writable": False,
                },
                "/dev/dri/renderD128": {
                    "exists": True,
                    "mode": "0660",
                    "group": "render",
                    "readable": True,
                    "writable": True,
                },
            }
        )
    )
    (tmp_path / "user.json").write_text(
        json.dumps({"name": "ana", "uid": 1000, "groups": ["ana", "video"]})
    )
    (tmp_path / "env.json").write_text(json.dumps({"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}))
    return SnapshotSystem(tmp_path)


def test_symlinks_resolve_inside_the_snapshot(tmp_path: Path) -> None:
    system = _snapshot(tmp_path)
    base = "/sys/bus/pci/devices/0000:03:00.0"
    assert system.read_text(f"{base}/vendor") == "0x1002\n"
    assert system.readlink(f"{base}/driver") == "../../../../bus/pci/drivers/amdgpu"
    assert system.resolve(f"{base}/driver") == "/sys/bus/pci/drivers/amdgpu"
    assert system.list_dir("/sys/bus/pci/devices") == ["0000:03:00.0"]
    assert system.is_dir(base)
    assert system.exists(f"{base}/vendor")
    assert not system.exists(f"{base}/nothing")
    assert system.read_text("/etc/../../etc/passwd") is None


def test_commands_replay_output_exit_code_and_timeouts(tmp_path: Path) -> None:
    system = _snapshot(tmp_path)
    ok = system.run(["lspci", "-nn"])
    assert ok.ok and ok.output.startswith("03:00.0")
    failed = system.run(["rocminfo"])
    assert failed.found and failed.returncode == 1 and not failed.ok
    hung = system.run(["amd-smi", "static"])
    assert hung.timed_out and not hung.ok
    missing = system.run(["rocm-smi", "--showproductname"])
    assert not missing.found


def test_user_env_devices(tmp_path: Path) -> None:
    system = _snapshot(tmp_path)
    user = system.user()
    assert (user.name, user.uid, user.groups) == ("ana", 1000, ("ana", "video"))
    assert user.home == "/home/ana"
    assert system.env()["HSA_OVERRIDE_GFX_VERSION"] == "10.3.0"
    kfd = system.device("/dev/kfd")
    assert kfd.exists and kfd.group == "render" and not kfd.readable
    assert not system.device("/dev/dxg").exists
    assert system.device_nodes("/dev/dri") == ["/dev/dri/renderD128"]
    assert system.answer("torch", _never_asked) is None  # a replay never runs a probe


def _never_asked(machine: object) -> dict[str, object]:
    raise AssertionError("a snapshot answers from its recording")


def test_a_snapshot_answers_with_what_it_recorded(tmp_path: Path) -> None:
    (tmp_path / "torch.json").write_text('{"version": "2.4.1+rocm6.1"}')
    system = SnapshotSystem(tmp_path)
    assert system.answer("torch", _never_asked) == {"version": "2.4.1+rocm6.1"}
    assert system.answer("../torch", _never_asked) is None  # names, not paths


def test_broken_snapshot_files_are_tolerated(tmp_path: Path) -> None:
    (tmp_path / "env.json").write_text("{not json")
    (tmp_path / "user.json").write_bytes(b"\xff\xfe garbage")
    (tmp_path / "devices.json").write_text("[1, 2]")
    (tmp_path / "torch.json").write_text('"a string"')
    system = SnapshotSystem(tmp_path)
    assert system.env() == {}
    assert system.user().name == "user"
    assert not system.device("/dev/kfd").exists
    assert system.answer("torch", _never_asked) is None


def test_command_name() -> None:
    assert command_name(["rocm-smi", "--showproductname"]) == "rocm-smi_--showproductname"
    assert command_name(["/opt/rocm/bin/rocminfo"]) == "_opt_rocm_bin_rocminfo"


def test_live_system_runs_commands_with_timeouts(tmp_path: Path) -> None:
    live = LiveSystem()
    assert live.run(["sh", "-c", "echo out; echo err >&2; exit 3"]).output == "out\nerr\n"
    assert live.run(["sh", "-c", "exit 3"]).returncode == 3
    slow = live.run(["sleep", "5"], timeout=0.2)
    assert slow.timed_out and not slow.ok
    assert not live.run(["rocmate-no-such-tool"]).found
    assert live.read_text(str(tmp_path / "none")) is None
    assert live.list_dir(str(tmp_path / "none")) is None


def test_clean_env_restores_library_path(monkeypatch: object) -> None:
    import pytest

    mp = pytest.MonkeyPatch()
    try:
        mp.setenv("LD_LIBRARY_PATH", "/tmp/_MEI123")
        mp.setenv("LD_LIBRARY_PATH_ORIG", "/usr/local/lib")
        assert clean_env()["LD_LIBRARY_PATH"] == "/usr/local/lib"
        mp.setenv("LD_LIBRARY_PATH_ORIG", "")
        assert "LD_LIBRARY_PATH" not in clean_env()
    finally:
        mp.undo()


def test_a_crafted_snapshot_cannot_read_outside_itself(tmp_path: Path) -> None:
    files = tmp_path / "files"
    (files / "etc").mkdir(parents=True)
    # A chain of links longer than the hop limit, ending at the host's own file.
    previous = "/etc/os-release"
    for i in range(45):
        link = files / f"l{i}"
        os.symlink(previous if i == 0 else f"/l{i - 1}", link)
    os.symlink("/l44", files / "etc/os-release")
    os.symlink("/", files / "etc/up")  # an absolute link is taken inside the snapshot
    os.symlink("/etc/hostname", tmp_path / "env.json")  # a link straight to the host
    (tmp_path / "commands").mkdir()
    os.mkfifo(tmp_path / "commands/rocminfo.txt")  # would block a plain open()
    system = SnapshotSystem(tmp_path)
    assert system.read_text("/etc/os-release") is None
    listed = system.list_dir("/etc/up") or []
    assert "etc" in listed and "usr" not in listed  # the snapshot's own root, not the host's
    assert system.read_text("/etc/up/etc/hostname") is None
    assert system.env() == {}
    assert not system.run(["rocminfo"]).found
