"""The helper's parts on their own: the launcher command, the key parser, the file transaction,
the child runner, and a run on a fake system that fails and rolls back (no chroot needed)."""

from __future__ import annotations

import ast
import base64
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from core.install.helper import main as helper
from core.install.helper.exec import ChildResult, run_child
from core.install.helper.files import FileFailed, Transaction
from core.install.helper.openpgp import KeyFormatError, dearmor, parse_key
from core.install.helper.target import Policy, Target
from core.install.helper.validate import AptPackages, WriteFile, check_input
from core.install.privilege import explain_exit, helper_command
from core.knowledge.loader import load_knowledge
from tests.install.support import (
    TRUSTED_FPR,
    TRUSTED_KEY,
    armor,
    command_step,
    events,
    keyring_step,
    pin_step,
    plan,
    source_line,
    source_step,
    step_statuses,
)

AMD_URI = "https://repo.radeon.com/rocm/apt/6.2"
PY = "/usr/bin/python3"


# --------------------------------------------------------------------------------------------
# privilege.py


@pytest.mark.parametrize(
    ("appimage", "via", "expected"),
    [
        (None, "pkexec", ["pkexec", PY, "-I", "-m", "core.install.helper"]),
        (None, "sudo", ["sudo", PY, "-I", "-m", "core.install.helper"]),
        (None, "direct", [PY, "-I", "-m", "core.install.helper"]),
        ("/home/u/rocmate.AppImage", "pkexec", ["pkexec", "/home/u/rocmate.AppImage", "helper"]),
        ("/home/u/rocmate.AppImage", "sudo", ["sudo", "/home/u/rocmate.AppImage", "helper"]),
        ("/home/u/rocmate.AppImage", "direct", ["/home/u/rocmate.AppImage", "helper"]),
    ],
)
def test_helper_command(appimage: str | None, via: Any, expected: list[str]) -> None:
    assert helper_command(PY, appimage, via) == expected


def test_helper_command_launcher_and_errors() -> None:
    launcher = "/usr/libexec/rocmate-helper"
    assert helper_command(PY, None, "pkexec", launcher=launcher) == ["pkexec", launcher]
    assert helper_command(PY, None, "sudo", launcher=launcher)[:2] == ["sudo", PY]
    with pytest.raises(ValueError):
        helper_command("python3", None, "pkexec")
    with pytest.raises(ValueError):
        helper_command(PY, "rocmate.AppImage", "pkexec")
    with pytest.raises(ValueError):
        helper_command(PY, None, "su")  # type: ignore[arg-type]


def test_explain_exit() -> None:
    assert explain_exit(126, "pkexec") == "You dismissed the password prompt; nothing was changed."
    assert explain_exit(127, "/usr/bin/pkexec") == (
        "Not authorised (no polkit agent running, or your account may not administer this "
        "machine)"
    )
    assert explain_exit(126, "sudo") is None
    assert explain_exit(1, "pkexec") is None
    assert explain_exit(0, "direct") is None


def test_polkit_policy_file() -> None:
    text = (Path(__file__).resolve().parents[2] / "resources/polkit/org.rocmate.helper.policy")
    content = text.read_text()
    assert '<action id="org.rocmate.helper">' in content
    assert "<allow_active>auth_admin</allow_active>" in content
    assert ">/usr/libexec/rocmate-helper</annotate>" in content


def _imports(path: Path) -> set[str]:
    """Every module a file imports (``from a import b`` counts as a and a.b)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


# The only part of the helper another module may import: its public policy (the plan schema,
# the files it may write, the packages it may purge, the user-name rule), which the planner
# builds plans from.
PUBLIC = "core.install.helper.policy"


ENTRY_POINTS = {"gui/frozen.py": {"core.install.helper.main"}}
"""Who may start the helper besides ``python -m core.install.helper``: the packaged program's
entry point, which is what ``pkexec "$APPIMAGE" helper`` runs as root."""


def test_nothing_else_imports_the_helper() -> None:
    root = Path(__file__).resolve().parents[2]
    offenders = []
    for folder in ("core", "gui"):
        for path in (root / folder).rglob("*.py"):
            if root / "core/install/helper" in path.parents:
                continue
            allowed = ENTRY_POINTS.get(path.relative_to(root).as_posix(), set())
            helper_parts = {m for m in _imports(path) if m.startswith("core.install.helper")
                            and not m.startswith(PUBLIC) and m != "core.install.helper"
                            and not any(m == a or m.startswith(a + ".") for a in allowed)}
            if helper_parts:
                offenders.append(f"{path}: {sorted(helper_parts)}")
    assert offenders == []


def test_no_shell_in_core_install() -> None:
    root = Path(__file__).resolve().parents[2] / "core/install"
    banned = ("shell" + "=True", "os." + "system", "os." + "popen")
    for path in root.glob("*.py"):
        text = path.read_text().replace(" ", "")
        assert not [b for b in banned if b in text], path


# --------------------------------------------------------------------------------------------
# OpenPGP


def test_armoured_and_binary_give_the_same_keyring() -> None:
    assert parse_key(armor(TRUSTED_KEY).encode()).binary == TRUSTED_KEY
    assert parse_key(TRUSTED_KEY).fingerprint == TRUSTED_FPR
    assert dearmor(armor(TRUSTED_KEY).replace("\n", "\r\n")) == TRUSTED_KEY


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "empty"),
        (b"\x99\x00", "truncated packet header"),
        (b"\x99\x00\x10abc", "runs past the end"),
        (b"\x00garbage", "not an OpenPGP packet"),
        (TRUSTED_KEY[:-3], "runs past the end"),
        (b"-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nAAAA\n", "does not end with"),
        (b"-----BEGIN PGP PRIVATE KEY BLOCK-----\n", "does not start with"),
    ],
)
def test_bad_keys(data: bytes, reason: str) -> None:
    with pytest.raises(KeyFormatError, match=reason):
        parse_key(data)


@pytest.mark.skipif(shutil.which("gpg") is None, reason="gpg is not installed")
def test_fingerprint_agrees_with_gpg(tmp_path: Path) -> None:
    """A real key with a subkey: the parser's fingerprint is gpg's."""
    home = tmp_path / "gnupg"
    home.mkdir(mode=0o700)
    env = {"GNUPGHOME": str(home), "PATH": "/usr/bin:/bin"}
    gpg = ["gpg", "--batch", "--quiet", "--pinentry-mode", "loopback", "--passphrase", ""]
    subprocess.run([*gpg, "--quick-gen-key", "unit <unit@example.invalid>", "ed25519", "cert",
                    "never"], env=env, check=True, capture_output=True)
    listing = subprocess.run(["gpg", "--with-colons", "--list-keys"], env=env, check=True,
                             capture_output=True, text=True).stdout
    fpr = next(line.split(":")[9] for line in listing.splitlines() if line.startswith("fpr"))
    subprocess.run([*gpg, "--quick-add-key", fpr, "cv25519", "encr", "never"], env=env,
                   check=True, capture_output=True)
    exported = subprocess.run(["gpg", "--export", "--armor", fpr], env=env, check=True,
                              capture_output=True).stdout
    key = parse_key(exported)
    assert key.fingerprint == fpr
    assert key.packets >= 5  # key, user id, signature, subkey, binding signature


# --------------------------------------------------------------------------------------------
# on a fake system


def test_binary_keyring_step(fake: Target, policy: Policy) -> None:
    armoured = check_input(plan(keyring_step(TRUSTED_KEY, TRUSTED_FPR)), fake, policy)
    binary = check_input(plan(keyring_step(TRUSTED_KEY, TRUSTED_FPR.lower(), b64=True)), fake,
                         policy)
    assert armoured.ok and binary.ok
    first, second = armoured.actions[0], binary.actions[0]
    assert isinstance(first, WriteFile) and isinstance(second, WriteFile)
    assert first.data == second.data == TRUSTED_KEY
    assert second.fingerprint == TRUSTED_FPR


def test_runner_document_is_accepted(fake: Target, policy: Policy) -> None:
    """What core/install/runner.py sends: kind, after, mode, source_url and content_b64."""
    key = keyring_step(TRUSTED_KEY, TRUSTED_FPR, b64=True)
    key["file"]["source_url"] = "https://repo.radeon.com/rocm/rocm.gpg.key"
    doc = plan(key, source_step(source_line(AMD_URI)), pin_step(),
               command_step("apt-update", "apt-get", "update"))
    assert check_input(doc, fake, policy).ok


def test_transaction_write_unchanged_and_rollback(fake: Target) -> None:
    root = Path(fake.root)
    pin = root / "etc/apt/preferences.d/rocm-pin-600"
    pin.write_text("old\n")
    os.chmod(pin, 0o600)
    tx = Transaction(fake)
    assert tx.write("/etc/apt/preferences.d/rocm-pin-600", b"new\n") == "done"
    assert pin.read_text() == "new\n" and pin.stat().st_mode & 0o777 == 0o644
    assert tx.write("/etc/apt/keyrings/a.gpg", b"key") == "done"
    assert Transaction(fake).write("/etc/apt/keyrings/a.gpg", b"key") == "unchanged"
    shutil.rmtree(root / "etc/apt/sources.list.d")
    assert tx.write("/etc/apt/sources.list.d/rocm.list", b"deb\n") == "done"
    undone = tx.rollback()
    assert undone == [
        "removed /etc/apt/sources.list.d/rocm.list", "removed folder /etc/apt/sources.list.d",
        "removed /etc/apt/keyrings/a.gpg", "restored /etc/apt/preferences.d/rocm-pin-600",
    ]
    assert pin.read_text() == "old\n" and pin.stat().st_mode & 0o777 == 0o600
    assert not (root / "etc/apt/keyrings/a.gpg").exists()
    assert not (root / "etc/apt/sources.list.d").exists()
    assert sorted(p.name for p in (root / "etc/apt/keyrings").iterdir()) == []


def test_transaction_never_writes_through_a_link(fake: Target) -> None:
    root = Path(fake.root)
    secret = root / "secret"
    secret.write_text("keep\n")
    (root / "etc/apt/keyrings/rocm.gpg").symlink_to(secret)
    with pytest.raises(FileFailed, match="symbolic link"):
        Transaction(fake).write("/etc/apt/keyrings/rocm.gpg", b"key")
    (root / "etc/apt/keyrings/rocm.gpg").unlink()
    shutil.rmtree(root / "etc/apt/keyrings")
    (root / "etc/apt/keyrings").symlink_to(root / "tmp")  # a folder swapped for a link
    with pytest.raises(FileFailed, match="symbolic link"):
        Transaction(fake).write("/etc/apt/keyrings/rocm.gpg", b"key")
    assert secret.read_text() == "keep\n" and not (root / "tmp/rocm.gpg").exists()


def test_failed_run_rolls_back_its_files(fake: Target, policy: Policy) -> None:
    """Keyring and pin are written, the source step then fails (its folder was swapped for a
    symbolic link after the checks): both go again, and nothing is written through the link."""
    root = Path(fake.root)
    doc = plan(keyring_step(TRUSTED_KEY, TRUSTED_FPR), pin_step(),
               source_step(source_line(AMD_URI)))
    checked = check_input(doc, fake, policy)
    assert checked.ok
    shutil.rmtree(root / "etc/apt/sources.list.d")
    (root / "etc/apt/sources.list.d").symlink_to(root / "tmp")
    out: list[dict[str, Any]] = []
    assert helper.run_plan(checked, out.append, fake) == 1
    statuses = step_statuses(out)
    assert statuses == {"apt-keyring": "done", "apt-pin": "done", "apt-source": "failed"}
    done = out[-1]
    assert done["event"] == "done" and done["ok"] is False and done["failed_step"] == "apt-source"
    assert "/etc/apt/sources.list.d goes through a symbolic link" in done["error"]
    assert done["rolled_back"] == [
        "removed /etc/apt/preferences.d/rocm-pin-600", "removed /etc/apt/keyrings/rocm.gpg",
    ]
    for folder in ("keyrings", "preferences.d"):
        assert list((root / "etc/apt" / folder).iterdir()) == []
    assert list((root / "tmp").iterdir()) == []


def test_commands_refuse_a_fake_root(fake: Target, policy: Policy) -> None:
    checked = check_input(plan(command_step("u", "apt-get", "update")), fake, policy)
    with pytest.raises(ValueError, match="real root"):
        helper.run_plan(checked, lambda e: None, fake)


# --------------------------------------------------------------------------------------------
# children and the command line


def test_run_child_streams_percent_and_times_out() -> None:
    out: list[dict[str, Any]] = []
    script = "print('Progress: [ 42%]', flush=True); import time; time.sleep(30)"
    result = run_child([sys.executable, "-c", script], "s", out.append, timeout=1.5)
    assert result.timed_out and result.code == 124
    assert {"event": "output", "id": "s", "line": "Progress: [ 42%]", "percent": 42} in out


def test_run_child_status_fd() -> None:
    out: list[dict[str, Any]] = []
    script = (
        "import os, sys; fd = int(sys.argv[1]);"
        "os.write(fd, b'dlstatus:1:9.0909:Retrieving file 1 of 11\\npmstatus:rocm-core:50:"
        "Unpacking rocm-core\\n'); print('env', sorted(os.environ))"
    )
    result = run_child([sys.executable, "-c", script, "{status_fd}"], "s", out.append,
                       timeout=30, status_fd=True)
    assert result.code == 0
    progress = [e for e in out if e["event"] == "progress"]
    assert progress == [
        {"event": "progress", "id": "s", "phase": "download", "percent": 9.1,
         "message": "Retrieving file 1 of 11"},
        {"event": "progress", "id": "s", "phase": "install", "percent": 50.0,
         "message": "Unpacking rocm-core"},
    ]
    env_line = next(e["line"] for e in out if e["event"] == "output")
    assert env_line == "env ['DEBIAN_FRONTEND', 'HOME', 'LANG', 'LC_ALL', 'PATH']"


def _has_option(argv: list[str], command: str, option: list[str]) -> bool:
    """``option`` (an "-o", "KEY=VALUE" pair) stands among apt's options before ``command``."""
    options = argv[1:argv.index(command)]
    return any(options[i:i + 2] == option for i in range(len(options) - 1))


def test_apt_argv_waits_for_the_dpkg_lock(fake: Target, policy: Policy) -> None:
    wait = ["-o", "DPkg::Lock::Timeout=120"]
    assert helper.APT_LOCK_WAIT_S == 120
    install = helper.apt_packages_argv(
        AptPackages("i", "t", packages=("rocm-core",), no_recommends=True))
    purge = helper.apt_packages_argv(AptPackages("p", "t", packages=("rocm-core",), purge=True))
    update = helper.apt_update_argv()
    for argv, command in ((install, "install"), (purge, "purge"), (update, "update")):
        assert argv[0] == "apt-get" and _has_option(argv, command, wait), argv
    assert install[install.index("install"):] == [
        "install", "-y", "--no-remove", "--no-install-recommends", "--", "rocm-core"]
    assert purge[purge.index("purge"):] == ["purge", "-y", "--", "rocm-core"]
    # The wait is the helper's own; a plan still cannot bring any apt option.
    sneaky = plan(command_step("i", "apt-get", "-o", "DPkg::Lock::Timeout=-1", "install", "-y",
                               "rocm-core"))
    result = check_input(sneaky, fake, policy)
    assert not result.ok and "apt-get '-o' is not allowed" in result.refused[0].reason


UNATTENDED = [  # Ubuntu, while unattended-upgrades installs (apt names the holder)
    "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 1234 "
    "(unattended-upgr)",
    "N: Be aware that removing the lock file is not a solution and may break your system.",
    "E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), is another "
    "process using it?",
]
WAITED = [  # apt 2.6 after -o DPkg::Lock::Timeout ran out
    "Waiting for cache lock: Could not get lock /var/lib/dpkg/lock. It is held by process 977 "
    "(apt-get)... 119s",
    "E: Unable to lock the administration directory (/var/lib/dpkg/), is another process "
    "using it?",
]
LISTS = [  # apt-get update while apt-daily refreshes the lists
    "Reading package lists...",
    "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 17074",
    "E: Unable to lock directory /var/lib/apt/lists/",
]


@pytest.mark.parametrize(
    ("code", "lines", "expected"),
    [
        (100, UNATTENDED, helper.AptLock("/var/lib/dpkg/lock-frontend", 1234, "unattended-upgr")),
        (100, WAITED, helper.AptLock("/var/lib/dpkg/lock", 977, "apt-get")),
        (100, LISTS, helper.AptLock("/var/lib/apt/lists/lock", 17074)),
        (100, LISTS[2:], helper.AptLock("/var/lib/apt/lists/")),
        (100, WAITED[1:], helper.AptLock("/var/lib/dpkg/")),
        (100, ["E: Could not get lock /var/lib/dpkg/lock. It is held by process 5 (a\x1b[2Jb)",
               "E: Unable to lock the administration directory (/var/lib/dpkg/)"],
         helper.AptLock("/var/lib/dpkg/lock", 5, "a?[2Jb")),
        (100, [*WAITED[:1], "E: Unable to locate package rocm-core"], None),  # waited, then failed
        (0, WAITED[:1], None),  # waited, then worked
    ],
    ids=["unattended", "waited", "lists", "lists-no-holder", "admin-no-holder", "control-chars",
         "other-failure", "success"],
)
def test_apt_lock_is_read_from_apt_words(
    code: int, lines: list[str], expected: helper.AptLock | None
) -> None:
    assert helper.apt_lock(ChildResult(code, all_lines=list(lines))) == expected


def test_apt_lock_messages() -> None:
    held = helper.AptLock("/var/lib/dpkg/lock-frontend", 1234, "unattended-upgr")
    assert held.message(120) == (
        "another package manager is running (process 1234 (unattended-upgr) holds "
        "/var/lib/dpkg/lock-frontend) and did not finish within 120 s; wait for it to finish, "
        "then try again"
    )
    assert helper.AptLock("/var/lib/apt/lists/").message(None) == (
        "another package manager is running (/var/lib/apt/lists/ is held); wait for it to "
        "finish, then try again"
    )


def test_main_refuses_without_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    out = io.StringIO()
    code = helper.main([], stdin=io.BytesIO(plan(command_step("u", "apt-get", "update"))),
                       stdout=out)
    assert code == 3
    assert events(out.getvalue()) == [
        {"event": "done", "ok": False, "error": "the helper must run as root"}
    ]


def test_main_refused_events() -> None:
    out = io.StringIO()
    code = helper.main([], stdin=io.BytesIO(b"\xff"), stdout=out)
    evs = events(out.getvalue())
    assert code == 2 and [e["event"] for e in evs] == ["refused", "done"]
    assert "not UTF-8" in evs[1]["error"]


def test_check_of_empty_privileged_part_is_ok() -> None:
    out = io.StringIO()
    doc = json.dumps({"schema": "rocmate.plan/1", "strategy": "pip-only", "steps": [
        {"id": "venv", "privileged": False, "title": "venv", "explain": "",
         "argv": ["python3", "-c", "print('a; b')"]},
    ]}).encode()
    assert helper.main(["--check"], stdin=io.BytesIO(doc), stdout=out) == 0
    assert json.loads(out.getvalue()) == {"ok": True}


def test_b64_is_strict(fake: Target, policy: Policy) -> None:
    step = keyring_step(TRUSTED_KEY, TRUSTED_FPR, b64=True)
    step["file"]["content_b64"] = base64.b64encode(TRUSTED_KEY).decode() + "!"
    result = check_input(plan(step), fake, policy)
    assert not result.ok and "not valid base64" in result.refused[0].reason


def test_deb822_source_is_accepted(fake: Target, policy: Policy) -> None:
    content = (
        "# AMD ROCm 6.2\n"
        "Types: deb\nURIs: https://repo.radeon.com/rocm/apt/6.2\nSuites: noble\n"
        "Components: main\nArchitectures: amd64\nSigned-By: /etc/apt/keyrings/rocm.gpg\n\n"
        "Types: deb\nURIs: https://repo.radeon.com/rocm/apt/6.2.4\nSuites: noble\n"
        "Components: main\nArchitectures: amd64\nSigned-By: /etc/apt/keyrings/rocm.gpg\n"
    )
    doc = plan(keyring_step(TRUSTED_KEY, TRUSTED_FPR), source_step(content, name="rocm.sources"))
    result = check_input(doc, fake, policy)
    assert result.ok, result.refused
    assert result.source_uris == (
        "https://repo.radeon.com/rocm/apt/6.2", "https://repo.radeon.com/rocm/apt/6.2.4",
    )


def test_shipped_policy() -> None:
    shipped = Policy.from_knowledge(load_knowledge())
    # repo.radeon.com's key, and the Core SDK's (stable.repo.amd.com) pinned in the 10.x rows
    assert shipped.trusted_fingerprints == {"CA8BB4727A47B4D09B4EE8969386B48A1A693C5C",
                                            "D0F004A0025A1145C7807FCD0701EAC4D5E02107"}
    # (not repo.radeon.com/amdgpu/: only the retired amdgpu-install route wrote it)
    assert shipped.uri_prefixes == ("https://repo.radeon.com/rocm/apt/",
                                    "https://stable.repo.amd.com/rocm/core/packages/")
    assert shipped.pin_origins == {"repo.radeon.com"}
    assert {"jammy", "noble", "focal", "stable"} <= shipped.suites
    assert shipped.key_urls == {"https://repo.radeon.com/rocm/rocm.gpg.key",
                                "https://stable.repo.amd.com/rocm/gpg/packages.gpg"}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('trusted_fingerprints = ["ca8bb4727a47b4d09b4ee8969386b48a1a693c5c"]', "40 uppercase"),
        ('apt_uri_prefixes = ["http://repo.radeon.com/rocm/apt/"]', "https:// URI prefix"),
        ('apt_uri_prefixes = ["https://repo.radeon.com/rocm/apt"]', "https:// URI prefix"),
        ('apt_uri_prefixes = ["https://repo.radeon.com/../x/"]', "https:// URI prefix"),
        ('pin_origins = ["repo.radeon.com; rm"]', "a host name"),
        ('trusted_keys = []', "unknown key"),
    ],
)
def test_repository_table_is_checked(tmp_path: Path, line: str, message: str) -> None:
    from core.knowledge.loader import KnowledgeError
    from core.resources import data_dir as default_data_dir

    data = tmp_path / "data"
    shutil.copytree(default_data_dir(), data)
    toml = data / "rocm.toml"
    key = line.split(" = ")[0]
    lines = [ln for ln in toml.read_text().splitlines() if not ln.startswith(key + " = ")]
    index = lines.index("[repository]")
    toml.write_text("\n".join([*lines[:index + 1], line, *lines[index + 1:]]) + "\n")
    with pytest.raises(KnowledgeError, match=message):
        load_knowledge(data)


def test_loopback_prefix_is_allowed_for_tests(tmp_path: Path) -> None:
    from core.resources import data_dir as default_data_dir

    data = tmp_path / "data"
    shutil.copytree(default_data_dir(), data)
    toml = data / "rocm.toml"
    toml.write_text(toml.read_text().replace(
        "apt_uri_prefixes = [", 'apt_uri_prefixes = ["http://127.0.0.1:8080/repo/", '))
    assert load_knowledge(data).repository.apt_uri_prefixes[0] == "http://127.0.0.1:8080/repo/"
