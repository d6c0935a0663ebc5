"""The app's Qt catalogue: ``resources/i18n/rocmate_<lang>.ts`` from the code (lupdate),
compiled to ``.qm`` (lrelease), and checked.

    python -m scripts.qt_catalogue update   # make i18n: the .ts files anew from gui/
    python -m scripts.qt_catalogue build    # make qm: the .qm files the app loads
    python -m scripts.qt_catalogue check    # CI: fails when a .ts is stale or unfinished

The .ts files are written without line numbers (``-locations none``) and without texts the
code no longer has (``-no-obsolete``), so they change only when the app's words do.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "resources" / "i18n"
LANGUAGES = ("zh_CN",)


def ts_path(lang: str, folder: Path = FOLDER) -> Path:
    return folder / f"rocmate_{lang}.ts"


def _tool(name: str) -> str:
    beside = Path(sys.executable).with_name(name)
    found = str(beside) if beside.exists() else shutil.which(name)
    if not found:
        raise SystemExit(f"{name} not found: pip install PySide6-Essentials")
    return found


def gui_sources() -> list[str]:
    """The app's Python files, relative to the repository (as the .ts records them)."""
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "gui").rglob("*.py"))


def lupdate(ts: Path, lang: str = "zh_CN") -> None:
    subprocess.run([_tool("pyside6-lupdate"), "-locations", "none", "-no-obsolete",
                    "-source-language", "en", "-target-language", lang, *gui_sources(),
                    "-ts", str(ts)], cwd=ROOT, check=True, capture_output=True)


def lrelease(ts: Path, qm: Path) -> None:
    subprocess.run([_tool("pyside6-lrelease"), str(ts), "-qm", str(qm)], check=True,
                   capture_output=True)


def unfinished(ts: Path) -> list[str]:
    """The source texts of ``ts`` without a finished translation."""
    left = []
    for message in ET.parse(ts).iter("message"):
        translation = message.find("translation")
        forms = [] if translation is None else \
            [f.text for f in translation.findall("numerusform")] or [translation.text]
        if translation is None or translation.get("type") in ("unfinished", "vanished",
                                                               "obsolete") \
                or not all(forms):
            left.append(message.findtext("source") or "")
    return left


def stale(lang: str) -> bool:
    """Whether lupdate would change the committed .ts (the code has other words)."""
    committed = ts_path(lang)
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / committed.name
        if committed.exists():
            shutil.copyfile(committed, fresh)
        lupdate(fresh, lang)
        return not committed.exists() or fresh.read_bytes() != committed.read_bytes()


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "check"
    status = 0
    for lang in LANGUAGES:
        ts = ts_path(lang)
        if command == "update":
            lupdate(ts, lang)
            print(f"{ts.relative_to(ROOT)}: {len(unfinished(ts))} texts to translate")
        elif command == "build":
            lrelease(ts, ts.with_suffix(".qm"))
        elif command == "check":
            if stale(lang):
                print(f"{ts.relative_to(ROOT)} is stale: run make i18n", file=sys.stderr)
                status = 1
            left = unfinished(ts)
            for text in left:
                print(f"{ts.name}: not translated: {text!r}", file=sys.stderr)
            status = status or int(bool(left))
        else:
            print(__doc__, file=sys.stderr)
            return 2
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
