"""The root helper acts only for the user who called it (issue 30, item 2).

``usermod -aG render,video USER`` is accepted only for the calling user: the uid that pkexec
(``PKEXEC_UID``) or sudo (``SUDO_UID``) says started the helper, or the helper's own real uid
when it was not started as root. Root's own call (root, with neither variable) may name any
regular account. A caller that cannot be told (a variable that is not a plain uid, the two
variables disagreeing, a variable naming another uid while the helper is not root) refuses the
whole plan. core/install/helper/caller.py says why each rule is what it is.

The polkit action asks for the password every time (``auth_admin``): nothing in rocmate starts
the helper twice for one set-up, so a kept grant would only serve other processes of the
session.

Checked in-process on a small fake system (its passwd has ``tester``, uid 1000, and ``other``,
uid 1001), with the environment the helper would see given explicitly; and for real, as nobody
with the helper's own command line, where a non-root caller claims to be root.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from core.install.helper import main as helper
from core.install.helper.target import Policy, Target
from core.install.plan import Plan, Step
from core.install.runner import Runner
from tests.install.support import (
    REPO_ROOT,
    TESTER,
    add_accounts_in_chroot,
    add_fixtures,
    chroot,
    command_step,
    copy_root,
    install_rocmate,
    pin_step,
    plan,
    run_helper,
    trusting_policy,
    write_accounts,
)

OTHER = "other"
TESTER_UID = 1000
OTHER_UID = 1001
POLICY_FILE = REPO_ROOT / "resources/polkit/org.rocmate.helper.policy"
NOBODY = 65534


def _usermod(user: str, step_id: str = "groups") -> dict[str, object]:
    return command_step(step_id, "usermod", "-aG", "render,video", user, after="relogin")


@dataclass(frozen=True)
class CallerCase:
    """One hostile way to start the helper: its environment, its real uid, the plan, and a
    piece of the reason it must give."""

    name: str
    environ: Mapping[str, str]
    real_uid: int
    payload: bytes
    reason: str


NOT_CALLER = "is not the calling user"
UNKNOWN = "cannot tell who called the helper"

OTHER_USER_CASES = [
    # a usermod for another account than the caller's
    CallerCase("pkexec-tester-names-other", {"PKEXEC_UID": "1000"}, 0, plan(_usermod(OTHER)),
               NOT_CALLER),
    CallerCase("sudo-tester-names-other", {"SUDO_UID": "1000"}, 0, plan(_usermod(OTHER)),
               NOT_CALLER),
    CallerCase("pkexec-other-names-tester", {"PKEXEC_UID": "1001"}, 0, plan(_usermod(TESTER)),
               NOT_CALLER),
    CallerCase("both-agree-names-other", {"PKEXEC_UID": "1000", "SUDO_UID": "1000"}, 0,
               plan(_usermod(OTHER)), NOT_CALLER),
    CallerCase("second-usermod-names-other", {"PKEXEC_UID": "1000"}, 0,
               plan(_usermod(TESTER), _usermod(OTHER, "groups-2")), NOT_CALLER),
    CallerCase("a-form-names-other", {"PKEXEC_UID": "1000"}, 0,
               plan(command_step("g", "usermod", "-a", "-G", "video", OTHER)), NOT_CALLER),
    CallerCase("not-root-names-other", {}, TESTER_UID, plan(_usermod(OTHER)), NOT_CALLER),
    CallerCase("pkexec-uid-without-account", {"PKEXEC_UID": "4242"}, 0, plan(_usermod(TESTER)),
               NOT_CALLER),
]

GARBAGE = ["", "abc", "-1", " 1000", "1000 ", "1000\n", "01000", "+1000", "1e3", "0x3e8",
           "1000.0", "\u0661\u0660\u0660\u0660", "\uff11\uff10\uff10\uff10", "4294967295",
           "99999999999", "1000;id", "1000,1001"]
"""Values pkexec and sudo never write (they write a plain decimal uid): signs, spaces, leading
zeros, other digits (Arabic-Indic and full-width, which str.isdigit accepts), (uid_t)-1 and
past it, lists."""

UNKNOWN_CASES = [
    *(CallerCase(f"pkexec-uid-{i}-{value[:8].encode('unicode_escape').decode()}",
                 {"PKEXEC_UID": value}, 0, plan(_usermod(TESTER)), UNKNOWN)
      for i, value in enumerate(GARBAGE)),
    *(CallerCase(f"sudo-uid-{i}-{value[:8].encode('unicode_escape').decode()}",
                 {"SUDO_UID": value}, 0, plan(_usermod(TESTER)), UNKNOWN)
      for i, value in enumerate(GARBAGE[:6])),
    # the two launchers' variables disagree: one of them was carried in from elsewhere
    CallerCase("pkexec-and-sudo-disagree", {"PKEXEC_UID": "1000", "SUDO_UID": "1001"}, 0,
               plan(_usermod(TESTER)), UNKNOWN),
    CallerCase("pkexec-root-spoofed-beside-sudo", {"PKEXEC_UID": "0", "SUDO_UID": "1000"}, 0,
               plan(_usermod(OTHER)), UNKNOWN),
    CallerCase("sudo-root-spoofed-beside-pkexec", {"PKEXEC_UID": "1000", "SUDO_UID": "0"}, 0,
               plan(_usermod(OTHER)), UNKNOWN),
    # not root: nobody privileged set these, the user did (a --check run by hand)
    CallerCase("not-root-claims-root-pkexec", {"PKEXEC_UID": "0"}, TESTER_UID,
               plan(_usermod(OTHER)), UNKNOWN),
    CallerCase("not-root-claims-root-sudo", {"SUDO_UID": "0"}, TESTER_UID,
               plan(_usermod(OTHER)), UNKNOWN),
    CallerCase("not-root-claims-other-user", {"PKEXEC_UID": "1001"}, TESTER_UID,
               plan(_usermod(OTHER)), UNKNOWN),
    CallerCase("garbage-refuses-even-apt", {"PKEXEC_UID": "1000;id"}, 0,
               plan(command_step("update", "apt-get", "update")), UNKNOWN),
]


def caller_system(root: Path) -> Target:
    """The helper tests' small system, with a second regular account ``other`` (uid 1001)."""
    write_accounts(root)
    add_fixtures(root)
    with open(root / "etc/passwd", "a", encoding="utf-8") as passwd:
        passwd.write(f"{OTHER}:x:{OTHER_UID}:{OTHER_UID}:Other:/home/{OTHER}:/bin/bash\n")
    with open(root / "etc/group", "a", encoding="utf-8") as group:
        group.write(f"{OTHER}:x:{OTHER_UID}:\n")
    return Target(str(root))


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Target:
    return caller_system(tmp_path_factory.mktemp("caller-root"))


@pytest.fixture(scope="module")
def policy() -> Policy:
    return trusting_policy()


def _reasons(checked: helper.CheckedPlan) -> str:
    return "\n".join(r.reason for r in checked.refused)


def test_the_tables_are_unique() -> None:
    names = [c.name for c in [*OTHER_USER_CASES, *UNKNOWN_CASES]]
    assert len(set(names)) == len(names)


def test_pkexec_caller_may_not_add_another_user(
    target: Target, policy: Policy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The helper as pkexec starts it, the caller in its real environment: the group step for
    another account is refused (before: accepted for any regular account)."""
    monkeypatch.delenv("SUDO_UID", raising=False)
    monkeypatch.setenv("PKEXEC_UID", str(TESTER_UID))
    if os.getuid() != 0:
        pytest.skip("the helper sees PKEXEC_UID only as root")
    refused = helper.check(plan(_usermod(OTHER)), target, policy)
    assert not refused.ok and not refused.actions
    assert _reasons(refused) == (
        f"step groups: usermod: '{OTHER}' (uid {OTHER_UID}) is not the calling user (uid "
        f"{TESTER_UID}, from PKEXEC_UID); the helper adds only the user who asked to groups"
    )
    accepted = helper.check(plan(_usermod(TESTER)), target, policy)
    assert accepted.ok, _reasons(accepted)


@pytest.mark.parametrize("case", OTHER_USER_CASES, ids=[c.name for c in OTHER_USER_CASES])
def test_usermod_only_for_the_caller(case: CallerCase, target: Target, policy: Policy) -> None:
    checked = helper.check(case.payload, target, policy, environ=case.environ,
                           real_uid=case.real_uid)
    assert not checked.ok and not checked.actions
    assert case.reason in _reasons(checked), _reasons(checked)


@pytest.mark.parametrize("case", UNKNOWN_CASES, ids=[c.name for c in UNKNOWN_CASES])
def test_an_unknown_caller_refuses_the_plan(
    case: CallerCase, target: Target, policy: Policy
) -> None:
    checked = helper.check(case.payload, target, policy, environ=case.environ,
                           real_uid=case.real_uid)
    assert not checked.ok and not checked.actions
    [refusal] = checked.refused
    assert refusal.index is None and case.reason in refusal.reason, refusal.reason
    assert "\n" not in refusal.reason and len(refusal.reason) < 300


@pytest.mark.parametrize(
    ("environ", "real_uid", "user"),
    [
        ({"PKEXEC_UID": "1000"}, 0, TESTER),          # pkexec, the GUI's and the AppImage's route
        ({"SUDO_UID": "1001"}, 0, OTHER),             # sudo, the CLI's route
        ({"PKEXEC_UID": "1000", "SUDO_UID": "1000"}, 0, TESTER),
        ({}, 0, OTHER),                               # root's own call: any regular account
        ({"PKEXEC_UID": "0"}, 0, OTHER),              # root ran pkexec itself
        ({"SUDO_UID": "0"}, 0, TESTER),               # root ran sudo itself
        ({}, TESTER_UID, TESTER),                     # --check as the user, for the user
        ({"PKEXEC_UID": "1000"}, TESTER_UID, TESTER),
    ],
)
def test_the_callers_own_groups_are_accepted(
    environ: dict[str, str], real_uid: int, user: str, target: Target, policy: Policy
) -> None:
    """The controls: the same plans, for the account that called."""
    checked = helper.check(plan(pin_step(), _usermod(user)), target, policy, environ=environ,
                           real_uid=real_uid)
    assert checked.ok, _reasons(checked)
    assert [a.verb for a in checked.actions] == ["apt-pin", "usermod"]


def test_root_may_not_name_a_system_account(target: Target, policy: Policy) -> None:
    """Root's own call is still held to regular accounts."""
    checked = helper.check(plan(_usermod("daemon")), target, policy, environ={}, real_uid=0)
    assert "system account" in _reasons(checked)


# --------------------------------------------------------------------------------------------
# for real: the helper's own command line, as a user who is not root


def _nobody_python() -> list[str] | None:
    """setpriv dropping to nobody, in front of this Python (None where that cannot be had)."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        return None
    drop = [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    probe = subprocess.run([*drop, sys.executable, "-c", "import core.install.helper.main"],
                           capture_output=True, cwd=REPO_ROOT, timeout=60, check=False)
    return [*drop, sys.executable] if probe.returncode == 0 else None


@pytest.mark.parametrize("variable", ["PKEXEC_UID", "SUDO_UID"])
def test_a_user_claiming_to_be_root_is_refused(variable: str) -> None:
    """``python -m core.install.helper --check`` run by nobody with a root caller planted in its
    environment: refused as a whole, whatever the plan."""
    python = _nobody_python()
    if python is None:
        pytest.skip("needs root, setpriv and a Python that nobody may run")
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", variable: "0"}
    done = subprocess.run([*python, "-m", "core.install.helper", "--check"],
                          input=plan(command_step("update", "apt-get", "update")),
                          capture_output=True, cwd=REPO_ROOT, env=env, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    answer = json.loads(done.stdout)
    assert answer["ok"] is False
    assert answer["refused"][0]["reason"] == (
        f"cannot tell who called the helper: {variable} says uid 0, but the helper runs as uid "
        f"{NOBODY} (only pkexec and sudo, as root, say who called)"
    )


# --------------------------------------------------------------------------------------------
# polkit: no kept grant


def test_polkit_asks_for_the_password_every_time() -> None:
    """``auth_admin_keep`` would let any process of the session start the helper again, without
    a prompt, for about five minutes; every default is ``auth_admin`` (or stricter)."""
    tree = ET.parse(POLICY_FILE)
    [action] = tree.getroot().findall("action")
    defaults = action.find("defaults")
    assert defaults is not None
    answers = {child.tag: (child.text or "").strip() for child in defaults}
    assert answers == {"allow_any": "auth_admin", "allow_inactive": "auth_admin",
                       "allow_active": "auth_admin"}
    assert not [e.tag for e in tree.iter() if "_keep" in (e.text or "")]  # comments aside


COUNTING_HELPER = textwrap.dedent(
    """\
    import json, sys
    with open(sys.argv[1], "a") as starts:
        starts.write("started\\n")
    doc = json.loads(sys.stdin.readline())
    for s in doc["steps"]:
        for status in ("start", "done"):
            print(json.dumps({"event": "step", "id": s["id"], "verb": "x", "status": status}))
    print(json.dumps({"event": "done", "ok": True, "error": None}), flush=True)
    """
)


def test_one_set_up_starts_the_helper_once(tmp_path: Path) -> None:
    """Nothing relies on a kept grant: every root step of a set-up (and of a resumed one) goes
    to one start of the helper, so one prompt covers them all without ``auth_admin_keep``."""
    starts = tmp_path / "starts"
    script = tmp_path / "helper.py"
    script.write_text(COUNTING_HELPER)
    steps = tuple(
        Step(step_id, step_id, step_id, privileged=True, kind="command", argv=argv)
        for step_id, argv in (
            ("apt-update", ("apt-get", "update")),
            ("apt-install", ("apt-get", "install", "-y", "rocm")),
            ("groups", ("usermod", "-aG", "render,video", TESTER)),
        )
    )
    plan_ = Plan(strategy="rocm-apt", rocm="7.2", torch_index=None, steps=steps)
    events: list[dict[str, object]] = []
    argv = [sys.executable, str(script), str(starts), "--cancel-on-eof"]
    ok = asyncio.run(Runner(plan_, events.append, argv, folder=tmp_path / "state").run())
    assert ok, events[-1]
    assert starts.read_text().splitlines() == ["started"]
    done = [e["id"] for e in events if e.get("event") == "step" and e.get("status") == "done"]
    assert done == ["apt-update", "apt-install", "groups"]


# --------------------------------------------------------------------------------------------
# for real, as root, in a throwaway Debian root: the environment pkexec and sudo give the helper


@pytest.fixture(scope="module")
def caller_root(
    debian_root: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    with copy_root(debian_root, tmp_path_factory.mktemp("caller") / "copy") as root:
        install_rocmate(root)
        add_accounts_in_chroot(root)
        chroot(root, "useradd", "--create-home", "--uid", str(OTHER_UID), OTHER)
        yield root


def _members(root: Path, group: str) -> list[str]:
    for line in (root / "etc/group").read_text().splitlines():
        name, _, _, members = line.split(":")
        if name == group:
            return [m for m in members.split(",") if m]
    raise AssertionError(f"no group {group}")


@pytest.mark.root
@pytest.mark.parametrize("variable", ["PKEXEC_UID", "SUDO_UID"])
def test_the_real_helper_adds_only_its_caller(variable: str, caller_root: Path) -> None:
    """The helper as pkexec or sudo leaves it, for real: the other account's group step is
    refused and runs nothing; the caller's own is carried out."""
    root = caller_root
    caller = {variable: str(TESTER_UID)}
    refused = run_helper(root, plan(_usermod(OTHER)), caller=caller)
    assert refused.code == 2, refused.stdout + refused.stderr
    assert [e["event"] for e in refused.events] == ["refused", "done"]
    assert NOT_CALLER in refused.events[-1]["error"]
    assert OTHER not in _members(root, "render") + _members(root, "video")

    check = run_helper(root, plan(_usermod(TESTER)), "--check", caller=caller)
    assert (check.code, json.loads(check.stdout)) == (0, {"ok": True}), check.stderr
    done = run_helper(root, plan(_usermod(TESTER)), caller=caller)
    assert done.code == 0, done.stdout + done.stderr
    assert TESTER in _members(root, "render") and TESTER in _members(root, "video")
    assert OTHER not in _members(root, "render") + _members(root, "video")
