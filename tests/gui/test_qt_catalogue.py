"""The app's Qt catalogue: in step with the code (what ``make i18n`` would write), every text
translated, compiled by ``make qm`` into what the app loads; placeholders, markup and keyboard
mnemonics kept by each translation."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication

from gui import i18n
from scripts import qt_catalogue

TS = qt_catalogue.ts_path("zh_CN")


def _messages() -> list[tuple[str, str, list[str]]]:
    found = []
    for context in ET.parse(TS).iter("context"):
        for message in context.iter("message"):
            translation = message.find("translation")
            assert translation is not None
            forms = [f.text or "" for f in translation.findall("numerusform")] or \
                [translation.text or ""]
            found.append((context.findtext("name") or "", message.findtext("source") or "",
                          forms))
    return found


def test_the_catalogue_is_what_the_code_says() -> None:
    assert not qt_catalogue.stale("zh_CN"), "run make i18n"


def test_every_text_is_translated() -> None:
    assert qt_catalogue.unfinished(TS) == []


def _mnemonics(text: str) -> int:
    return len(re.findall(r"&[^&\s]", text.replace("&&", "")))


@pytest.mark.parametrize("check", ["placeholders", "markup", "mnemonics"])
def test_translations_keep_what_the_code_relies_on(check: str) -> None:
    wrong = []
    for context, source, forms in _messages():
        for text in forms:
            if check == "placeholders":
                ok = sorted(re.findall(r"%\d|%n", source)) == sorted(re.findall(r"%\d|%n", text))
            elif check == "markup":
                ok = sorted(re.findall(r"</?\w+>", source)) == sorted(re.findall(r"</?\w+>",
                                                                               text))
            else:
                ok = _mnemonics(source) == _mnemonics(text)
            if not ok:
                wrong.append(f"{context}: {source!r} -> {text!r}")
    assert wrong == []


def test_the_compiled_catalogue_translates_the_app(qapp: object, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    qt_catalogue.lrelease(TS, tmp_path / "rocmate_zh_CN.qm")
    monkeypatch.setattr(i18n, "catalogue_dir", lambda: tmp_path)
    try:
        assert i18n.switch("zh_CN")
        assert QCoreApplication.translate("WelcomePage", "Welcome to rocmate") == \
            "欢迎使用rocmate"
        assert "下一步" in QCoreApplication.translate("QWizard", "&Next >")  # Qt's own
    finally:
        i18n.switch("en")
    assert QCoreApplication.translate("WelcomePage", "Welcome to rocmate") == \
        "Welcome to rocmate"
