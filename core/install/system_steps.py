"""The privileged steps every route may plan: removing ROCm packages of other releases, the
render and video groups, python3-venv where the system's python3 lacks ensurepip, and reading
apt's package lists.

The helper's verbs (core.install.helper.policy) are the authority for what these steps name.
"""

from __future__ import annotations

import re

from core.diagnose.context import Context
from core.i18n import t
from core.install.helper.policy import PURGEABLE, USER_NAME
from core.install.plan import FileSpec, Step
from core.install.plan_builder import PlanBuilder

MAX_PACKAGES_PER_STEP = 32
_PACKAGE_RELEASE = re.compile(r"\.(\d{1,2})(\d\d)(\d\d)-")
# The Core SDK names its series in every package (amdrocm10.0, amdrocm-core10.0-gfx1151): the
# shortest prefix before X.Y, so "amdrocm-core10.0" is 10.0 (core/probe/rocm.py reads them alike).
_CORE_SDK_PACKAGE = re.compile(
    r"^amdrocm(?:-[a-z][a-z0-9-]*?)?(\d{1,2}\.\d{1,2})(?:-gfx[0-9a-f]+)?$"
)


def release_of_package(version: str) -> str | None:
    """The ROCm series an AMD package version belongs to: "6.2.41133.60200-66~22.04" -> "6.2"."""
    match = _PACKAGE_RELEASE.search(version)
    if not match:
        return None
    return f"{int(match.group(1))}.{int(match.group(2))}"


def series_of_package(name: str, version: str) -> str | None:
    """The ROCm series of an installed package: a Core SDK package's from its name
    ("amdrocm-core10.0-gfx1151" -> "10.0"), a legacy one's from its version."""
    named = _CORE_SDK_PACKAGE.match(name)
    if named:
        return named.group(1)
    return release_of_package(version)


def apt_family(ctx: Context) -> bool:
    """Whether the distribution installs with apt (Debian, Ubuntu and their derivatives)."""
    platform = ctx.facts.platform
    if platform.is_ubuntu_family:
        return True
    family = ctx.kb.family_for(platform.distro_id, platform.id_like)
    return bool(family and family.package_manager == "apt")


def remove_old(builder: PlanBuilder) -> None:
    """Offer to purge ROCm packages of other releases (runs only with the user's consent)."""
    facts = builder.facts
    installs = facts.rocm.installs
    series = facts.rocm.series
    newest = series[0] if series else ""
    keep_series = builder.apt_release.version if builder.apt_release else newest
    several = len({i.version for i in installs}) >= 2
    if not installs or not (several or builder.apt_release):
        return
    names = sorted(
        p.name
        for p in facts.rocm.dpkg_packages
        if PURGEABLE.match(p.name)
        and (series_of_package(p.name, p.version or "") or keep_series) != keep_series
    )
    if not names:
        if several:
            builder.notes.append(t(
                "plan.note.old-rocm-outside-dpkg",
                "Several ROCm versions are installed outside dpkg; remove the old ones by "
                "hand.",
            ))
        return
    chunks = [
        names[i : i + MAX_PACKAGES_PER_STEP]
        for i in range(0, len(names), MAX_PACKAGES_PER_STEP)
    ]
    for number, chunk in enumerate(chunks):
        builder.add(
            Step(
                "remove-old-rocm" + (f"-{number + 1}" if number else ""),
                t("plan.remove-old-rocm.title",
                  "Remove ROCm packages of releases other than {release}", release=keep_series)
                if keep_series else
                t("plan.remove-old-rocm.title.this-one",
                  "Remove ROCm packages of releases other than this one"),
                t("plan.remove-old-rocm.explain",
                  "Old ROCm libraries on the search path mix with new ones. Runs only if you "
                  "agree ({option}).", option="--remove-old"),
                privileged=True,
                argv=("apt-get", "purge", "-y", *chunk),
                consent=builder.choices.remove_old,
            )
        )


def signing_key(builder: PlanBuilder, url: str, path: str, fingerprint: str) -> None:
    """An apt repository's key: downloaded from ``url`` and written to ``path`` by the root
    helper only if its fingerprint is ``fingerprint`` (both AMD repositories' first step)."""
    builder.add(
        Step(
            "apt-keyring",
            t("plan.apt-keyring.title", "Add AMD's signing key"),
            t("plan.apt-keyring.explain",
              "Downloads {url} and writes it to {path} only if its fingerprint is "
              "{fingerprint} (never {command}).", url=url, path=path,
              fingerprint=fingerprint, command="apt-key"),
            privileged=True,
            file=FileSpec(path, source_url=url),
            key_fingerprint=fingerprint,
            kind="file",
        )
    )


def apt_update(builder: PlanBuilder) -> None:
    """Read AMD's package lists (after a repository's source step)."""
    builder.add(
        Step(
            "apt-update",
            t("plan.apt-update.title", "Read AMD's package lists"),
            t("plan.apt-update.explain",
              "{command} checks the repository's signature with the key above.",
              command="apt-get update"),
            privileged=True,
            argv=("apt-get", "update"),
        )
    )


def groups(builder: PlanBuilder) -> None:
    """The render and video groups, where the device nodes are not open to everyone."""
    perms = builder.facts.permissions
    if perms.is_root or builder.facts.platform.wsl or perms.open_to_everyone:
        return  # 0666 device nodes (Fedora, SteamOS setups): a group changes nothing
    missing = [g for g in ("render", "video") if g not in perms.user.groups]
    if not missing:
        return
    if not USER_NAME.match(perms.user.name):
        builder.notes.append(t(
            "plan.note.groups-by-hand",
            "Add yourself to the render and video groups by hand ({command}); rocmate's "
            "root helper takes only plain local user names.",
            command=f"sudo usermod -aG render,video {perms.user.name}",
        ))
        return
    builder.add(
        Step(
            "groups",
            t("plan.groups.title", "Add {user} to the render and video groups",
              user=perms.user.name),
            t("plan.groups.explain",
              "The GPU's device nodes belong to these groups. Takes effect after you log out "
              "and back in."),
            privileged=True,
            argv=("usermod", "-aG", "render,video", perms.user.name),
            after="relogin",
        )
    )


def venv_package(builder: PlanBuilder) -> None:
    """python3-venv where the system's python3 has no ensurepip (Debian, Ubuntu: a fresh
    Ubuntu 24.04 desktop lacks python3.12-venv, so ``python3 -m venv`` fails). The helper's
    apt-get verb allows exactly this name; python3-venv pulls in the python3.X-venv of the
    distribution's python3. Elsewhere the pre-flight check says what is missing."""
    if builder.facts.ensurepip is not False or not apt_family(builder.ctx):
        return
    if not any(s.id == "apt-update" for s in builder.steps):
        _apt_update_distribution(builder)
    builder.add(
        Step(
            "python3-venv",
            t("plan.python3-venv.title", "Install {package}", package="python3-venv"),
            t("plan.python3-venv.explain",
              "The system's python3 has no {module}, so {command} cannot make the "
              "environment; Debian and Ubuntu ship it in {package}.",
              module="ensurepip", command="python3 -m venv", package="python3-venv"),
            privileged=True,
            argv=("apt-get", "install", "-y", "python3-venv"),
        )
    )


def _apt_update_distribution(builder: PlanBuilder) -> None:
    builder.add(
        Step(
            "apt-update",
            t("plan.apt-update-distribution.title", "Read the package lists"),
            t("plan.apt-update-distribution.explain",
              "{command}, so the package below is found at its current version.",
              command="apt-get update"),
            privileged=True,
            argv=("apt-get", "update"),
        )
    )
