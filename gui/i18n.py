"""The app's language: Qt's translators for the app's own words and for Qt's standard buttons,
and core's language for the words core hands the app (findings, plans, reports).

:func:`switch` changes all three at once. Installing a translator makes Qt send every widget a
``LanguageChange`` event; each page answers it by setting its texts again (``retranslate``).
The app's catalogue is ``resources/i18n/rocmate_<lang>.ts``, compiled to ``.qm`` when the app
is built (``make qm``); Qt's own ``qtbase_<lang>.qm`` comes with PySide6.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QSettings, QTranslator

from core import i18n as core_i18n
from core.resources import resources_dir

log = logging.getLogger("rocmate.gui")

LANGUAGES = core_i18n.LANGUAGES
NAMES = {"en": "English", "zh_CN": "简体中文"}
"""Each language by its own name: what a reader of that language looks for in a menu, so these
are never translated."""

_installed: list[QTranslator] = []


def catalogue_dir() -> Path:
    """Where the app's compiled catalogues (``rocmate_<lang>.qm``) are."""
    return resources_dir() / "i18n"


def current() -> str:
    return core_i18n.language()


def chosen(given: str | None) -> str:
    """The language to open the app in: ``--lang``, else the one chosen in the app last time,
    else the system locale's (LANGUAGE, LC_ALL, LC_MESSAGES, LANG)."""
    if given in LANGUAGES:
        return str(given)
    saved = QSettings().value("language")
    if isinstance(saved, str) and saved in LANGUAGES:
        return saved
    return core_i18n.from_env()


def switch(language: str, *, remember: bool = False) -> bool:
    """Put the app (and core's words) in ``language``; False when its catalogue is missing
    (the app then stays readable: English)."""
    if language not in LANGUAGES:
        raise ValueError(f"no such language: {language}")
    for translator in _installed:
        QCoreApplication.removeTranslator(translator)
    _installed.clear()
    complete = True
    if language != "en":
        for folder, name in ((catalogue_dir(), f"rocmate_{language}"),
                             (Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)),
                              f"qtbase_{language}")):
            translator = QTranslator()
            if translator.load(name, str(folder)):
                QCoreApplication.installTranslator(translator)
                _installed.append(translator)
            else:
                complete = False
                log.warning("no catalogue %s.qm in %s", name, folder)
    core_i18n.set_language(language if complete or language == "en" else "en")
    QLocale.setDefault(QLocale(language))
    if remember:
        QSettings().setValue("language", language)
    return complete
