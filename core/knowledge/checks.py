"""Checks across the tables: every GPU's target has a support row, support rows agree with
the release table, overrides with their rules, TheRock families and wheel indexes with
the releases. A table's own rows are checked by its module.
"""

from __future__ import annotations

from core.knowledge.gpus import GpuRow
from core.knowledge.overrides import OverrideRule
from core.knowledge.releases import RocmRelease
from core.knowledge.rows import KnowledgeError, version_tuple
from core.knowledge.support import TargetSupport
from core.knowledge.wheels import TheRockIndex, TorchIndex


def cross_check(
    *,
    gpus: tuple[GpuRow, ...],
    releases: tuple[RocmRelease, ...],
    targets: tuple[TargetSupport, ...],
    overrides: tuple[OverrideRule, ...],
    therock: tuple[TheRockIndex, ...],
    torch_indexes: tuple[TorchIndex, ...],
) -> None:
    """Raise :class:`KnowledgeError` for the first contradiction between the tables."""
    by_version = {r.version: r for r in releases}
    all_versions = set(by_version) | {p for r in releases for p in r.patches}
    support = {t.gfx: t for t in targets}
    families = {t.family: t for t in therock}
    rules = {r.gfx: r for r in overrides}

    for gpu in gpus:
        if gpu.gfx is not None and gpu.gfx not in support:
            raise KnowledgeError(
                f"gpus.toml: {gpu.name} ({gpu.pci_id}) has target {gpu.gfx}, "
                f"but support.toml has no [[target]] row for it"
            )
    for target in targets:
        where = f"support.toml: [[target]] {target.gfx}"
        for version in target.rocm:
            release = by_version.get(version)
            if release is None:
                raise KnowledgeError(f"{where}: rocm {version} is not a release in rocm.toml")
            if target.gfx not in release.targets:
                raise KnowledgeError(
                    f"{where}: rocm.toml release {version} does not list {target.gfx}"
                )
        listed = [r.version for r in releases if target.gfx in r.targets]
        missing = sorted(set(listed) - set(target.rocm), key=version_tuple)
        if missing:
            raise KnowledgeError(
                f"{where}: rocm.toml releases {', '.join(missing)} list {target.gfx} "
                f"but the row's rocm list does not"
            )
        current = [v for v in target.rocm if by_version[v].current]
        if target.status == "official" and not current:
            raise KnowledgeError(f"{where}: official, but no current release lists it")
        if target.status != "official" and current:
            raise KnowledgeError(
                f"{where}: current release(s) {', '.join(current)} list it, so it is official"
            )
        if target.status == "override":
            rule = rules.get(target.gfx)
            if rule is None or rule.override != target.override:
                raise KnowledgeError(
                    f"{where}: override {target.override} has no matching overrides.toml rule"
                )
        if target.therock is not None:
            family = families.get(target.therock)
            if family is None:
                raise KnowledgeError(
                    f"{where}: therock family {target.therock} is not in torch.toml"
                )
            if target.gfx not in family.targets:
                raise KnowledgeError(
                    f"{where}: torch.toml therock family {target.therock} "
                    f"does not list {target.gfx}"
                )
    for rule in overrides:
        if rule.until_rocm is not None and rule.until_rocm not in all_versions:
            raise KnowledgeError(
                f"overrides.toml: [[rule]] {rule.gfx}: until_rocm {rule.until_rocm} "
                f"is not a release or patch in rocm.toml"
            )
    for index in torch_indexes:
        if index.rocm not in by_version:
            raise KnowledgeError(
                f"torch.toml: [[index]] {index.name}: rocm {index.rocm} is not in rocm.toml"
            )
