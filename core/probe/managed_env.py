"""Where rocmate's managed Python environment lives: ``$XDG_DATA_HOME/rocmate/venv``.

The planner puts PyTorch there, the torch probe and ``rocmate bench`` use its Python by default,
and the environment probe reads the variables rocmate wrote into it.
"""

from __future__ import annotations

import os

from core.system import System


def managed_venv(home: str, xdg_data_home: str | None) -> str:
    """rocmate's managed environment: $XDG_DATA_HOME/rocmate/venv (~/.local/share by default)."""
    data_home = xdg_data_home or os.path.join(home, ".local", "share")
    return os.path.join(data_home, "rocmate", "venv")


def managed_python(system: System) -> str:
    """The Python of rocmate's managed environment (it may not exist yet)."""
    env = system.env()
    home = env.get("HOME") or system.user().home
    return os.path.join(managed_venv(home, env.get("XDG_DATA_HOME")), "bin", "python")


def default_python(system: System) -> str:
    """rocmate's managed environment if it exists, else python3."""
    managed = managed_python(system)
    return managed if system.exists(managed) else "python3"
