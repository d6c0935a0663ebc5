"""The ROCm Core SDK's apt route (7.14 on: stable.repo.amd.com, amdrocmX.Y-gfxNNNN packages,
/opt/rocm/core-X.Y): the release's own signing key, a deb822 source, no pin, and AMD's meta
packages for the card's target.

core.install.apt_route calls :func:`add_source`, :func:`packages` and :func:`add_layout_note`
for a release whose ``stream`` is ``core-sdk``; :func:`core_sdk_route` says whether rocmate can
plan one at all.
"""

from __future__ import annotations

from core.diagnose.release_choice import code_target, ubuntu_version
from core.i18n import t

# what the helper accepts is the authority for what a plan names
from core.install.helper.policy import CORE_SDK_KEYRING, CORE_SDK_SOURCES
from core.install.plan import FileSpec, Step
from core.install.plan_builder import PlanBuilder
from core.install.system_steps import apt_update, signing_key
from core.knowledge.loader import Knowledge
from core.knowledge.releases import RocmRelease
from core.knowledge.rows import gfx_base

CORE_SDK_PACKAGE_SETS = {
    # AMD's meta packages for the Core SDK, {series} X.Y and {gfx} "-gfxNNNN" (or "" for every
    # target): ROCm Base, and ROCm Developer Essentials plus the profilers, the nearest to the
    # legacy rocm-hip-sdk + rocm-developer-tools (ROCm/rocm-docs 200-install.rst, ROCm meta
    # packages)
    "runtime": ("amdrocm{series}{gfx}",),
    "sdk": ("amdrocm-core-dev{series}{gfx}", "amdrocm-developer-tools{series}"),
}


def core_sdk_route(kb: Knowledge, release: RocmRelease) -> bool:
    """Whether rocmate can plan ``release``'s Core SDK apt route: the row pins its signing key
    (key_url, key_fingerprint) and its repository (apt_uri_template, apt_suite), and the root
    helper accepts both ([repository] trusted_fingerprints and apt_uri_prefixes)."""
    repo = kb.repository
    return bool(
        release.stream == "core-sdk"
        and release.key_url
        and release.key_fingerprint
        and release.apt_uri_template
        and release.apt_suite
        and release.key_fingerprint in repo.trusted
        and any(release.apt_uri_template.startswith(p) for p in repo.apt_uri_prefixes)
    )


def add_source(builder: PlanBuilder, release: RocmRelease, codename: str) -> None:
    """The Core SDK's repository as AMD's install page sets it up: its own key in
    /etc/apt/keyrings/amdrocm.gpg and a deb822 source; no pin (the amdrocm* names are
    AMD's alone)."""
    assert release.key_url and release.key_fingerprint
    assert release.apt_uri_template and release.apt_suite
    kb = builder.ctx.kb
    ubuntu = ubuntu_version(kb, builder.facts.platform) or (kb.ubuntu_version_for(codename) or "")
    uri = release.apt_uri_template.format(version_nodot=ubuntu.replace(".", ""))
    signing_key(builder, release.key_url, CORE_SDK_KEYRING, release.key_fingerprint)
    content = (
        "Types: deb\n"
        f"URIs: {uri}\n"
        f"Suites: {release.apt_suite}\n"
        "Components: main\n"
        "Architectures: amd64\n"
        f"Signed-By: {CORE_SDK_KEYRING}\n"
    )
    builder.add(
        Step(
            "apt-source",
            t("plan.apt-source.title", "Add AMD's ROCm {version} repository for {codename}",
              version=release.version, codename=codename),
            t("plan.apt-source-core-sdk.explain",
              "AMD's ROCm Core SDK repository for Ubuntu {ubuntu} (suite {suite}), in apt's "
              "deb822 format, bound to AMD's key with {option}.",
              ubuntu=ubuntu, suite=release.apt_suite, option="Signed-By"),
            privileged=True,
            file=FileSpec(CORE_SDK_SOURCES, content=content),
            kind="file",
        )
    )
    apt_update(builder)


def packages(builder: PlanBuilder, release: RocmRelease) -> tuple[str, ...]:
    """AMD's meta packages for the card's target (the one its override poses as), or the
    ones for every target where the release does not list it."""
    target = None
    if builder.ctx.primary is not None:
        target = code_target(*builder.ctx.primary)
    gfx = f"-{gfx_base(target)}" if target and release.lists(target) else ""
    names = CORE_SDK_PACKAGE_SETS[builder.choices.package_set]
    return tuple(n.format(series=release.version, gfx=gfx) for n in names)


def add_layout_note(builder: PlanBuilder, release: RocmRelease) -> None:
    """Where the release installs, and AMD's way to remove it."""
    builder.notes.append(t(
        "plan.note.core-sdk-layout",
        "The ROCm Core SDK {version} installs into {path}, beside other Core SDK "
        "releases; AMD's way to remove it later: {command}.",
        version=release.version, path=f"/opt/rocm/core-{release.version}",
        command=f"sudo apt autoremove amdrocm{release.version}",
    ))
