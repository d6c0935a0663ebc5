"""The Windows side of WSL 2: the GPUs Windows sees and their driver versions.

Only what Windows interop can tell from inside WSL: ``powershell.exe`` lists the video controllers
(name, WDDM driver version, vendor). It runs with a timeout, since interop can hang.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.i18n import t
from core.probe.parse.windows import WinGpu, parse_video_controllers
from core.system import System

POWERSHELL_GPUS = (
    "powershell.exe",
    "-NoProfile",
    "-NonInteractive",
    "-Command",
    "Get-CimInstance Win32_VideoController | Select-Object Name,DriverVersion,"
    "AdapterCompatibility | ConvertTo-Json",
)
TIMEOUT = 8.0

# Why Windows could not be asked, as the facts (and the doctor's JSON) say it: in English.
INTEROP_OFF = "Windows interop is off in this WSL distribution"
NO_POWERSHELL = "powershell.exe is not reachable from WSL"
NO_ANSWER = f"powershell.exe did not answer within {TIMEOUT:.0f} s"
NO_CONTROLLER = "Windows listed no video controller"


@dataclass(frozen=True)
class WindowsFacts:
    checked: bool
    """False when interop is off or powershell.exe is not reachable."""
    gpus: tuple[WinGpu, ...]
    problem: str | None

    @property
    def problem_text(self) -> str | None:
        """:attr:`problem` in the current language."""
        if self.problem is None:
            return None
        said = {
            INTEROP_OFF: t("probe.windows.interop-off",
                           "Windows interop is off in this WSL distribution"),
            NO_POWERSHELL: t("probe.windows.no-powershell", "{program} is not reachable from WSL",
                             program="powershell.exe"),
            NO_ANSWER: t("probe.windows.no-answer", "{program} did not answer within {seconds} s",
                         program="powershell.exe", seconds=f"{TIMEOUT:.0f}"),
            NO_CONTROLLER: t("probe.windows.no-controller", "Windows listed no video controller"),
        }
        return said.get(self.problem, self.problem)

    def to_json(self) -> dict[str, object]:
        return {
            "checked": self.checked,
            "gpus": [
                {"name": g.name, "driver_version": g.driver_version, "vendor": g.vendor}
                for g in self.gpus
            ],
            "problem": self.problem,
        }


def probe_windows(system: System, wsl: int | None, interop: bool) -> WindowsFacts | None:
    """None outside WSL 2."""
    if wsl != 2:
        return None
    if not interop:
        return WindowsFacts(False, (), INTEROP_OFF)
    result = system.run(list(POWERSHELL_GPUS), timeout=TIMEOUT)
    if not result.found:
        return WindowsFacts(False, (), NO_POWERSHELL)
    if result.timed_out:
        return WindowsFacts(False, (), NO_ANSWER)
    gpus = parse_video_controllers(result.output)
    return WindowsFacts(True, gpus, None if gpus else NO_CONTROLLER)
