"""The core's words in the user's language: each user-facing text has a stable id and its
English beside it in the code; a catalogue per language (``resources/i18n/core/<lang>.toml``)
holds the translation of each id, with the English it was translated from.

    title = t("doctor.kernel-old.title", "Kernel {kernel} is older than ROCm supports",
              kernel=release)

The English is the fallback: a language without a catalogue, an id the catalogue lacks, or an
entry whose English has changed since it was translated (stale) all give the English. The
``{name}`` fields are filled after translation, so a translation may move them. No Qt here:
the command line and the desktop app read the same catalogue (the app's own widgets have Qt's).

The language is the process's: :func:`set_language` (``--lang``, the app's switch), else the
first of ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that names one (:func:`from_env`).
"""

from __future__ import annotations

import os
import string
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from core.resources import resources_dir

LANGUAGES = ("en", "zh_CN")
"""The languages rocmate speaks; English is the source language."""

_FORMATTER = string.Formatter()


@dataclass(frozen=True)
class Entry:
    """One translated text: the English it was made from, and the translation ("" while
    unfinished); ``was``: an earlier translation, of English that has changed since."""

    en: str
    text: str
    was: str = ""


class Localized(str):
    """A text of the knowledge base: its English (the string itself) and its translations,
    which sit beside it in the same row (``note`` and ``note_zh_CN``). Passed to :func:`t` as a
    field it is put in the current language; elsewhere :func:`local` does that."""

    translations: dict[str, str]

    def __new__(cls, english: str, translations: Mapping[str, str]) -> Localized:
        text = super().__new__(cls, english)
        text.translations = dict(translations)
        return text


def local(text: str) -> str:
    """``text`` in the current language where it is a :class:`Localized` with a translation
    for it, else as it is."""
    if isinstance(text, Localized):
        return text.translations.get(language()) or str.__str__(text)
    return text


def catalogue_path(lang: str, root: Path | None = None) -> Path:
    return (root or resources_dir()) / "i18n" / "core" / f"{lang}.toml"


def read_catalogue(path: Path) -> dict[str, Entry]:
    """A catalogue file: ``["id"]`` tables with ``en`` and ``text``. A missing file is an
    empty catalogue; a broken one raises ValueError naming the file."""
    import tomllib  # only where a language other than English is spoken

    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: {exc}") from None
    entries = {}
    for key, row in raw.items():
        if not isinstance(row, dict) or not isinstance(row.get("en"), str) \
                or not isinstance(row.get("text", ""), str) \
                or not isinstance(row.get("was", ""), str):
            raise ValueError(f"{path}: entry {key!r} needs the strings en and text")
        entries[key] = Entry(row["en"], row.get("text", ""), row.get("was", ""))
    return entries


def fields(text: str) -> set[str]:
    """The ``{name}`` fields of a text."""
    return {name for _, name, _, _ in _FORMATTER.parse(text) if name}


class _State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.lang: str | None = None  # None: from the environment, when first asked
        self.catalogues: dict[str, dict[str, Entry]] = {}


_state = _State()


def from_env(environ: Mapping[str, str] | None = None) -> str:
    """The language the environment asks for, as gettext reads it: ``LANGUAGE`` (a list,
    ``zh_CN:en``) first unless the locale is C/POSIX, then ``LC_ALL``, ``LC_MESSAGES``,
    ``LANG``. Any Chinese but the traditional-script locales (zh_TW, zh_HK, zh_MO, zh_Hant)
    is Simplified Chinese; anything else is English."""
    env = os.environ if environ is None else environ
    locale = next((env[k] for k in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(k)), "")
    candidates = [] if _plain(locale) else env.get("LANGUAGE", "").split(":")
    for value in [*candidates, locale]:
        lang = _language(value)
        if lang is not None:
            return lang
    return "en"


def _plain(locale: str) -> bool:
    return locale.split(".")[0] in ("C", "POSIX")


def _language(value: str) -> str | None:
    """The language a locale name means (``zh_CN.UTF-8`` -> zh_CN), None where it names none
    of ours."""
    name = value.split(".")[0].split("@")[0].replace("-", "_")
    if not name or _plain(value):
        return None
    if name.lower().startswith("zh"):
        if name.lower() in ("zh_tw", "zh_hk", "zh_mo") or "hant" in name.lower():
            return "en"  # not Simplified Chinese: English rather than the wrong script
        return "zh_CN"
    if name.lower().startswith("en"):
        return "en"
    return None


def set_language(lang: str | None) -> None:
    """Speak ``lang`` from now on (None: as the environment says)."""
    if lang is not None and lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}: use one of {', '.join(LANGUAGES)}")
    with _state.lock:
        _state.lang = lang


def language() -> str:
    lang = _state.lang
    return lang if lang is not None else from_env()


def _catalogue(lang: str) -> dict[str, Entry]:
    found = _state.catalogues.get(lang)
    if found is None:
        with _state.lock:
            try:
                found = read_catalogue(catalogue_path(lang))
            except ValueError:
                found = {}  # a broken catalogue: English, not a traceback
            _state.catalogues[lang] = found
    return found


def use_catalogue(lang: str, entries: dict[str, Entry] | None) -> None:
    """Speak ``lang`` from ``entries`` instead of its file (None: read the file again when next
    asked; for tests, and for a catalogue changed while the app runs)."""
    with _state.lock:
        if entries is None:
            _state.catalogues.pop(lang, None)
        else:
            _state.catalogues[lang] = dict(entries)


def t(key: str, english: str, /, **values: object) -> str:
    """``english`` in the current language, its ``{name}`` fields filled from ``values`` (a
    text given values writes a literal brace twice, as ``str.format`` does)."""
    text = english
    lang = language()
    if lang != "en":
        entry = _catalogue(lang).get(key)
        # an empty text is unfinished, but where the English is only a space (the gap between
        # two sentences), nothing is the translation
        if entry is not None and entry.en == english and (entry.text or not english.strip()):
            text = entry.text
    if not values:
        return text
    values = {k: local(v) if isinstance(v, Localized) else v for k, v in values.items()}
    try:
        return text.format(**values)
    except (KeyError, IndexError, ValueError):  # a translation's fields gone wrong: English
        return english.format(**values)
