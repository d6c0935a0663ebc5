"""Run the privileged helper under an audit hook that records and blocks every side effect.

Usage (inside the throwaway root): ``python3 -I -B audit_run.py LOG [--check]`` with the plan on
stdin. Any attempt to start a process, write or create a file, or change the file system is
appended to LOG and then refused with PermissionError, so even a helper bug cannot touch the root.
The hostile-input tests assert that LOG stays empty: the helper refused before doing anything.
"""

from __future__ import annotations

import os
import runpy
import sys
from typing import Any

WATCHED = frozenset({
    "subprocess.Popen", "os.system", "os.posix_spawn", "os.exec", "os.spawn", "os.fork",
    "os.forkpty", "pty.spawn", "os.kill", "os.killpg", "os.remove", "os.rename", "os.rmdir",
    "os.mkdir", "os.chmod", "os.chown", "os.symlink", "os.link", "os.truncate", "os.utime",
    "os.chflags", "os.lchown", "os.mkfifo", "os.mknod", "shutil.copyfile", "shutil.copymode",
    "shutil.copystat", "shutil.copytree", "shutil.move", "shutil.rmtree", "shutil.chown",
    "tempfile.mkstemp", "tempfile.mkdtemp", "os.putenv", "os.unsetenv",
})
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def main() -> None:
    log_fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    sys.argv = ["core.install.helper", *sys.argv[2:]]

    def hook(event: str, args: tuple[Any, ...]) -> None:
        blocked = event in WATCHED
        if event == "open" and len(args) == 3:
            _path, mode, flags = args
            writes_mode = isinstance(mode, str) and any(c in mode for c in "wax+")
            blocked = writes_mode or (isinstance(flags, int) and bool(flags & WRITE_FLAGS))
        if blocked:
            os.write(log_fd, f"{event} {args!r}\n".encode(errors="replace"))
            raise PermissionError(f"audit_run: {event} is blocked")

    sys.addaudithook(hook)
    runpy.run_module("core.install.helper", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
