"""What every rule needs besides the facts: each GPU's support, the card, the override in force."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from core.i18n import Localized, language, t
from core.knowledge.loader import Knowledge
from core.knowledge.rows import gfx_base
from core.probe.facts import Facts
from core.probe.gpus import Gpu
from core.probe.parse.kfd import override_to_gfx, parse_gfx_override

STATUS_RANK = {"official": 0, "override": 1, "unknown": 2, "unsupported": 3, "not-amd": 4}
"""``unknown``: a target newer than rocmate's tables (gfx1154, gfx1170): not known to run, not
known not to (issue 32)."""


@dataclass(frozen=True)
class Support:
    status: str
    override: str | None
    rocm: tuple[str, ...]
    note: str
    therock: str | None = None
    confidence: str | None = None
    caveat: str | None = None

    @property
    def usable(self) -> bool:
        return self.status in ("official", "override")

    def to_json(self) -> dict[str, object]:
        return {
            "status": self.status,
            "override": self.override,
            "rocm": list(self.rocm),
            "note": self.note,
            "therock": self.therock,
        }


def _note(english: str, said: str) -> Localized:
    """A note of rocmate's own, kept as the knowledge base keeps its notes: the English (what
    the report's JSON carries) with the current language's words beside it."""
    return Localized(english, {language(): said})


def support_for(gpu: Gpu, kb: Knowledge) -> Support:
    """How (and whether) ROCm PyTorch runs on ``gpu``, from the knowledge base."""
    if not gpu.is_amd:
        return Support("not-amd", None, (), _note(
            "Not an AMD GPU: ROCm does not drive it.",
            t("probe.support.not-amd", "Not an AMD GPU: ROCm does not drive it.")))
    if gpu.gfx is None:
        return Support(
            "unsupported",
            None,
            (),
            _note("ROCm's kernel driver (KFD) does not know this chip, so no ROCm release can "
                  "use it.",
                  t("probe.support.no-gfx", "ROCm's kernel driver (KFD) does not know this "
                    "chip, so no ROCm release can use it.")),
        )
    row = kb.support_for(gpu.gfx)
    if row is None and newer_than_known(gpu.gfx, kb):
        return Support("unknown", None, (), _note(
            f"{gpu.gfx} is newer than rocmate's tables: whether ROCm and PyTorch run on it is "
            "not known to rocmate yet (AMD's newest per-device wheels may carry it).",
            t("probe.support.newer", "{gfx} is newer than rocmate's tables: whether ROCm and "
              "PyTorch run on it is not known to rocmate yet (AMD's newest per-device wheels "
              "may carry it).", gfx=gpu.gfx)))
    if row is None:
        return Support("unsupported", None, (), _note(
            f"{gpu.gfx} is not in rocmate's knowledge base.",
            t("probe.support.not-known", "{gfx} is not in rocmate's knowledge base.",
              gfx=gpu.gfx)))
    rule = kb.override_rule(gpu.gfx) if row.status == "override" else None
    return Support(
        status=row.status,
        override=row.override,
        rocm=tuple(row.rocm),
        note=row.note,
        therock=row.therock,
        confidence=rule.confidence if rule else None,
        caveat=rule.caveat if rule else None,
    )


def gfx_version(gfx: str) -> tuple[int, int, int] | None:
    """``"gfx1154"`` -> (11, 5, 4), ``"gfx90a"`` -> (9, 0, 10); None for a name that is not one."""
    name = gfx_base(gfx)
    if not re.fullmatch(r"gfx[0-9]{1,2}[0-9a-f]{2}", name):
        return None
    digits = name[3:]
    return int(digits[:-2]), int(digits[-2], 16), int(digits[-1], 16)


def newer_than_known(gfx: str, kb: Knowledge) -> bool:
    """True for a target the tables do not know that is newer than every target they know of
    its major version (or of a major version above them all): a new card, not an old one."""
    wanted = gfx_version(gfx)
    if wanted is None or kb.support_for(gfx) is not None:
        return False
    known = [v for v in (gfx_version(row.gfx) for row in kb.targets) if v is not None]
    same_major = [v for v in known if v[0] == wanted[0]]
    if same_major:
        return wanted > max(same_major)
    return bool(known) and wanted[0] > max(v[0] for v in known)


def data_parallel_gpus(gpus: Sequence[Gpu], supports: Sequence[Support]) -> list[Gpu]:
    """The GPUs a data-parallel run puts a rank on: the discrete AMD cards ROCm serves; where
    there are fewer than two of them, two NVIDIA cards or more (rocmate's benchmarks run on CUDA
    too). The doctor names these, and the Benchmark page offers the data-parallel mode for them."""
    amd = [g for g, s in zip(gpus, supports, strict=True)
           if g.is_amd and s.usable and not g.integrated]
    nvidia = [g for g in gpus if g.vendor == "nvidia" and not g.integrated]
    return nvidia if len(amd) < 2 <= len(nvidia) else amd


@dataclass(frozen=True)
class OverrideSetting:
    """The HSA_OVERRIDE_GFX_VERSION value that applies to one GPU, and where it came from."""

    value: str
    variable: str
    gfx: str | None
    """The target the value poses as, None when the value is malformed."""
    origin: str | None = None
    """None when this process has it, else the rocmate-env.sh that sets it for runs."""

    @property
    def valid(self) -> bool:
        return self.gfx is not None


@dataclass
class Context:
    facts: Facts
    kb: Knowledge

    @cached_property
    def supports(self) -> list[Support]:
        return [support_for(g, self.kb) for g in self.facts.gpus.gpus]

    @cached_property
    def amd(self) -> list[tuple[Gpu, Support]]:
        pairs = zip(self.facts.gpus.gpus, self.supports, strict=True)
        return [(g, s) for g, s in pairs if g.is_amd]

    @cached_property
    def primary(self) -> tuple[Gpu, Support] | None:
        """The AMD GPU a user would train on: usable first, discrete first, then the most VRAM."""
        if not self.amd:
            return None

        def key(item: tuple[Gpu, Support]) -> tuple[int, int, int, int]:
            gpu, support = item
            # an RX 6700 XT (override) beside an official 780M is still the card to train on
            return (int(not support.usable), int(gpu.integrated), STATUS_RANK[support.status],
                    -(gpu.vram_bytes or 0))

        return min(self.amd, key=key)

    @property
    def usable_amd(self) -> list[tuple[Gpu, Support]]:
        return [(g, s) for g, s in self.amd if s.usable]

    @property
    def native(self) -> bool:
        return self.facts.platform.wsl is None

    @property
    def torch_targets(self) -> set[str] | None:
        """The gfx targets the chosen ROCm PyTorch carries code for; None when unknown (no
        ROCm build, or no arch list)."""
        torch = self.facts.torch
        if torch is None or torch.build != "rocm" or not torch.arch_list:
            return None
        return {a.split(":")[0] for a in torch.arch_list}

    def torch_has_native_code(self, gpu: Gpu) -> bool:
        targets = self.torch_targets
        return bool(targets) and gpu.gfx in (targets or ())

    def override_serves(self, gpu: Gpu, setting: OverrideSetting) -> bool:
        """The override is the card's known workaround (overrides.toml) and the installed
        PyTorch has no code for the card's own target but has it for the one the override poses
        as: the override is what makes it run (an RX 7800 XT, official from ROCm 6.4.1 on, with a
        torch 2.5 wheel that carries gfx1100 and not gfx1101)."""
        targets = self.torch_targets
        rule = self.kb.override_rule(gpu.gfx) if gpu.gfx else None
        return (targets is not None and rule is not None and setting.valid
                and setting.gfx == override_to_gfx(rule.override)
                and gpu.gfx not in targets and setting.gfx in targets)

    def override_for(self, gpu: Gpu) -> OverrideSetting | None:
        """The override the ROCm runtime would apply to ``gpu`` (per-node form first)."""
        env = self.facts.environment
        if gpu.kfd_node is not None:
            per_node = env.per_node_overrides().get(gpu.kfd_node)
            if per_node is not None:
                name = f"HSA_OVERRIDE_GFX_VERSION_{gpu.kfd_node}"
                return make_setting(per_node, name, env.source(name))
        value = env.get("HSA_OVERRIDE_GFX_VERSION")
        if value is None:
            return None
        return make_setting(value, "HSA_OVERRIDE_GFX_VERSION",
                            env.source("HSA_OVERRIDE_GFX_VERSION"))

    def effective_gfx(self, gpu: Gpu) -> str | None:
        """The target the runtime picks code for: a valid override, else the card's own."""
        setting = self.override_for(gpu)
        if setting is not None and setting.valid:
            return setting.gfx
        return gpu.gfx

    def rocm_index(self, gpu: Gpu) -> int | None:
        """The device index ROCm/PyTorch gives ``gpu`` (KFD GPU nodes in node order)."""
        nodes = [n.node for n in self.facts.gpus.kfd_nodes]
        if gpu.kfd_node is not None and gpu.kfd_node in nodes:
            return nodes.index(gpu.kfd_node)
        amd = [g for g, _ in self.amd]
        return amd.index(gpu) if gpu in amd else None


def make_setting(value: str, variable: str, origin: str | None = None) -> OverrideSetting:
    gfx = override_to_gfx(value) if parse_gfx_override(value) is not None else None
    return OverrideSetting(value=value, variable=variable, gfx=gfx, origin=origin)


def fits(setting: OverrideSetting, support: Support, gpu: Gpu) -> bool:
    """Whether an override suits a GPU: its recommended value, or the card posing as itself."""
    if not setting.valid:
        return False
    if support.status == "override":
        return setting.gfx == override_to_gfx(support.override or "") or setting.gfx == gpu.gfx
    if support.status == "official":
        return setting.gfx == gpu.gfx
    return False
