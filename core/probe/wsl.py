"""The Windows side of WSL 2: the GPUs Windows sees and their driver versions, the Windows build,
the AMD Adrenalin version, and the memory ``.wslconfig`` gives WSL.

Only what Windows interop can tell from inside WSL: ``powershell.exe`` lists the video controllers
(name, WDDM driver version, vendor) and reads the Adrenalin version AMD's installer writes to the
registry (``HKLM:\\SOFTWARE\\AMD\\CN``, ``RadeonSoftwareVersion``: the WDDM version of the video
controller is another number); ``wsl.exe --version`` names the Windows build. Each runs with a
timeout, since interop can hang. A snapshot without these answers replays as "not known".
"""

from __future__ import annotations

from dataclasses import dataclass

from core.i18n import t
from core.probe.parse.memory import parse_wslconfig_memory
from core.probe.parse.windows import (
    WinGpu,
    parse_adrenalin,
    parse_video_controllers,
    parse_wsl_version,
)
from core.system import System

POWERSHELL_GPUS = (
    "powershell.exe",
    "-NoProfile",
    "-NonInteractive",
    "-Command",
    "Get-CimInstance Win32_VideoController | Select-Object Name,DriverVersion,"
    "AdapterCompatibility | ConvertTo-Json",
)
POWERSHELL_ADRENALIN = (
    "powershell.exe",
    "-NoProfile",
    "-NonInteractive",
    "-Command",
    "(Get-ItemProperty 'HKLM:\\SOFTWARE\\AMD\\CN' -ErrorAction SilentlyContinue)"
    ".RadeonSoftwareVersion",
)
WSL_VERSION = ("wsl.exe", "--version")
WSLCONFIG = "/mnt/c/Users/{user}/.wslconfig"
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
    windows_version: str | None = None
    """``wsl --version``'s Windows version ("10.0.26100.4652"); None when not known."""
    wsl_version: str | None = None
    adrenalin: str | None = None
    """AMD Software: Adrenalin Edition's version ("26.2.2") from the registry; None when not
    known (no AMD driver, no answer, an older snapshot)."""
    wslconfig_memory_bytes: int | None = None
    """``memory=`` of ``.wslconfig``'s [wsl2] section, where rocmate could read the file."""

    @property
    def windows_build(self) -> int | None:
        """The build number of :attr:`windows_version` (26100); 22000 and newer is Windows 11."""
        parts = (self.windows_version or "").split(".")
        return int(parts[2]) if len(parts) >= 3 and parts[2].isdigit() else None

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
            "windows_version": self.windows_version,
            "windows_build": self.windows_build,
            "wsl_version": self.wsl_version,
            "adrenalin": self.adrenalin,
            "wslconfig_memory_bytes": self.wslconfig_memory_bytes,
        }


def probe_windows(
    system: System, wsl: int | None, interop: bool, user: str | None = None
) -> WindowsFacts | None:
    """None outside WSL 2."""
    if wsl != 2:
        return None
    memory = _wslconfig_memory(system, user)
    if not interop:
        return WindowsFacts(False, (), INTEROP_OFF, wslconfig_memory_bytes=memory)
    result = system.run(list(POWERSHELL_GPUS), timeout=TIMEOUT)
    if not result.found:
        return WindowsFacts(False, (), NO_POWERSHELL, wslconfig_memory_bytes=memory)
    if result.timed_out:
        return WindowsFacts(False, (), NO_ANSWER, wslconfig_memory_bytes=memory)
    gpus = parse_video_controllers(result.output)
    versions = _wsl_versions(system)
    return WindowsFacts(
        True, gpus, None if gpus else NO_CONTROLLER,
        windows_version=versions.get("windows"), wsl_version=versions.get("wsl"),
        adrenalin=_adrenalin(system), wslconfig_memory_bytes=memory,
    )


def _adrenalin(system: System) -> str | None:
    result = system.run(list(POWERSHELL_ADRENALIN), timeout=TIMEOUT)
    if not result.found or result.timed_out:
        return None
    return parse_adrenalin(result.output)


def _wsl_versions(system: System) -> dict[str, str]:
    result = system.run(list(WSL_VERSION), timeout=TIMEOUT)
    if not result.found or result.timed_out:
        return {}
    return parse_wsl_version(result.output)


def _wslconfig_memory(system: System, user: str | None) -> int | None:
    if not user:
        return None
    text = system.read_text(WSLCONFIG.format(user=user))
    return parse_wslconfig_memory(text) if text is not None else None
