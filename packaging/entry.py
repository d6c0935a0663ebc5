"""The script PyInstaller freezes: the packaged ``rocmate`` (gui/frozen.py says its modes)."""

from gui.frozen import entry

entry()
