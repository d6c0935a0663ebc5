"""``rocmate snapshot --root DIR OUT``: a snapshot of a replayed machine is that machine's own
folder, copied as it is (links kept as links), so the copy replays exactly as the original does
and nothing of this computer is read (core.operations.machine.take_snapshot's ``root``, which the
app's System check already used). The other read-only commands took ``--root``; snapshot did not.

(Here and not beside the other snapshot tests: those are being moved out of tests/core.)"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from pathlib import Path

import pytest

from core.cli import main
from tests.conftest import machine_dirs

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(argv))
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 1
    return status, out.getvalue(), err.getvalue()


def _tree(folder: Path) -> dict[str, tuple[str, bytes | str]]:
    """Every entry under ``folder``: a link by its target, a file by its bytes."""
    found: dict[str, tuple[str, bytes | str]] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = str(path.relative_to(folder))
            if path.is_symlink():
                found[rel] = ("link", os.readlink(path))
            elif path.is_file():
                found[rel] = ("file", path.read_bytes())
    return found


def _doctor_json(root: Path) -> dict[str, object]:
    status, out, _ = _run("doctor", "--root", str(root), "--json")
    text = re.sub(r'("(?:[a-z_]+_s|total_s)": )[0-9.e-]+', r"\g<1>0", out)
    return {"status": status, "json": json.loads(text)}


LINKED = "rx6600-ubuntu2404-fresh"  # /sys links (drm card, pci devices) to keep as links


@pytest.mark.parametrize("machine", [LINKED, "wsl2-ubuntu2204-rx7900xtx-ready"])
def test_the_snapshot_of_a_replay_is_that_replay(machine: str, tmp_path: Path) -> None:
    source = MACHINES / machine
    out = tmp_path / "snap"
    status, stdout, stderr = _run("snapshot", "--root", str(source), str(out))
    assert status == 0 and stderr == ""
    assert f"a copy of the replayed machine {source}" in stdout
    assert f"rocmate doctor --root {out}" in stdout
    copied = _tree(out)
    assert copied == _tree(source)
    if machine == LINKED:
        assert any(kind == "link" for kind, _ in copied.values())
    # the copy replays as the original: the same doctor --json, the same exit status
    assert _doctor_json(out) == _doctor_json(source)


def test_every_recorded_machine_copies_whole(tmp_path: Path) -> None:
    """Each recorded machine's snapshot is its folder, entry for entry."""
    for machine in machine_dirs():
        out = tmp_path / machine.name
        assert _run("snapshot", "--root", str(machine), str(out))[0] == 0, machine.name
        assert _tree(out) == _tree(machine), machine.name


def test_a_replay_snapshot_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    source = MACHINES / LINKED
    # no such replayed machine: a usage error, nothing written
    status, _, stderr = _run("snapshot", "--root", str(tmp_path / "nope"), str(tmp_path / "a"))
    assert status == 2 and "no snapshot folder" in stderr and not (tmp_path / "a").exists()
    # a folder that is not new and empty
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    status, _, stderr = _run("snapshot", "--root", str(source), str(tmp_path / "full"))
    assert status == 2 and "is not empty" in stderr
    # --python and --no-torch have nothing to do on a replay: said, not silently dropped
    status, _, stderr = _run("snapshot", "--root", str(source), str(tmp_path / "b"),
                             "--python", "/x/python", "--no-torch")
    assert status == 0 and "--python, --no-torch not used" in stderr
    assert _tree(tmp_path / "b") == _tree(source)
