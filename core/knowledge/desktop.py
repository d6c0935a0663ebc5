"""The desktop libraries the packaged app takes from the host (resources/data/desktop.toml), and
the words that name what to install when some are missing."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import tomllib

from core.i18n import t
from core.resources import data_dir

FILE = "desktop.toml"


@dataclass(frozen=True)
class DesktopLibrary:
    """One host library: its soname, the windowing that needs it ("any" or "xcb"), and the
    package that brings it on Debian/Ubuntu, Fedora and Arch."""

    soname: str
    platform: str
    debian: str
    fedora: str
    arch: str


def desktop_libraries(folder: Path | None = None) -> list[DesktopLibrary]:
    data = tomllib.loads(((folder or data_dir()) / FILE).read_text(encoding="utf-8"))
    return [DesktopLibrary(row["soname"], row["platform"], row["debian"], row["fedora"],
                           row["arch"]) for row in data["library"]]


def needed_for(platform: str, folder: Path | None = None) -> list[DesktopLibrary]:
    """What the app needs on the ``platform`` Qt will use ("xcb", "wayland", ...)."""
    return [lib for lib in desktop_libraries(folder)
            if lib.platform == "any" or lib.platform == platform]


def missing_advice(missing: list[DesktopLibrary]) -> str:
    """What to install, in words, for each distribution family."""

    def unique(names: list[str]) -> str:
        return " ".join(dict.fromkeys(names))

    return t("desktop.missing-libraries",
             "rocmate cannot open its window: the desktop libraries {libraries} are missing. "
             "Install them, then start rocmate again:\n"
             "  Ubuntu, Debian, Mint:  sudo apt install {debian}\n"
             "  Fedora:                sudo dnf install {fedora}\n"
             "  Arch, Manjaro:         sudo pacman -S {arch}\n"
             "The command line works meanwhile: rocmate doctor",
             libraries=", ".join(lib.soname for lib in missing),
             debian=unique([lib.debian for lib in missing]),
             fedora=unique([lib.fedora for lib in missing]),
             arch=unique([lib.arch for lib in missing]))
