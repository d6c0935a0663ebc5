"""The root helper acts only for its caller, and polkit keeps no grant: two hostile families of
``make faults`` (issue 30, item 2).

* "caller: usermod for another account": a plan whose group step names another regular account
  than the one pkexec (``PKEXEC_UID``) or sudo (``SUDO_UID``) says called, or than the helper's
  own uid when it is not root (tests/install/test_helper_caller.py's OTHER_USER_CASES);
* "caller: uid missing, garbage or spoofed": a launcher variable that is not a plain uid, the
  two variables disagreeing, a user who is not root claiming to be root or someone else
  (UNKNOWN_CASES). Every plan is refused then, even one without a group step;
* "polkit: kept grant": each of the action's defaults (allow_any, allow_inactive, allow_active)
  asked for a grant that other processes of the session could reuse (``*_keep``, ``yes``); the
  shipped file answers ``auth_admin`` to all three, and one set-up starts the helper once
  (tests/install/test_helper_caller.py's test_one_set_up_starts_the_helper_once), so nothing
  needs a kept grant.

Each case is checked in-process (``check`` with the environment and real uid given), and a
sample of each caller family is sent for real, as root, inside a throwaway Debian root with the
variables set as pkexec and sudo would: refused, having started no process and written no file.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.install.helper import main as helper
from core.install.helper.target import Policy, Target
from tests.faults.ledger import Ledger
from tests.install.support import (
    add_accounts_in_chroot,
    chroot,
    copy_root,
    install_rocmate,
    run_helper,
    snapshot,
    trusting_policy,
)
from tests.install.test_helper_caller import (
    OTHER,
    OTHER_UID,
    OTHER_USER_CASES,
    POLICY_FILE,
    UNKNOWN_CASES,
    CallerCase,
    caller_system,
)

OTHER_FAMILY = "caller: usermod for another account"
UNKNOWN_FAMILY = "caller: uid missing, garbage or spoofed"
POLKIT_FAMILY = "polkit: kept grant"
KEPT = ("auth_admin_keep", "auth_self_keep", "yes")
"""What a default may not answer: a kept grant (reusable by the session) or no prompt at all."""
WATCHED = ("etc", "home", "var/lib/dpkg")


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Target:
    return caller_system(tmp_path_factory.mktemp("caller-faults"))


@pytest.fixture(scope="module")
def policy() -> Policy:
    return trusting_policy()


def _refused(case: CallerCase, target: Target, policy: Policy) -> bool:
    checked = helper.check(case.payload, target, policy, environ=case.environ,
                           real_uid=case.real_uid)
    reasons = "\n".join(r.reason for r in checked.refused)
    return not checked.ok and not checked.actions and case.reason in reasons


def test_usermod_for_another_account(target: Target, policy: Policy, ledger: Ledger) -> None:
    for case in OTHER_USER_CASES:
        ledger.tried(OTHER_FAMILY, case.name)
        assert _refused(case, target, policy), case.name


def test_unknown_caller(target: Target, policy: Policy, ledger: Ledger) -> None:
    for case in UNKNOWN_CASES:
        ledger.tried(UNKNOWN_FAMILY, case.name)
        assert _refused(case, target, policy), case.name


def test_no_kept_polkit_grant(ledger: Ledger) -> None:
    defaults = ET.parse(POLICY_FILE).getroot().find("action/defaults")
    assert defaults is not None
    for tag in ("allow_any", "allow_inactive", "allow_active"):
        for answer in KEPT:
            ledger.tried(POLKIT_FAMILY, f"{tag}={answer}")
            element = defaults.find(tag)
            assert element is not None and (element.text or "").strip() == "auth_admin", tag


# --------------------------------------------------------------------------------------------
# a sample for real, as root, in a throwaway Debian root


@pytest.fixture(scope="module")
def caller_root(
    debian_root: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    with copy_root(debian_root, tmp_path_factory.mktemp("caller-faults") / "copy") as root:
        install_rocmate(root)
        add_accounts_in_chroot(root)
        chroot(root, "useradd", "--create-home", "--uid", str(OTHER_UID), OTHER)
        yield root


SAMPLE = [c for c in [*OTHER_USER_CASES, *UNKNOWN_CASES] if c.real_uid == 0][::3]
"""Every third root case (the others need a helper that is not root)."""


@pytest.mark.root
def test_a_sample_for_real(caller_root: Path, ledger: Ledger) -> None:
    before = snapshot(caller_root, WATCHED)
    for case in SAMPLE:
        family = OTHER_FAMILY if case in OTHER_USER_CASES else UNKNOWN_FAMILY
        ledger.tried(family, case.name + " (for real)")
        run = run_helper(caller_root, case.payload, caller=dict(case.environ))
        assert run.code == 2, (case.name, run.stdout, run.stderr)
        assert [e["event"] for e in run.events] == ["refused", "done"], case.name
        assert case.reason in run.events[-1]["error"], case.name
    assert snapshot(caller_root, WATCHED) == before
