"""Reading one knowledge table: typed access to TOML rows that names file, table and row in
every error, the shared value checks, and the small normalisers the tables share.

Every table module (gpus, releases, wheels, overrides, support, distros, error_patterns,
vendors) parses its rows through :class:`Row`, so every table is validated the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import tomllib

from core.i18n import LANGUAGES, Localized

GFX_RE = re.compile(r"^gfx[0-9]+[0-9a-f]{2}$")

PCI_RE = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{4}$")

REVISION_RE = re.compile(r"^[0-9a-f]{2}$")

VERSION_RE = re.compile(r"^[0-9]+(\.[0-9]+)+$")

WHEEL_VERSION_RE = re.compile(r"^[0-9]+(\.[0-9]+)+((a|b|rc|\.post|\.dev)[0-9]+)?$")

DATE_RE = re.compile(r"^[0-9]{4}-[0-9]{2}$")

FINGERPRINT_RE = re.compile(r"^[0-9A-F]{40}$")

HOST_RE = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$")

APT_URI_PREFIX_RE = re.compile(
    r"^(https://[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?|http://127\.0\.0\.1(:[0-9]{1,5})?)"
    r"/([A-Za-z0-9._~-]+/)*$"
)


class KnowledgeError(ValueError):
    """The knowledge base is missing, unreadable or inconsistent. The message names file and row."""


class Row:
    """A TOML table row with typed getters that name file, table and row in every error."""

    def __init__(self, file: str, table: str, index: int, data: object) -> None:
        self.file = file
        self.table = table
        self.index = index
        if not isinstance(data, dict):
            raise KnowledgeError(f"{file}: [[{table}]] row {index + 1} is not a table")
        self.data: dict[str, Any] = data
        label = data.get("id") or data.get("pci_id") or data.get("gfx") or data.get("version")
        label = label or data.get("name") or data.get("family")
        self.where = f"{file}: [[{table}]] row {index + 1}" + (f" ({label})" if label else "")

    def fail(self, message: str) -> KnowledgeError:
        return KnowledgeError(f"{self.where}: {message}")

    def check_keys(self, required: Iterable[str], optional: Iterable[str]) -> None:
        required = tuple(required)
        allowed = set(required) | set(optional)
        # a text's translations beside it (note_zh_CN); words() checks them
        allowed |= {f"{key}_{lang}" for key in allowed for lang in LANGUAGES if lang != "en"}
        unknown = sorted(set(self.data) - allowed)
        if unknown:
            raise self.fail(f"unknown key(s) {', '.join(unknown)}")
        missing = [k for k in required if k not in self.data]
        if missing:
            raise self.fail(f"missing key(s) {', '.join(missing)}")

    def text(self, key: str) -> str:
        value = self.data.get(key)
        if not isinstance(value, str) or not value.strip():
            raise self.fail(f"{key} must be a non-empty string")
        return value

    def words(self, key: str) -> Localized:
        """A text for people, with its translations from ``<key>_<lang>`` beside it."""
        english = self.text(key)
        translations = {}
        for lang in LANGUAGES:
            name = f"{key}_{lang}"
            if lang != "en" and name in self.data:
                translations[lang] = self.text(name)
        return Localized(english, translations)

    def opt_words(self, key: str) -> Localized | None:
        return self.words(key) if key in self.data else None

    def opt_text(self, key: str) -> str | None:
        if key not in self.data:
            return None
        return self.text(key)

    def flag(self, key: str, default: bool | None = None) -> bool:
        if key not in self.data and default is not None:
            return default
        value = self.data.get(key)
        if not isinstance(value, bool):
            raise self.fail(f"{key} must be true or false")
        return value

    def opt_flag(self, key: str) -> bool | None:
        if key not in self.data:
            return None
        return self.flag(key)

    def opt_float(self, key: str) -> float | None:
        if key not in self.data:
            return None
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise self.fail(f"{key} must be a positive number")
        return float(value)

    def str_list(
        self,
        key: str,
        *,
        required: bool = False,
        check: Callable[[str], bool] | None = None,
        what: str = "",
    ) -> tuple[str, ...]:
        if key not in self.data:
            if required:
                raise self.fail(f"missing key {key}")
            return ()
        value = self.data[key]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.fail(f"{key} must be a list of non-empty strings")
        items = tuple(str(v) for v in value)
        if check is not None:
            for item in items:
                if not check(item):
                    raise self.fail(f"{key}: {item!r} is not {what or 'valid'}")
        if len(set(items)) != len(items):
            raise self.fail(f"{key} has duplicates")
        return items

    def str_map(self, key: str) -> dict[str, Any]:
        if key not in self.data:
            return {}
        value = self.data[key]
        if not isinstance(value, dict):
            raise self.fail(f"{key} must be an inline table")
        return value

    def source(self) -> str:
        return self.text("source")

    def gfx(self, key: str = "gfx") -> str:
        value = self.text(key)
        if not GFX_RE.match(value):
            raise self.fail(f"{key} {value!r} does not look like a gfx target (gfx1100, gfx90a)")
        return value

    def opt_gfx(self, key: str = "gfx") -> str | None:
        if key not in self.data:
            return None
        return self.gfx(key)

    def version(self, key: str) -> str:
        value = self.text(key)
        if not VERSION_RE.match(value):
            raise self.fail(f"{key} {value!r} is not a version like 6.2 or 6.2.4")
        return value


def is_gfx(value: str) -> bool:
    return bool(GFX_RE.match(value))


def is_version(value: str) -> bool:
    return bool(VERSION_RE.match(value))


def is_apt_uri_prefix(value: str) -> bool:
    return bool(APT_URI_PREFIX_RE.match(value)) and "/../" not in value and "/./" not in value


def is_wheel_version(value: str) -> bool:
    return bool(WHEEL_VERSION_RE.match(value))


def rows(file: str, data: Mapping[str, Any], table: str, *, required: bool = True) -> list[Row]:
    value = data.get(table)
    if value is None:
        if required:
            raise KnowledgeError(f"{file}: no [[{table}]] rows")
        return []
    if not isinstance(value, list):
        raise KnowledgeError(f"{file}: {table} must be an array of tables ([[{table}]])")
    return [Row(file, table, i, item) for i, item in enumerate(value)]


def check_top_level(file: str, data: Mapping[str, Any], allowed: Sequence[str]) -> None:
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise KnowledgeError(f"{file}: unknown top-level table(s) {', '.join(unknown)}")


def unique(file: str, table: str, values: Iterable[str], what: str) -> None:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise KnowledgeError(f"{file}: [[{table}]] {what} {value!r} appears twice")
        seen.add(value)


def read_table(folder: Path, name: str) -> dict[str, Any]:
    path = folder / name
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError as exc:
        raise KnowledgeError(f"{name}: missing from {folder}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise KnowledgeError(f"{name}: not valid TOML: {exc}") from exc


def gfx_base(gfx: str) -> str:
    """``"gfx90a:sramecc+:xnack-"`` -> ``"gfx90a"`` (feature suffixes stripped, lowercase)."""
    return gfx.strip().split(":", 1)[0].lower()


def version_tuple(version: str) -> tuple[int, ...]:
    parts: list[int] = []
    for piece in version.split("."):
        digits = re.match(r"[0-9]+", piece)
        parts.append(int(digits.group(0)) if digits else 0)
    return tuple(parts)


def norm_pci(vendor_device: str) -> str | None:
    text = vendor_device.strip().lower()
    if ":" not in text:
        return None
    vendor, device = (p.strip().removeprefix("0x") for p in text.split(":", 1))
    key = f"{vendor.zfill(4)}:{device.zfill(4)}"
    return key if PCI_RE.match(key) else None


def norm_revision(revision: str | None) -> str | None:
    if revision is None:
        return None
    text = revision.strip().lower().removeprefix("0x")
    if not text:
        return None
    return text.zfill(2)
