"""The packaged program's entry point (PyInstaller, the AppImage): one executable, three modes.

* ``rocmate helper [--check | --cancel-on-eof]``: the privileged helper
  (core/install/helper/), which is what ``pkexec "$APPIMAGE" helper`` starts as root. Nothing
  else is imported on that path: no Qt, no probes, nothing from the user's session.
* ``rocmate -m MODULE ...`` for the few modules a plan runs with ``sys.executable -m`` (in a
  frozen build ``sys.executable`` is this program, not a Python), as ``python -m`` would.
* anything else: the ``rocmate`` command (gui.launcher), the app or the command line.

Before any of them, the variables that the bundle's start-up changed for itself are put back as
the user had them (core.bundle.restore_libraries), so that nothing this process starts,
and no program Qt opens (the browser for the HTML report, the file manager), inherits the
bundle's libraries.
"""

from __future__ import annotations

import os
import runpy
import sys

from core.bundle import restore_libraries

HELPER_MODE = "helper"  # as core.install.privilege.HELPER_MODE (not imported: this runs as root)
MODULES = ("core.install.wsl_runtime_swap", "core.install.shell_lines")
"""What ``rocmate -m MODULE`` may run in the frozen build; anything else is a usage error."""
EXIT_USAGE = 2


def main(argv: list[str] | None = None) -> int:
    """The frozen program's exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    restore_libraries(os.environ)
    if args[:1] == [HELPER_MODE]:
        from core.install.helper.main import main as helper

        return helper(args[1:])
    if args[:1] == ["-m"]:
        if len(args) < 2 or args[1] not in MODULES:
            print(f"rocmate: -m runs only {', '.join(MODULES)} in the packaged program",
                  file=sys.stderr)
            return EXIT_USAGE
        sys.argv = [args[1], *args[2:]]
        try:
            runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        except SystemExit as exc:
            code = exc.code
            return code if isinstance(code, int) else (0 if code is None else 1)
        return 0
    from gui.launcher import main as launcher

    return launcher(args)


def entry() -> None:
    """What the bundle's script calls. The app's objects go with the process: the cycle
    collector's last walk is skipped, as core.cli.end does."""
    import gc

    status = main()
    gc.freeze()
    raise SystemExit(status)
