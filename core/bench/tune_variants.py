"""The settings ``rocmate tune`` tries (resources/data/tune_variants.toml): which variables or
bench options, on which platform and card family, and why each may help (a source per row).

A variant is data; :func:`applicability` says, for one suite on one platform and card, whether
it is measured or why not ("not applicable" is shown, never dropped)."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import tomllib

from core.bench.worker import suites as suite_defaults
from core.bench.worker.options import BenchOptions, takes
from core.i18n import t
from core.knowledge.rows import KnowledgeError, Row, check_top_level, rows
from core.resources import data_dir

PLATFORMS = ("rocm", "cuda", "cpu")
OPTION_NAMES = ("precision", "channels_last", "compile")
"""The bench options a variant may set (fields of BenchOptions)."""
BACKEND_PLATFORM = {"hip": "rocm", "cuda": "cuda", "cpu": "cpu"}
"""The worker's ``hello.backend`` as a platform of the table."""
TUNING_FILE = "PYTORCH_TUNABLEOP_FILENAME"


@dataclass(frozen=True)
class Variant:
    id: str
    title: str  # Localized: core.i18n.local() gives it in the current language
    why: str  # Localized
    source: str
    env: dict[str, str] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    keep_env: dict[str, str] = field(default_factory=dict)
    """What "Keep these" writes ({venv}: the environment's folder); empty: :attr:`env`."""
    tuning_file: bool = False
    suites: tuple[str, ...] = ()
    platforms: tuple[str, ...] = PLATFORMS
    families: tuple[str, ...] = ()
    skip_families: tuple[str, ...] = ()

    def kept_env(self, venv: str) -> dict[str, str]:
        """The variables "Keep these" writes for this variant into the environment ``venv``."""
        chosen = self.keep_env or self.env
        return {k: v.replace("{venv}", venv.rstrip("/")) for k, v in chosen.items()}

    def apply(self, options: BenchOptions) -> BenchOptions:
        """``options`` with this variant's bench options."""
        return BenchOptions.from_values({**options.settings(), **self.options})


@dataclass(frozen=True)
class Applicability:
    applies: bool
    reason: str = ""
    """Why it is not measured here, in words (the current language)."""
    code: str = ""
    """The reason as an id: suite | platform | family | default | option."""


def load_variants(path: Path | None = None) -> tuple[Variant, ...]:
    """The variants of ``path`` (default resources/data/tune_variants.toml), in order; a row
    that cannot be used raises KnowledgeError naming it."""
    return _load(str(path or data_dir() / "tune_variants.toml"))


@lru_cache(maxsize=4)
def _load(path: str) -> tuple[Variant, ...]:
    name = Path(path).name
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise KnowledgeError(f"{name}: {exc}") from exc
    check_top_level(name, data, ("variant",))
    found: list[Variant] = []
    for row in rows(name, data, "variant"):
        found.append(_variant(row))
    ids = [v.id for v in found]
    if len(set(ids)) != len(ids):
        raise KnowledgeError(f"{name}: duplicate variant ids")
    return tuple(found)


def _variant(row: Row) -> Variant:
    row.check_keys(("id", "title", "why", "source", "suites", "platforms"),
                   ("env", "options", "keep_env", "tuning_file", "families", "skip_families"))
    env = {str(k): str(v) for k, v in row.str_map("env").items()}
    options = dict(row.str_map("options"))
    if bool(env) == bool(options):
        raise row.fail("a variant sets env or options (one of them)")
    unknown = sorted(set(options) - set(OPTION_NAMES))
    if unknown:
        raise row.fail(f"options: {', '.join(unknown)} not one of {', '.join(OPTION_NAMES)}")
    from core.bench.worker.protocol import SUITES

    suites = row.str_list("suites", required=True, check=lambda s: s in SUITES, what="a suite")
    for option in options:
        for suite in suites:
            if not takes(suite, option):
                raise row.fail(f"{suite} does not take the option {option}")
    return Variant(
        id=row.text("id"), title=row.words("title"), why=row.words("why"), source=row.source(),
        env=env, options=options,
        keep_env={str(k): str(v) for k, v in row.str_map("keep_env").items()},
        tuning_file=row.flag("tuning_file", False), suites=suites,
        platforms=row.str_list("platforms", required=True, check=lambda p: p in PLATFORMS,
                               what="rocm, cuda or cpu"),
        families=row.str_list("families"), skip_families=row.str_list("skip_families"))


def _matches(gfx: str | None, patterns: tuple[str, ...]) -> bool:
    base = (gfx or "").split(":")[0]  # gfx90a:sramecc+:xnack- names the target gfx90a
    return bool(base) and any(fnmatch.fnmatchcase(base, p) for p in patterns)


def applicability(variant: Variant, suite: str, platform: str, gfx: str | None,
                  base: BenchOptions) -> Applicability:
    """Whether ``variant`` is measured for ``suite`` on ``platform`` (rocm, cuda, cpu) and the
    card ``gfx`` (ROCm's target; None elsewhere or unknown), against the default run's
    options ``base``; if not, why."""
    if suite not in variant.suites:
        return Applicability(False, t("tune.na.suite", "{suite} does not use it",
                                      suite=suite), "suite")
    if platform not in variant.platforms:
        return Applicability(False, t("tune.na.platform", "only for {platforms}",
                                      platforms=", ".join(_platform_word(p)
                                                          for p in variant.platforms)),
                             "platform")
    if platform == "rocm":
        if variant.skip_families and _matches(gfx, variant.skip_families):
            return Applicability(False, t("tune.na.default-here", "already PyTorch's default "
                                          "on {gfx}", gfx=gfx or "?"), "default")
        if variant.families and not _matches(gfx, variant.families):
            return Applicability(False, t("tune.na.family", "for {families}, not {gfx}",
                                          families=", ".join(variant.families),
                                          gfx=gfx or t("tune.na.unknown-card",
                                                       "an unknown card")), "family")
    if variant.options:
        changed = variant.apply(base)
        if _resolved(changed, platform) == _resolved(base, platform):
            return Applicability(False, t("tune.na.same", "the default here already"),
                                 "default")
    return Applicability(True)


def _resolved(options: BenchOptions, platform: str) -> tuple[Any, ...]:
    """What the worker would run: the precision a suite picks when none is given included."""
    precision = suite_defaults.precision(options.suite, options.precision,
                                         gpu=platform != "cpu")
    return precision, options.channels_last, options.compile


def _platform_word(platform: str) -> str:
    return {"rocm": "ROCm", "cuda": "CUDA", "cpu": t("tune.platform.cpu", "the CPU")}[platform]
