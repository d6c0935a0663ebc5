"""`rocmate snapshot`: record this machine, replay it, get the same answer; nothing private kept."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

from core.diagnose.doctor import run_doctor
from core.operations.machine import take_snapshot
from core.snapshot import RecordingSystem, anonymise_file, anonymise_text, publish_user
from core.system import LiveSystem, SnapshotSystem, UserInfo


def _comparable(answer: dict) -> dict:
    answer = dict(answer)
    answer.pop("timings")
    return answer


def _as_published(answer: dict) -> dict:
    """The live answer with this user's name and home as a snapshot publishes them."""
    user = LiveSystem().user()
    text = re.sub(rf"{re.escape(user.home)}(?=/|\")", "/home/user", json.dumps(answer))
    data = json.loads(text)
    perms = data["permissions"]
    perms["groups"] = ["user" if g == user.name else g for g in perms["groups"]]
    return data


def test_record_and_replay_give_the_same_answer(tmp_path: Path) -> None:
    out = tmp_path / "snap"
    take_snapshot(out, python=sys.executable)
    live = run_doctor(LiveSystem(), python=sys.executable).to_json()
    replayed = run_doctor(SnapshotSystem(out)).to_json()
    assert _comparable(replayed) == _as_published(_comparable(live))
    assert json.loads((out / "torch.json").read_text())["version"]
    assert (out / "user.json").is_file() and (out / "env.json").is_file()
    assert (out / "files/etc/os-release").is_file()


def test_snapshot_keeps_sysfs_links_as_links(tmp_path: Path) -> None:
    out = tmp_path / "snap"
    take_snapshot(out, probe_torch=False)
    pci = out / "files/sys/bus/pci/devices"
    if not pci.is_dir() or not any(pci.iterdir()):
        return  # a machine without PCI sysfs (some containers)
    entry = next(pci.iterdir())
    assert entry.is_symlink()
    assert not os.readlink(entry).startswith(str(tmp_path))


def test_serials_and_unrelated_lines_are_removed() -> None:
    props = anonymise_text("unique_id 11420932837461522459\nnum_xcc 1\n")
    assert props == "unique_id 0\nnum_xcc 1\n"
    assert "8a2c43f3" not in anonymise_text("  Uuid:                    GPU-8a2c43f3a1b2c3d4\n")
    smi = anonymise_text("GPU[0]\t\t: Serial Number: 0x1234abcd\n")
    assert "1234abcd" not in smi
    bashrc = b"export OPENAI_API_KEY=sk-secret\nexport HSA_OVERRIDE_GFX_VERSION=10.3.0\n"
    kept = anonymise_file("/home/ana/.bashrc", bashrc).decode()
    assert "sk-secret" not in kept
    assert kept.splitlines()[1] == "export HSA_OVERRIDE_GFX_VERSION=10.3.0"
    status = (
        b"Package: openssh-server\nStatus: install ok installed\nVersion: 1\n\n"
        b"Package: rocm-core\nStatus: install ok installed\nVersion: 6.2.0.60200-66~22.04\n"
    )
    kept = anonymise_file("/var/lib/dpkg/status", status).decode()
    assert "openssh" not in kept and "rocm-core" in kept


def test_shell_lines_are_rebuilt_from_what_was_found() -> None:
    bashrc = (
        b"export HIP_VISIBLE_DEVICES=0; export AWS_SECRET_ACCESS_KEY=SECRET2\n"
        b'export HSA_OVERRIDE_GFX_VERSION=11.0.0 && curl -H "Authorization: Bearer SECRET3" x\n'
        b"export HIP_PATH=/home/bob/rocm\n"
        b'ROCM_PATH="/opt/rocm" PASSWORD=SECRET4 ./run.sh\n'
    )
    kept = anonymise_file("/home/ana/.bashrc", bashrc, user="ana").decode()
    assert "SECRET" not in kept and "bob" not in kept and "curl" not in kept
    assert kept.splitlines() == [
        "export HIP_VISIBLE_DEVICES=0",
        "export HSA_OVERRIDE_GFX_VERSION=11.0.0",
        "export HIP_PATH=/home/someone/rocm",
        "export ROCM_PATH=/opt/rocm",
    ]


def test_modules_dep_keeps_only_amdgpus_line() -> None:
    """modules.dep is about a megabyte; the driver probe reads only where amdgpu.ko comes from."""
    text = ("kernel/fs/ext4/ext4.ko: kernel/fs/jbd2/jbd2.ko\n"
            "updates/dkms/amdgpu.ko: updates/dkms/amdxcp.ko updates/dkms/amdttm.ko\n"
            "kernel/drivers/net/foo.ko: kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko\n")
    kept = anonymise_file("/lib/modules/6.8.0-45-generic/modules.dep", text.encode()).decode()
    assert kept == "updates/dkms/amdgpu.ko: updates/dkms/amdxcp.ko updates/dkms/amdttm.ko\n"


class _Ana(LiveSystem):
    """This machine, as the user 'ana' whose home is a folder of the test's."""

    def __init__(self, home: Path) -> None:
        self.home = home

    def user(self) -> UserInfo:
        return UserInfo(name="ana", uid=1000, home=str(self.home), groups=("ana", "video"),
                        configured_groups=("ana", "render", "video"))

    def env(self) -> dict[str, str]:
        return {"HOME": str(self.home), "XDG_DATA_HOME": f"{self.home}/.local/share",
                "HSA_OVERRIDE_GFX_VERSION": "10.3.0"}


def _snapshot_of_ana(home: Path, out: Path) -> None:
    """A snapshot into ``out`` of this machine as 'ana', whose home ``home`` sets an override."""
    home.mkdir(parents=True)
    (home / ".bashrc").write_text("export HSA_OVERRIDE_GFX_VERSION=10.3.0\n")
    recorder = RecordingSystem(out, live=_Ana(home))
    run_doctor(recorder, probe_torch=False)
    recorder.finish()


def test_a_snapshot_names_a_neutral_user_and_still_replays(tmp_path: Path) -> None:
    home = tmp_path / "home" / "ana"
    out = tmp_path / "snap"
    _snapshot_of_ana(home, out)
    user = json.loads((out / "user.json").read_text())
    assert (user["name"], user["home"]) == ("user", "/home/user")
    assert user["groups"] == ["user", "video"] and "ana" not in user["configured_groups"]
    assert json.loads((out / "env.json").read_text())["HOME"] == "/home/user"
    everything = "".join(p.read_text(errors="replace") for p in out.rglob("*")
                         if p.is_file() and not p.is_symlink())
    assert str(home) not in everything and "/ana" not in everything
    assert (out / "files/home/user/.bashrc").is_file()
    replayed = run_doctor(SnapshotSystem(out), probe_torch=False).to_json()
    assert replayed["environment"]["settings"][0]["path"] == "/home/user/.bashrc"


# --- issue 30/12: what a snapshot still gave away ----------------------------------------------

def test_no_empty_folders_of_the_real_homes_place_are_left(tmp_path: Path) -> None:
    out = tmp_path / "snap"
    _snapshot_of_ana(tmp_path / "people" / "ana", out)
    files = out / "files"
    assert not (files / str(tmp_path).lstrip("/") / "people").exists()
    empty = [p for p in files.rglob("*") if p.is_dir() and not p.is_symlink()
             and not any(p.iterdir())]
    assert not [p for p in empty if "people" in p.parts], empty
    assert (files / "home/user/.bashrc").is_file()


def test_the_login_inside_other_paths_becomes_the_neutral_user(tmp_path: Path) -> None:
    out = tmp_path / "snap"
    (out / "files/opt/ana-stuff/rocm/.info").mkdir(parents=True)
    (out / "files/opt/ana-stuff/rocm/.info/version").write_text("6.4.1\n")
    (out / "files/opt/banana/x").mkdir(parents=True)  # a word that only contains the login
    (out / "commands").mkdir()
    (out / "commands/ls.txt").write_text("/opt/ana-stuff/rocm /opt/ana_x /opt/banana ana\n")
    (out / "env.json").write_text(json.dumps({"ROCM_PATH": "/opt/ana-stuff/rocm"}))
    (out / "user.json").write_text(json.dumps({"name": "ana", "home": "/home/ana"}))
    publish_user(out, "ana", "/home/ana")
    assert (out / "files/opt/user-stuff/rocm/.info/version").read_text() == "6.4.1\n"
    assert not (out / "files/opt/ana-stuff").exists() and (out / "files/opt/banana/x").is_dir()
    assert (out / "commands/ls.txt").read_text() == \
        "/opt/user-stuff/rocm /opt/user_x /opt/banana ana\n"  # a word outside a path stays
    assert json.loads((out / "env.json").read_text()) == {"ROCM_PATH": "/opt/user-stuff/rocm"}


def test_a_login_that_is_a_system_word_is_left_in_paths(tmp_path: Path) -> None:
    out = tmp_path / "snap"
    (out / "files/opt/rocm/.info").mkdir(parents=True)
    (out / "env.json").write_text(json.dumps({"ROCM_PATH": "/opt/rocm"}))
    (out / "user.json").write_text(json.dumps({"name": "rocm", "home": "/home/rocm"}))
    publish_user(out, "rocm", "/home/rocm")
    assert (out / "files/opt/rocm/.info").is_dir()
    assert json.loads((out / "env.json").read_text()) == {"ROCM_PATH": "/opt/rocm"}


def test_a_reference_in_a_shell_file_stays_a_reference() -> None:
    bashrc = ('export ROCM_PATH="$HOME/rocm"\nexport HIP_VISIBLE_DEVICES=${GPU:-0}\n'
              "export HSA_OVERRIDE_GFX_VERSION=10.3.0  # and a secret=hunter2\n"
              "export PYTORCH_HIP_ALLOC_CONF='expandable_segments:True'\n")
    kept = anonymise_file("/home/ana/.bashrc", bashrc.encode(), "ana").decode()
    assert kept.splitlines() == [
        'export ROCM_PATH="$HOME/rocm"',  # was the literal '$HOME/rocm'
        "export HIP_VISIBLE_DEVICES=${GPU:-0}",
        "export HSA_OVERRIDE_GFX_VERSION=10.3.0",
        "export PYTORCH_HIP_ALLOC_CONF=expandable_segments:True"]  # a literal, as before
    assert "hunter2" not in kept
