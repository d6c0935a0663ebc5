"""Screenshots of the GPU memory window's Apply… carried out for real (docs/screenshots/gpu-memory):
the question it asks and the window after the change, in English and Chinese.

As tests/gui/test_gpu_memory_apply.py does it: the recorded Strix Halo's facts, the real runner and
helper, as root in a throwaway Debian root (chroot) standing for this computer's /etc and
/var/lib. Needs root and the cached throwaway root; says why and does nothing otherwise.

    .venv/bin/python -m tests.gui.memory_apply_shots OUT_FOLDER en|zh_CN
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path


def shoot(lang: str, out: Path) -> str:
    """The question and the window after Apply in ``lang``; the window's last words."""
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    import qasync
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    from core.install.privilege import Route
    from core.operations import machine, memory
    from gui import i18n
    from gui.bridge import Bridge
    from gui.memory import MemoryDialog
    from gui.runtime import use_python_threads
    from tests.gui.test_gpu_memory_apply import CONF, MACHINES, OTHER, STRIX_HALO, _Inside
    from tests.install.support import cached_debian_root, copy_root, root_cache
    from tests.install.test_helper_hostile import _prepared_root
    from tests.install.test_helper_ttm import MEMINFO

    cache = root_cache()
    debian, problem = cached_debian_root(cache) if cache is not None else (None, "no cache")
    if debian is None:
        return f"skipped: no throwaway Debian root ({problem})"
    app = QApplication.instance() or QApplication([])
    i18n.switch(lang)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    use_python_threads(loop)
    work = Path(tempfile.mkdtemp(prefix="rocmate-memory-shots-"))
    os.environ["XDG_STATE_HOME"] = str(work / "state")  # the runner's log: not the user's
    with copy_root(debian, work / "copy") as root:
        _prepared_root(root)
        (root / "etc/modprobe.d").mkdir(parents=True, exist_ok=True)
        (root / "proc/meminfo").write_text(MEMINFO)
        (root / CONF.lstrip("/")).write_text(OTHER)
        memory.helper_route = lambda *args, **kwargs: Route(  # type: ignore[assignment]
            ["chroot", str(root), "/usr/bin/python3", "-I", "-m", "core.install.helper",
             "--cancel-on-eof"])
        real = machine.open_machine
        memory.open_machine = (  # type: ignore[assignment]
            lambda r: _Inside(root) if r is None else real(r))
        dialog = MemoryDialog(machine.check_machine(str(MACHINES / STRIX_HALO)), bridge=Bridge())
        dialog.show()
        dialog.read_now()

        def answer() -> None:
            box = QApplication.activeModalWidget()
            if isinstance(box, QMessageBox):
                box.grab().save(str(out / f"{lang}-apply-question.png"))
                box.button(QMessageBox.StandardButton.Yes).click()
            else:
                QTimer.singleShot(50, answer)

        async def run() -> None:
            QTimer.singleShot(100, answer)
            dialog.apply()
            while dialog.running or dialog.calls:
                await asyncio.sleep(0.1)
            dialog.content.adjustSize()
            dialog.area.ensureWidgetVisible(dialog.change_box, 0, 0)
            await asyncio.sleep(0.3)
            dialog.grab().save(str(out / f"{lang}-after-apply.png"))

        with loop:
            loop.run_until_complete(run())
        return dialog.state.text()


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[2] not in ("en", "zh_CN"):
        print(__doc__)
        return 2
    if os.geteuid() != 0:
        print("memory_apply_shots: skipped: needs root (the helper runs as root in a chroot)")
        return 0
    out = Path(argv[1])
    out.mkdir(parents=True, exist_ok=True)
    print(shoot(argv[2], out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
