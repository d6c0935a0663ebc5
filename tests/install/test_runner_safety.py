"""The runner against helpers that misbehave, for real: a root helper the user cannot signal (a
setuid-root copy of setpriv stands in for sudo/pkexec, the runner runs as nobody), which the real
helper's --cancel-on-eof still lets the user cancel; one that is killed, one whose start fails;
the key download's errors; and the route to root (fixed paths for sudo/pkexec, no $APPIMAGE,
only a root-owned installation is run as root, with --cancel-on-eof)."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import http.client
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from core.install import runner as runner_module
from core.install.plan import FileSpec, Plan, Step
from core.install.privilege import (
    CANCEL_ON_EOF,
    find_tool,
    helper_files,
    helper_route,
    root_problems,
)
from core.install.runner import Runner, helper_limit
from tests.install.support import (
    add_accounts_in_chroot,
    install_rocmate,
    pin_content,
    processes_in,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
NOBODY = 65534
APT_STEP = Step(
    "apt-install",
    "Install ROCm 7.2 (runtime)",
    "x",
    privileged=True,
    argv=("apt-get", "install", "-y", "--no-install-recommends", "rocm-hip-runtime"),
)

# A stand-in for core/install/helper/: reads the plan, prints the helper's JSON events and
# many apt-like lines (far more than a pipe holds). Modes:
#   finish  as a helper without --cancel-on-eof: reads stdin to its end, cannot hear a cancel,
#           finishes its step
#   stuck   never finishes and hears nothing; stops only when its output pipe is closed
# (With --cancel-on-eof the real helper is used: test_cancel_on_eof_stops_a_root_helper.)
FAKE_HELPER = textwrap.dedent(
    """\
    import json, os, sys, time
    mode, pidfile, record = sys.argv[1], sys.argv[2], sys.argv[3]
    data = sys.stdin.buffer.read()
    with open(record, "wb") as f:
        f.write(data)
    with open(pidfile, "w") as f:
        f.write(str(os.getpid()))
    plan = json.loads(data)

    def emit(event):
        sys.stdout.write(json.dumps(event) + "\\n")
        sys.stdout.flush()

    def line(i):
        emit({"event": "output", "id": "apt-install",
              "line": f"Unpacking rocm-lib-{i} (7.2.0.70200-43~24.04) over (7.2.0) ..."})

    emit({"event": "plan", "steps": [{"id": s["id"], "verb": "apt-install"}
                                     for s in plan["steps"]]})
    emit({"event": "step", "id": "apt-install", "verb": "apt-install", "status": "start"})
    emit({"event": "output", "id": "apt-install", "line": f"running as uid {os.geteuid()}"})
    if mode == "finish":
        for i in range(LINES):
            line(i)
            if i == 100:
                time.sleep(1.0)  # the cancel lands here, with most of the output still to come
        emit({"event": "step", "id": "apt-install", "verb": "apt-install", "status": "done"})
        emit({"event": "done", "ok": True, "error": None})
        sys.exit(0)
    start, i = time.monotonic(), 0
    while time.monotonic() - start < 120:
        line(i)
        i += 1
        time.sleep(0.002)
    sys.exit(5)
    """
)
LINES = 20000
PIN_TEXT = pin_content()

# The runner, as nobody, in its own process; its events as JSON lines on stdout. It cancels
# after ``cancel_after`` output events, or (``cancel_on_usr1``) when it gets SIGUSR1, as a user's
# Cancel would; ``pin`` puts a file step (AMD's apt pin) before the install.
DRIVER = textwrap.dedent(
    """\
    import asyncio, json, signal, sys
    cfg = json.loads(sys.argv[1])
    sys.path.insert(0, cfg["repo"])
    from core.install.plan import FileSpec, Plan, Step
    from core.install.runner import Runner
    apt = Step("apt-install", "Install ROCm 7.2 (runtime)", "x", privileged=True,
               argv=("apt-get", "install", "-y", "--no-install-recommends", "rocm-hip-runtime"))
    user = Step("venv", "venv", "x", argv=(sys.executable, "-c", "pass"))
    pin = Step("apt-pin", "Pin AMD's repository", "pin", privileged=True, kind="file",
               file=FileSpec("/etc/apt/preferences.d/rocm-pin-600", content=cfg.get("pin", "")))
    steps = (pin, apt, user) if cfg.get("pin") else (apt, user)
    plan = Plan(strategy="rocm-apt", rocm="7.2", torch_index=None, steps=steps)
    seen = [0]

    def emit(event):
        print(json.dumps(event), flush=True)
        if event.get("event") == "output":
            seen[0] += 1
            if seen[0] == cfg["cancel_after"]:
                runner.cancel()

    runner = Runner(plan, emit, cfg["helper"], folder=__import__("pathlib").Path(cfg["state"]))
    if cfg.get("limit"):
        runner.helper_limit_s = cfg["limit"]
    if cfg.get("grace"):
        runner.stop_grace_s = cfg["grace"]

    async def main():
        if cfg.get("cancel_on_usr1"):
            asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, runner.cancel)
        print(json.dumps({"event": "driver-ready"}), flush=True)
        return await runner.run()

    sys.exit(0 if asyncio.run(main()) else 1)
    """
)


@pytest.fixture
def as_nobody() -> Iterator[dict[str, Any]]:
    """A folder nobody can read (with a setuid-root setpriv, the stand-in for sudo), and a Python
    that nobody can run; skips where that cannot be had (not root, nosuid, no setpriv)."""
    if os.geteuid() != 0:
        pytest.skip("needs root (to run the runner as nobody and the helper as root)")
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("setpriv is not installed")
    folder = Path(tempfile.mkdtemp(prefix="rocmate-runner-"))
    try:
        folder.chmod(0o755)
        suid = folder / "setpriv-root"
        shutil.copy2(setpriv, suid)
        suid.chmod(0o4755)
        state = folder / "state"
        state.mkdir()
        os.chown(state, NOBODY, NOBODY)
        drop = [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        probe = subprocess.run([*drop, str(suid), "--reuid=0", "--regid=0", "--clear-groups",
                                "id", "-u"], capture_output=True, text=True, timeout=30)
        if probe.stdout.strip() != "0":
            pytest.skip(f"a setuid-root program does not run here: {probe.stderr.strip()}")
        python = _python_for_nobody(drop)
        if python is None:
            pytest.skip("no Python here that nobody may run with rocmate's core")
        (folder / "helper.py").write_text(FAKE_HELPER.replace("LINES", str(LINES)))
        (folder / "driver.py").write_text(DRIVER)
        yield {"folder": folder, "suid": str(suid), "drop": drop, "python": python,
               "state": state}
    finally:
        pidfile = folder / "pid"
        if pidfile.exists():
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pidfile.read_text()), 9)
        shutil.rmtree(folder, ignore_errors=True)


def _python_for_nobody(drop: list[str]) -> str | None:
    for candidate in (sys.executable, shutil.which("python3"), "/usr/bin/python3"):
        if not candidate:
            continue
        check = subprocess.run(
            [*drop, candidate, "-c",
             f"import sys; sys.path.insert(0, {str(REPO_ROOT)!r}); import core.install.runner"],
            capture_output=True, timeout=60,
        )
        if check.returncode == 0:
            return candidate
    return None


def _drive(env: dict[str, Any], mode: str, cancel_after: int, timeout: float = 120,
           helper: list[str] | None = None,
           during: Callable[[subprocess.Popen[str]], None] | None = None,
           **cfg: Any) -> tuple[list[dict[str, Any]], float, int]:
    """Run the driver (the runner, as nobody) with the fake helper in ``mode``, or with the root
    part of ``helper``'s argv; ``during`` runs while it does. Its events, its time, its code."""
    folder: Path = env["folder"]
    to_root = [env["suid"], "--reuid=0", "--regid=0", "--clear-groups", "--"]
    if helper is None:
        helper = [env["python"], str(folder / "helper.py"), mode, str(folder / "pid"),
                  str(folder / "record")]
    config = {"repo": str(REPO_ROOT), "helper": [*to_root, *helper], "state": str(env["state"]),
              "cancel_after": cancel_after, **cfg}
    start = time.monotonic()
    proc = subprocess.Popen([*env["drop"], env["python"], str(folder / "driver.py"),
                             json.dumps(config)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        if during is not None:
            during(proc)
        stdout, stderr = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    took = time.monotonic() - start
    events = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    assert events, stderr
    assert events[0] == {"event": "driver-ready"}, stderr
    return events[1:], took, proc.returncode


def test_cancel_drains_a_root_helper_that_cannot_be_signalled(as_nobody: dict[str, Any]) -> None:
    """Before: the runner's SIGTERM failed (EPERM), it stopped reading and waited for the helper,
    which blocked on the full pipe for ever. Now it reads to the end and says what happened."""
    events, took, code = _drive(as_nobody, "finish", cancel_after=20)
    assert code == 1 and took < 100
    lines = [e["line"] for e in events if e["event"] == "output"]
    assert "running as uid 0" in lines  # the helper really was root, the runner nobody
    assert len(lines) == LINES + 1  # every line the helper wrote after the cancel was read
    stopping = [e for e in events if e["event"] == "stopping"]
    assert len(stopping) == 1 and "cannot be interrupted" in stopping[0]["message"]
    assert any(e["event"] == "helper-done" and e["ok"] for e in events)
    last = events[-1]
    assert last["event"] == "done" and last["ok"] is False
    assert last["error"] == "cancelled (after the root steps had finished)"
    # The root steps happened, so a resume must not do them again.
    state = json.loads((as_nobody["state"] / "state.json").read_text())
    assert list(state["done"]) == ["apt-install"]


@pytest.fixture
def helper_root(root_copy: Path) -> Path:
    """A throwaway Debian root with rocmate installed (root-owned), for the real helper."""
    install_rocmate(root_copy)
    add_accounts_in_chroot(root_copy)
    return root_copy




@pytest.mark.root
@pytest.mark.slow
def test_cancel_on_eof_stops_a_root_helper(
    as_nobody: dict[str, Any], helper_root: Path
) -> None:
    """The real helper (``chroot ROOT python3 -I -m core.install.helper --cancel-on-eof``) as
    root, the runner as nobody: it may not signal the helper, so it sends the plan as one line,
    keeps stdin open and closes it on Cancel. The helper, in the middle of apt-get install
    (waiting for dpkg's lock, which this test holds), kills apt-get, removes the pin it wrote
    and says so; the runner reports it in one message."""
    root = helper_root
    chroot = shutil.which("chroot")
    assert chroot is not None
    helper = [chroot, str(root), "/usr/bin/python3", "-I", "-m", "core.install.helper",
              CANCEL_ON_EOF]
    pin = root / "etc/apt/preferences.d/rocm-pin-600"
    sent_at: list[float] = []

    def cancel_mid_step(driver: subprocess.Popen[str]) -> None:
        deadline = time.monotonic() + 60
        while "apt-get" not in processes_in(root).values():  # the install is waiting for the lock
            assert driver.poll() is None and time.monotonic() < deadline, "apt-get never ran"
            time.sleep(0.05)
        time.sleep(0.5)
        assert pin.read_text() == PIN_TEXT  # the first step is done
        sent_at.append(time.monotonic())
        os.kill(driver.pid, signal.SIGUSR1)  # the user's Cancel

    lock = os.open(root / "var/lib/dpkg/lock-frontend", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC,
                   0o640)
    try:
        fcntl.lockf(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        events, _, code = _drive(as_nobody, "real", cancel_after=0, helper=helper,
                                 during=cancel_mid_step, pin=PIN_TEXT, cancel_on_usr1=True)
        took = time.monotonic() - sent_at[0]
    finally:
        os.close(lock)
    assert code == 1 and took < 10
    events = [{k: v for k, v in e.items() if k != "time"} for e in events]
    relayed = [e for e in events if e.get("via") == "helper"]
    assert relayed[0] == {"event": "plan", "via": "helper", "steps": [
        {"id": "apt-pin", "verb": "apt-pin"}, {"id": "apt-install", "verb": "apt-install"}]}
    stopping = [e for e in events if e["event"] == "stopping"]
    assert len(stopping) == 1 and "waiting while it puts back" in stopping[0]["message"]
    failed = [e for e in relayed if e["event"] == "step" and e["status"] == "failed"]
    assert [(e["id"], e["error"]) for e in failed] == [("apt-install", "cancelled")]
    assert [e["undone"] for e in relayed if e["event"] == "rollback"] == [
        ["removed /etc/apt/preferences.d/rocm-pin-600"]
    ]
    last = events[-1]
    assert last == {
        "event": "done", "ok": False, "exit": 1,
        "error": "cancelled (step apt-install failed: cancelled; undone: removed "
                 "/etc/apt/preferences.d/rocm-pin-600)",
    }
    assert not pin.exists()
    assert processes_in(root) == {}  # apt-get was killed with its step, not left waiting
    assert not (as_nobody["state"] / "state.json").exists()  # nothing counts as done


@pytest.mark.slow  # a real worker or app process: not in make check
def test_time_limit_leaves_a_root_helper_that_hears_nothing(as_nobody: dict[str, Any]) -> None:
    """Past its limit (and the grace after it) a helper that cannot be stopped is left alone:
    its pipe is closed (so it cannot block), and the message says it may still run, as root."""
    events, took, code = _drive(as_nobody, "stuck", cancel_after=0, limit=3, grace=3)
    assert code == 1 and took < 60
    pid = int((as_nobody["folder"] / "pid").read_text())
    last = events[-1]
    assert last["event"] == "done" and "exit" not in last
    assert last["error"] == (
        "the root helper did not finish within 3 s and could not be stopped from here (it runs "
        f"as root); it may still be running (process {_setpriv_child(pid)}), in step "
        "apt-install. apt may stay locked until it ends."
    )
    # With nobody reading, its next write fails and it ends instead of blocking.
    for _ in range(100):
        if not Path(f"/proc/{pid}").exists():
            break
        time.sleep(0.1)
    assert not Path(f"/proc/{pid}").exists()


def _setpriv_child(pid: int) -> int:
    """setpriv execs the helper in place, so the runner's child is the helper's own process."""
    return pid


# --------------------------------------------------------------------------------------------
# helpers that end badly, run as the same user


def _run(plan: Plan, folder: Path, helper: list[str] | None, **kw: Any) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    runner = Runner(plan, events.append, helper, folder=folder, **kw)
    asyncio.run(runner.run())
    return events


def _one_step_plan(*steps: Step) -> Plan:
    return Plan(strategy="rocm-apt", rocm="7.2", torch_index=None, steps=steps or (APT_STEP,))


def test_a_killed_helper_is_told_in_words_not_its_last_json(tmp_path: Path) -> None:
    killer = [sys.executable, "-c", textwrap.dedent(
        """\
        import json, os, signal, sys
        sys.stdin.read()
        for e in ({"event": "step", "id": "apt-install", "status": "start"},
                  {"event": "output", "id": "apt-install", "line": "Unpacking rocm-core ..."}):
            print(json.dumps(e), flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """)]
    events = _run(_one_step_plan(), tmp_path / "s", killer)
    last = events[-1]
    assert last["exit"] == -9
    assert last["error"] == (
        "the root helper was stopped by SIGKILL before it finished (in step apt-install); "
        "files it had written may not have been put back"
    )
    # A plain line (sudo's own complaint) is kept as it is.
    sudo_like = [sys.executable, "-c",
                 "import sys; sys.stdin.read(); print('sudo: a password is required'); "
                 "sys.exit(1)"]
    events = _run(_one_step_plan(), tmp_path / "t", sudo_like)
    assert events[-1]["error"] == "the root helper exited 1: sudo: a password is required"


def test_missing_pkexec_is_not_installed_not_unauthorised(tmp_path: Path) -> None:
    absent = tmp_path / "usr/bin/pkexec"
    events = _run(_one_step_plan(), tmp_path / "s", [str(absent), "/usr/bin/python3"])
    assert events[-1]["error"].startswith(f"pkexec is not installed ({absent} is missing)")
    assert "Not authorised" not in events[-1]["error"]
    empty = tmp_path / "empty"
    empty.mkdir()
    route = helper_route("pkexec", euid=1000, tool_dirs=[str(empty)])
    assert route.argv is None and route.problem is not None
    assert route.problem.startswith(f"pkexec is not installed (looked for {empty}/pkexec)")


def test_a_helper_that_cannot_start_is_a_message(tmp_path: Path) -> None:
    not_executable = tmp_path / "helper"
    not_executable.write_text("")
    events = _run(_one_step_plan(), tmp_path / "s", [str(not_executable)])
    assert events[-1]["ok"] is False
    assert events[-1]["error"].startswith("could not start the root helper: ")


# --------------------------------------------------------------------------------------------
# the key download


KEY_STEP = Step(
    "apt-keyring", "key", "key", privileged=True, kind="file",
    file=FileSpec("/etc/apt/keyrings/rocm.gpg", source_url="https://127.0.0.1/key"),
    key_fingerprint="CA8BB4727A47B4D09B4EE8969386B48A1A693C5C",
)


def test_key_fetch_errors_end_the_run_in_words(tmp_path: Path) -> None:
    def broken(url: str) -> bytes:
        raise http.client.IncompleteRead(b"partial", 100)

    events = _run(_one_step_plan(KEY_STEP), tmp_path / "s", [sys.executable, "-c", "pass"],
                  fetch=broken)
    assert events[-1]["ok"] is False
    assert events[-1]["error"].startswith("could not fetch a key: IncompleteRead(")
    with pytest.raises(OSError, match="ValueError"):
        runner_module._download("https://[::1/rocm.gpg.key")  # urllib: "Invalid IPv6 URL"


@pytest.fixture
def https_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, list]]:
    """A local HTTPS server (a certificate made with openssl, trusted through SSL_CERT_FILE)
    that answers every request with the raw bytes in the list it yields."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    made = subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
         "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        capture_output=True, timeout=60,
    )
    if made.returncode != 0:
        pytest.skip(f"openssl could not make a certificate: {made.stderr[-200:]!r}")
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    listener = socket.create_server(("127.0.0.1", 0))
    answer: list[bytes] = [b""]
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            try:
                with context.wrap_socket(conn, server_side=True) as tls:
                    tls.recv(65536)
                    tls.sendall(answer[0])
            except (OSError, ssl.SSLError):
                pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"https://127.0.0.1:{listener.getsockname()[1]}/rocm.gpg.key", answer
    stop.set()
    thread.join(5)
    listener.close()


def test_download_cut_short_is_an_oserror(
    https_server: tuple[str, list], tmp_path: Path
) -> None:
    url, answer = https_server
    answer[0] = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nKEY!!"
    assert runner_module._download(url) == b"KEY!!"  # the server and the trust work
    answer[0] = (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                 b"400\r\n" + b"x" * 100)  # a 1 KiB chunk that stops after 100 bytes
    with pytest.raises(OSError, match="IncompleteRead"):
        runner_module._download(url)
    answer[0] = (b"HTTP/1.1 200 OK\r\nContent-Length: 400\r\nConnection: close\r\n\r\n"
                 + b"x" * 100)
    with pytest.raises(OSError, match="cut short"):
        runner_module._download(url)
    events = _run(_one_step_plan(KEY_STEP), tmp_path / "s", [sys.executable, "-c", "pass"],
                  fetch=lambda _: runner_module._download(url))
    assert events[-1]["error"].startswith("could not fetch a key: ")


# --------------------------------------------------------------------------------------------
# limits


def test_runner_waits_longer_than_the_helper_can_take() -> None:
    from core.install.helper import main as helper

    limits = runner_module.HELPER_STEP_LIMITS_S
    assert limits[("apt-get", "install")] >= helper.TIMEOUTS["apt-install"]
    assert limits[("apt-get", "purge")] >= helper.TIMEOUTS["apt-purge"]
    assert limits[("usermod", None)] >= helper.TIMEOUTS["usermod"]
    assert limits[("apt-get", "update")] >= (
        2 * helper.TIMEOUTS["apt-update"] + helper.APT_LOCK_WAIT_S
    )
    assert helper.TIMEOUTS["gpg"] <= runner_module.HELPER_FILE_LIMIT_S
    # every program the runner has a limit for is one the helper still runs and times
    assert {program for program, _ in limits} == {"apt-get", "usermod"}
    assert set(helper.TIMEOUTS) == {"apt-update", "apt-install", "apt-purge", "usermod", "gpg"}
    from tests.planner.test_plans import plan_for

    # the WSL plan of the librocdxg era (issue 33/3): the old release purged, AMD's Core SDK
    # repository, its package lists and the runtime installed, in one run of the helper
    plan = plan_for("wsl2-ubuntu2204-rx7900xtx-ready", remove_old=True)
    steps = plan.privileged_steps
    assert {s.id for s in steps} >= {"remove-old-rocm", "apt-update", "apt-install"}
    helper_sum = (helper.TIMEOUTS["apt-purge"] + helper.TIMEOUTS["apt-update"]
                  + helper.APT_LOCK_WAIT_S + helper.TIMEOUTS["apt-install"])
    assert helper_limit(steps) > helper_sum > runner_module.STEP_TIMEOUT


# --------------------------------------------------------------------------------------------
# the route to root


def _tree(base: Path) -> dict[str, Path]:
    """A root-owned stand-in installation: interpreter, core/, resources/data/."""
    base.mkdir(parents=True)
    base.chmod(0o755)
    python = base / "bin/python3"
    python.parent.mkdir()
    shutil.copy2("/bin/true", python)
    core = base / "core/install/helper"
    core.mkdir(parents=True)
    (core / "main.py").write_text("")
    data = base / "resources/data"
    data.mkdir(parents=True)
    (data / "rocm.toml").write_text("")
    tools = base / "tools"
    tools.mkdir()
    for tool in ("sudo", "pkexec"):
        shutil.copy2("/bin/true", tools / tool)
    for path in (base, *base.rglob("*")):
        path.chmod(0o755 if path.is_dir() or path.parent.name in ("bin", "tools") else 0o644)
    return {"base": base, "python": python, "core": base / "core", "data": data, "tools": tools}


@pytest.fixture
def installed() -> Iterator[dict[str, Path]]:
    """A stand-in installation in a folder whose every parent is root's and closed to others
    (not under /tmp, which anyone may write to), removed afterwards."""
    if os.geteuid() != 0:
        pytest.skip("needs root (root-owned and user-owned files)")
    parent = next((p for p in ("/var/cache", "/var/lib", "/opt", "/run")
                   if os.path.isdir(p) and not root_problems([(p, False)])), None)
    if parent is None:
        pytest.skip("no folder here whose parents are all root's and closed to others")
    top = Path(tempfile.mkdtemp(prefix="rocmate-route-", dir=parent))
    try:
        top.chmod(0o755)
        yield _tree(top / "opt")
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _files(tree: dict[str, Path]) -> list[tuple[str, bool]]:
    return [(str(tree["python"]), False), (str(tree["core"]), True), (str(tree["data"]), True)]


def test_root_owned_installation_goes_through_sudo_at_a_fixed_path(
    installed: dict[str, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A sudo earlier on the user's PATH is never used.
    fake = tmp_path / "bin/sudo"
    fake.parent.mkdir()
    shutil.copy2("/bin/true", fake)
    monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ.get('PATH', '')}")
    monkeypatch.setenv("APPIMAGE", str(tmp_path / "Other.AppImage"))  # another app's variable
    route = helper_route(euid=1000, python=str(installed["python"]), files=_files(installed),
                         tool_dirs=[str(installed["tools"])])
    assert route.problem is None
    assert route.argv == [str(installed["tools"] / "sudo"), str(installed["python"]), "-I", "-m",
                          "core.install.helper", CANCEL_ON_EOF]
    assert find_tool("sudo", ["/nonexistent", str(installed["tools"])]) == str(
        installed["tools"] / "sudo"
    )
    # Already root: directly, and $APPIMAGE plays no part either.
    direct = helper_route(euid=0, python=str(installed["python"]))
    assert direct.argv == [str(installed["python"]), "-I", "-m", "core.install.helper",
                           CANCEL_ON_EOF]


def test_the_installed_launcher_is_asked_to_watch_stdin(installed: dict[str, Path]) -> None:
    """pkexec through the installed launcher (which passes its arguments on to the helper)."""
    launcher = installed["base"] / "libexec/rocmate-helper"
    launcher.parent.mkdir(mode=0o755)
    launcher.write_text('#!/bin/sh\nexec /usr/bin/python3 -I -m core.install.helper "$@"\n')
    launcher.chmod(0o755)
    route = helper_route("pkexec", euid=1000, python=str(installed["python"]),
                         tool_dirs=[str(installed["tools"])], launcher=str(launcher))
    assert route.problem is None
    assert route.argv == [str(installed["tools"] / "pkexec"), str(launcher), CANCEL_ON_EOF]


@pytest.mark.parametrize(
    ("spoil", "words"),
    [
        ("user-owned module", "core/install/helper/main.py belongs to nobody"),
        ("group-writable data", "resources/data can be changed by its group"),
        ("user-owned folder above", "opt belongs to nobody"),
        ("world-writable interpreter", "bin/python3 can be changed by its group and others"),
        ("link to a user's file", "evil.py belongs to nobody"),
    ],
)
def test_user_changeable_files_are_never_run_as_root(
    installed: dict[str, Path], spoil: str, words: str
) -> None:
    base = installed["base"]
    if spoil == "user-owned module":
        os.chown(installed["core"] / "install/helper/main.py", NOBODY, NOBODY)
    elif spoil == "group-writable data":
        installed["data"].chmod(0o775)
    elif spoil == "user-owned folder above":
        os.chown(base, NOBODY, NOBODY)
    elif spoil == "world-writable interpreter":
        installed["python"].chmod(0o777)
    else:
        evil = base.parent / "evil.py"
        evil.write_text("")
        os.chown(evil, NOBODY, NOBODY)
        (installed["core"] / "install/linked.py").symlink_to(evil)
    route = helper_route(euid=1000, python=str(installed["python"]), files=_files(installed),
                         tool_dirs=[str(installed["tools"])])
    assert route.argv is None and route.problem is not None
    assert words in route.problem
    assert "could run their own code as root" in route.problem
    assert "Install rocmate system-wide, owned by root" in route.problem
    # pkexec is refused alike, and root itself is not stopped (it needs no route).
    assert helper_route("pkexec", euid=1000, python=str(installed["python"]),
                        files=_files(installed), tool_dirs=[str(installed["tools"])]).argv is None
    assert helper_route(euid=0, python=str(installed["python"]), files=_files(installed)).argv


def test_default_checked_files_cover_what_root_would_load() -> None:
    checked = dict(helper_files(sys.executable))
    core_dir = str(REPO_ROOT / "core")
    assert checked[sys.executable] is False
    assert checked[core_dir] is True
    assert any(p.endswith("resources/data") and tree for p, tree in checked.items())
    if sys.prefix != sys.base_prefix:  # a virtual environment: all of it
        assert checked[sys.prefix] is True
