"""The ttm verbs of the root helper (issue 35): ``ttm-limit`` writes
/etc/modprobe.d/rocmate-ttm.conf and keeps what it replaced, ``ttm-restore`` puts that back;
hostile values and paths are refused.

In-process on a fake system (a tree with /etc/modprobe.d, /var/lib and a /proc/meminfo of 125 GiB),
and for real, as root, in a throwaway Debian root (``python3 -I -m core.install.helper`` under
chroot, as the other helper tests run it): the file written, the old one kept, undo restoring it,
and a machine without the file before getting none back. The hostile table :data:`TTM_CASES` is
also counted by ``make faults`` (tests/faults/test_ttm_faults.py).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.install.helper import main as helper
from core.install.helper.policy import (
    TTM_CONF,
    TTM_HEADER,
    TTM_PAGES_PER_GIB,
    TTM_UNDO,
    ttm_conf_text,
)
from core.install.helper.target import Policy, Target
from core.install.helper.ttm import parse_record
from core.install.helper.validate import TtmLimit, TtmRestore, check_input
from core.install.memory_plan import apply_steps, undo_steps
from tests.install.support import (
    copy_root,
    plain_target,
    plan,
    run_helper,
    step,
    step_statuses,
    trusting_policy,
)
from tests.install.test_helper_hostile import Case, _assert_runs_nothing, _prepared_root

GIB_PAGES = TTM_PAGES_PER_GIB
RAM_KB = 125 * 1024 * 1024
"""A 128 GB Strix Halo's MemTotal, rounded (unsloth#7878: 124.92 GiB): safe is 109 GiB."""
MEMINFO = f"MemTotal:       {RAM_KB} kB\nMemFree:        {RAM_KB // 2} kB\n"
OTHER = "# the user's own\noptions ttm pages_limit=12582912\n"


def ttm_target(root: Path, meminfo: str | None = MEMINFO) -> Target:
    """A fake system with the folders the ttm verbs use and, unless None, a /proc/meminfo."""
    target = plain_target(root)
    (root / "etc/modprobe.d").mkdir(parents=True, exist_ok=True)
    (root / "var/lib").mkdir(parents=True, exist_ok=True)
    (root / "proc").mkdir(exist_ok=True)
    if meminfo is not None:
        (root / "proc/meminfo").write_text(meminfo)
    return target


def limit_step(gib: int | None = None, *, content: str | None = None, path: str = TTM_CONF,
               **extra: Any) -> dict[str, Any]:
    text = content if content is not None else ttm_conf_text((gib or 0) * GIB_PAGES)
    return step("ttm-limit", kind="file", after="reboot",
                file={"path": path, "content": text, "mode": "0644", **extra})


def restore_step(*argv: str) -> dict[str, Any]:
    return step("ttm-restore", kind="command", argv=list(argv or ("ttm-restore", TTM_CONF)),
                after="reboot")


def _line(limit: str, pool: str | None = None) -> str:
    return TTM_HEADER + f"options ttm pages_limit={limit} page_pool_size={pool or limit}\n"


REFUSED_VALUE = "is more than this machine's RAM less the floor"
ONLY_OPTIONS = "may hold only 'options ttm"
TTM_CASES = [
    # values
    Case("ttm-above-safe", plan(limit_step(110)), REFUSED_VALUE),
    Case("ttm-all-ram", plan(limit_step(125)), REFUSED_VALUE),
    Case("ttm-above-ram", plan(limit_step(512)), REFUSED_VALUE),
    Case("ttm-absurd", plan(limit_step(5000)), "is absurd"),
    Case("ttm-absurd-digits", plan(limit_step(content=_line("9" * 16))), "not a whole number"),
    Case("ttm-too-many-digits", plan(limit_step(content=_line("1" * 40))), ONLY_OPTIONS),
    Case("ttm-zero", plan(limit_step(content=_line("0"))), ONLY_OPTIONS),
    Case("ttm-negative", plan(limit_step(content=_line("-25165824"))), ONLY_OPTIONS),
    Case("ttm-plus-sign", plan(limit_step(content=_line("+25165824"))), ONLY_OPTIONS),
    Case("ttm-leading-zero", plan(limit_step(content=_line("025165824"))), ONLY_OPTIONS),
    Case("ttm-fraction", plan(limit_step(content=_line("25165824.5"))), ONLY_OPTIONS),
    Case("ttm-exponent", plan(limit_step(content=_line("2e7"))), ONLY_OPTIONS),
    Case("ttm-hex", plan(limit_step(content=_line("0x1800000"))), ONLY_OPTIONS),
    Case("ttm-not-whole-gib", plan(limit_step(content=_line("25165825"))), "not a whole number"),
    Case("ttm-pool-differs", plan(limit_step(content=_line("25165824", "26214400"))),
         "must equal pages_limit"),
    # text: nothing but rocmate's header and the one line
    Case("ttm-no-header", plan(limit_step(content="options ttm pages_limit=25165824 "
                                                  "page_pool_size=25165824\n")),
         "must start with rocmate's header"),
    Case("ttm-second-line", plan(limit_step(content=_line("25165824") + "install ttm "
                                                                         "/bin/sh -c id\n")),
         ONLY_OPTIONS),
    Case("ttm-other-module", plan(limit_step(content=TTM_HEADER + "options amdgpu "
                                                                  "pages_limit=25165824 "
                                                                  "page_pool_size=25165824\n")),
         ONLY_OPTIONS),
    Case("ttm-extra-option", plan(limit_step(content=_line("25165824", "25165824 "
                                                                        "dma32=1"))),
         ONLY_OPTIONS),
    Case("ttm-blacklist", plan(limit_step(content=TTM_HEADER + "blacklist amdgpu\n")),
         ONLY_OPTIONS),
    Case("ttm-no-newline", plan(limit_step(content=_line("25165824").rstrip("\n"))),
         ONLY_OPTIONS),
    Case("ttm-crlf", plan(limit_step(content=_line("25165824").replace("\n", "\r\n"))),
         "must start with rocmate's header"),
    Case("ttm-non-ascii", plan(limit_step(content=_line("２５１６５８２４"))), "must be ASCII"),
    Case("ttm-b64-content", plan(step("ttm-limit", file={"path": TTM_CONF, "content_b64": "eA=="})),
         "content_b64 is only for keyrings"),
    Case("ttm-mode", plan(limit_step(96, mode="0666")), "mode"),
    Case("ttm-append", plan(limit_step(96, append=True)), "append"),
    # paths
    Case("ttm-path-amd-ttm", plan(limit_step(96, path="/etc/modprobe.d/ttm.conf")),
         "is not one of rocmate's files"),
    Case("ttm-path-blacklist", plan(limit_step(96, path="/etc/modprobe.d/blacklist.conf")),
         "is not one of rocmate's files"),
    Case("ttm-path-lib-modprobe", plan(limit_step(96, path="/lib/modprobe.d/rocmate-ttm.conf")),
         "is outside"),
    Case("ttm-path-usr-lib", plan(limit_step(96, path="/usr/lib/modprobe.d/rocmate-ttm.conf")),
         "is outside"),
    Case("ttm-path-run", plan(limit_step(96, path="/run/modprobe.d/rocmate-ttm.conf")),
         "is outside"),
    Case("ttm-path-record", plan(limit_step(96, path=TTM_UNDO)), "is outside"),
    Case("ttm-path-traversal",
         plan(limit_step(96, path="/etc/modprobe.d/../sudoers.d/rocmate-ttm.conf")),
         "path traversal"),
    Case("ttm-path-twice", plan(limit_step(64), {**limit_step(96), "id": "again"}),
         "is written twice"),
    # the restore verb: one path, no arguments
    Case("ttm-restore-other-path", plan(restore_step("ttm-restore", "/etc/shadow")),
         "ttm-restore must be"),
    Case("ttm-restore-amd-ttm", plan(restore_step("ttm-restore", "/etc/modprobe.d/ttm.conf")),
         "ttm-restore must be"),
    Case("ttm-restore-no-path", plan(step("r", argv=["ttm-restore"])), "ttm-restore must be"),
    Case("ttm-restore-extra", plan(restore_step("ttm-restore", TTM_CONF, TTM_UNDO)),
         "ttm-restore must be"),
    Case("ttm-restore-as-path", plan(restore_step("/usr/bin/ttm-restore", TTM_CONF)),
         "give the bare name"),
]


def test_the_table_is_unique() -> None:
    names = [c.name for c in TTM_CASES]
    assert len(names) == len(set(names)) and len(names) >= 30


@pytest.fixture
def target(tmp_path: Path) -> Target:
    return ttm_target(tmp_path)


@pytest.fixture(scope="module")
def policy() -> Policy:
    return trusting_policy()


@pytest.mark.parametrize("case", TTM_CASES, ids=[c.name for c in TTM_CASES])
def test_check_refuses(case: Case, target: Target, policy: Policy) -> None:
    result = check_input(case.payload, target, policy)
    reasons = "\n".join(r.reason for r in result.refused)
    assert not result.ok and not result.actions
    assert case.reason in reasons, reasons


def test_the_largest_safe_value_is_accepted(target: Target, policy: Policy) -> None:
    """The control of the value cases: 109 GiB of 125 (the floor: an eighth, 15.6 GiB)."""
    result = check_input(plan(limit_step(109), restore_step()), target, policy)
    assert result.ok, [r.reason for r in result.refused]
    limit, restore = result.actions
    assert isinstance(limit, TtmLimit) and limit.pages == 109 * GIB_PAGES
    assert limit.data == ttm_conf_text(109 * GIB_PAGES).encode()
    assert isinstance(restore, TtmRestore) and restore.verb == "ttm-restore"


def test_planned_steps_are_accepted(target: Target, policy: Policy) -> None:
    """What core/install/memory_plan.py makes is what the helper takes."""
    steps = [s.to_json() for s in (*apply_steps(96 * GIB_PAGES), *undo_steps())]
    assert check_input(plan(*steps), target, policy).ok


@pytest.mark.parametrize(("meminfo", "reason"), [
    (None, "RAM cannot be read"),
    ("MemTotal: lots kB\n", "RAM cannot be read"),
    ("MemTotal: 16384 MB\n", "RAM cannot be read"),
    (f"MemTotal: {16 * 1024 * 1024} kB\n", REFUSED_VALUE),  # 16 GiB: at most 8 may go
])
def test_the_ram_is_the_targets_own(tmp_path: Path, policy: Policy, meminfo: str | None,
                                    reason: str) -> None:
    target = ttm_target(tmp_path, meminfo)
    result = check_input(plan(limit_step(9)), target, policy)
    assert not result.ok and reason in result.refused[0].reason


def test_links_are_refused(tmp_path: Path, policy: Policy) -> None:
    root = tmp_path
    target = ttm_target(root)
    (root / "etc/modprobe.d/rocmate-ttm.conf").symlink_to("/etc/shadow")
    result = check_input(plan(limit_step(64)), target, policy)
    assert "is a symbolic link" in result.refused[0].reason
    (root / "etc/modprobe.d/rocmate-ttm.conf").unlink()
    (root / "var/lib/rocmate").symlink_to(root / "tmp")
    for doc in (plan(limit_step(64)), plan(restore_step())):
        assert "goes through a symbolic link" in check_input(doc, target, policy).refused[0].reason


# --------------------------------------------------------------------------------------------
# runs on the fake system (files and records; no chroot)


def _run(doc: bytes, target: Target, policy: Policy) -> tuple[int, list[dict[str, Any]]]:
    checked = check_input(doc, target, policy)
    assert checked.ok, [r.reason for r in checked.refused]
    out: list[dict[str, Any]] = []
    return helper.run_plan(checked, out.append, target), out


def _record(root: Path) -> dict[str, Any]:
    return json.loads((root / TTM_UNDO.lstrip("/")).read_text())


def test_apply_and_undo_without_a_file_before(tmp_path: Path, policy: Policy) -> None:
    target, conf = ttm_target(tmp_path), tmp_path / TTM_CONF.lstrip("/")
    code, out = _run(plan(limit_step(96)), target, policy)
    assert code == 0 and step_statuses(out) == {"ttm-limit": "done"}
    assert conf.read_text() == ttm_conf_text(25165824)
    assert "options ttm pages_limit=25165824 page_pool_size=25165824\n" in conf.read_text()
    assert oct(conf.stat().st_mode & 0o777) == "0o644"
    assert _record(tmp_path)["existed"] is False
    assert _run(plan(limit_step(96)), target, policy)[1][-2]["status"] == "unchanged"
    code, out = _run(plan(limit_step(64)), target, policy)  # another size: the record stays
    assert conf.read_text() == ttm_conf_text(64 * GIB_PAGES)
    assert _record(tmp_path)["existed"] is False
    code, out = _run(plan(restore_step()), target, policy)
    assert code == 0 and step_statuses(out) == {"ttm-restore": "done"}
    assert not conf.exists() and not (tmp_path / TTM_UNDO.lstrip("/")).exists()
    code, out = _run(plan(restore_step()), target, policy)  # nothing left to undo
    assert code == 0 and step_statuses(out) == {"ttm-restore": "unchanged"}
    assert not conf.exists()


def test_apply_and_undo_keep_the_old_file(tmp_path: Path, policy: Policy) -> None:
    target, conf = ttm_target(tmp_path), tmp_path / TTM_CONF.lstrip("/")
    conf.write_text(OTHER)
    os.chmod(conf, 0o640)
    assert _run(plan(limit_step(100)), target, policy)[0] == 0
    assert conf.read_text() == ttm_conf_text(100 * GIB_PAGES)
    kept = parse_record((tmp_path / TTM_UNDO.lstrip("/")).read_bytes())
    assert kept.data == OTHER.encode() and kept.mode == 0o640
    assert _run(plan(restore_step()), target, policy)[0] == 0
    assert conf.read_text() == OTHER and conf.stat().st_mode & 0o777 == 0o640


def test_a_failed_run_takes_the_file_and_record_away(tmp_path: Path, policy: Policy) -> None:
    """ttm-limit, then a step that fails: the rollback removes the file, the record and the
    folder it made, so the machine is as before."""
    target = ttm_target(tmp_path)
    pin = {"id": "pin", "privileged": True, "title": "Pin", "kind": "file",
           "file": {"path": "/etc/apt/preferences.d/rocm-pin-600",
                    "content": "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n"}}
    checked = check_input(plan(limit_step(64), pin), target, policy)
    assert checked.ok
    (tmp_path / "etc/apt/preferences.d").rmdir()
    (tmp_path / "etc/apt/preferences.d").symlink_to(tmp_path / "tmp")
    out: list[dict[str, Any]] = []
    assert helper.run_plan(checked, out.append, target) == 1
    assert out[-1]["rolled_back"] == [
        f"removed {TTM_CONF}", f"removed {TTM_UNDO}", "removed folder /var/lib/rocmate"]
    assert list((tmp_path / "etc/modprobe.d").iterdir()) == []
    assert not (tmp_path / "var/lib/rocmate").exists()


@pytest.mark.parametrize(("record", "reason"), [
    (b"not json", "not JSON"),
    (b'{"schema": "rocmate.ttm-undo/1", "path": "/etc/shadow", "existed": false}',
     "is not a record of"),
    (b'{"schema": "rocmate.ttm-undo/1", "path": "/etc/modprobe.d/rocmate-ttm.conf", '
     b'"existed": true, "content_b64": "!!", "mode": 420}', "not base64"),
    (b'{"schema": "rocmate.ttm-undo/1", "path": "/etc/modprobe.d/rocmate-ttm.conf", '
     b'"existed": true, "content_b64": "eA==", "mode": 4095}', "impossible file mode"),
])
def test_a_damaged_record_restores_nothing(tmp_path: Path, policy: Policy, record: bytes,
                                           reason: str) -> None:
    target, conf = ttm_target(tmp_path), tmp_path / TTM_CONF.lstrip("/")
    conf.write_text(ttm_conf_text(64 * GIB_PAGES))
    saved = tmp_path / TTM_UNDO.lstrip("/")
    saved.parent.mkdir()
    saved.write_bytes(record)
    code, out = _run(plan(restore_step()), target, policy)
    assert code == 1 and reason in out[-1]["error"]
    assert conf.read_text() == ttm_conf_text(64 * GIB_PAGES) and saved.read_bytes() == record


def test_a_record_others_may_write_is_not_trusted(tmp_path: Path, policy: Policy) -> None:
    target, conf = ttm_target(tmp_path), tmp_path / TTM_CONF.lstrip("/")
    assert _run(plan(limit_step(64)), target, policy)[0] == 0
    os.chmod(tmp_path / TTM_UNDO.lstrip("/"), 0o666)
    code, out = _run(plan(restore_step()), target, policy)
    assert code == 1 and "is not trusted" in out[-1]["error"]
    assert conf.read_text() == ttm_conf_text(64 * GIB_PAGES)


# --------------------------------------------------------------------------------------------
# for real, as root, in a throwaway Debian root


@pytest.fixture
def ttm_root(debian_root: Path, tmp_path: Path) -> Iterator[Path]:
    with copy_root(debian_root, tmp_path / "copy") as root:
        _prepared_root(root)
        (root / "etc/modprobe.d").mkdir(parents=True, exist_ok=True)
        (root / "proc/meminfo").write_text(MEMINFO)  # chroot mounts no /proc: the test's RAM
        yield root


def _mode(path: Path) -> tuple[int, int, int]:
    info = path.stat()
    return info.st_mode & 0o777, info.st_uid, info.st_gid


@pytest.mark.root
def test_for_real_absent_before_comes_back_absent(ttm_root: Path) -> None:
    conf, record = ttm_root / TTM_CONF.lstrip("/"), ttm_root / TTM_UNDO.lstrip("/")
    apply = plan(*[s.to_json() for s in apply_steps(96 * GIB_PAGES)])
    assert run_helper(ttm_root, apply, "--check").code == 0
    run = run_helper(ttm_root, apply, caller={"SUDO_UID": "1000"})
    assert run.code == 0, run.stdout + run.stderr
    assert step_statuses(run.events) == {"ttm-limit": "done"}
    assert conf.read_text() == ttm_conf_text(96 * GIB_PAGES) and _mode(conf) == (0o644, 0, 0)
    assert json.loads(record.read_text())["existed"] is False and _mode(record) == (0o644, 0, 0)
    undo = plan(*[s.to_json() for s in undo_steps()])
    run = run_helper(ttm_root, undo, caller={"SUDO_UID": "1000"})
    assert run.code == 0 and step_statuses(run.events) == {"ttm-restore": "done"}
    assert not conf.exists() and not record.exists()
    assert sorted(p.name for p in (ttm_root / "etc/modprobe.d").iterdir()) == []


@pytest.mark.root
def test_for_real_the_old_file_comes_back(ttm_root: Path) -> None:
    conf = ttm_root / TTM_CONF.lstrip("/")
    conf.write_text(OTHER)
    os.chmod(conf, 0o600)
    run = run_helper(ttm_root, plan(limit_step(64)))
    assert run.code == 0, run.stdout + run.stderr
    assert conf.read_text() == ttm_conf_text(64 * GIB_PAGES)
    run = run_helper(ttm_root, plan(limit_step(100)))  # a second size keeps the first record
    assert conf.read_text() == ttm_conf_text(100 * GIB_PAGES)
    run = run_helper(ttm_root, plan(restore_step()))
    assert run.code == 0, run.stdout + run.stderr
    assert conf.read_text() == OTHER and _mode(conf) == (0o600, 0, 0)
    assert not (ttm_root / TTM_UNDO.lstrip("/")).exists()


@pytest.mark.root
@pytest.mark.parametrize("case", TTM_CASES[::6], ids=[c.name for c in TTM_CASES[::6]])
def test_for_real_hostile_runs_nothing(case: Case, ttm_root: Path) -> None:
    _assert_runs_nothing(case, ttm_root)


@pytest.mark.root
def test_for_real_through_the_runner(ttm_root: Path, tmp_path: Path) -> None:
    """``rocmate memory apply`` and ``undo`` as the command carries them out: the runner sends
    the plan to the helper (here started in the throwaway root instead of through sudo), which
    writes the file; the run ends needing a reboot; the undo plan made from the record the
    helper kept takes it away again."""
    from core.install.memory_plan import memory_plan, parse_undo_record, undo_plan
    from core.install.runner import Runner
    from core.operations.memory import check_memory

    halo = Path(__file__).resolve().parents[1] / "fixtures/machines"
    advice = check_memory(halo / "k35-strix-halo-128g-gttsize-torch62").advices[0]
    argv = ["chroot", str(ttm_root), "/usr/bin/python3", "-I", "-m", "core.install.helper",
            "--cancel-on-eof"]
    conf, record = ttm_root / TTM_CONF.lstrip("/"), ttm_root / TTM_UNDO.lstrip("/")
    events: list[dict[str, Any]] = []
    runner = Runner(memory_plan(advice, 96), events.append, argv, folder=tmp_path / "state")
    assert asyncio.run(runner.run()), events[-1]
    assert events[-1]["needs"] == ["reboot"]
    assert conf.read_text() == ttm_conf_text(96 * GIB_PAGES)
    undo = undo_plan(parse_undo_record(record.read_text()))
    assert [s.id for s in undo.steps] == ["ttm-restore"]
    runner = Runner(undo, events.append, argv, folder=tmp_path / "state2")
    assert asyncio.run(runner.run()), events[-1]
    assert not conf.exists() and not record.exists()
