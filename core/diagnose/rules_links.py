"""Rules about several GPUs and how the GPUs are connected: the cards a data-parallel run can
use, cards that differ, and a card on a narrow or slow PCIe link (core.probe.links). Several
NVIDIA GPUs (rocmate's benchmarks run on CUDA too) are said with how nvidia-smi sees them
connected: NVLink, or the PCIe path."""

from __future__ import annotations

from core.diagnose.context import Context, data_parallel_gpus
from core.diagnose.finding import Finding
from core.diagnose.rules_runtime import not_started
from core.i18n import t
from core.probe.gpus import Gpu
from core.probe.links import PcieLink
from core.probe.parse.nvidia_topo import PCIE_PATHS, GpuPath
from core.probe.parse.pcie import generation


def _training_gpus(ctx: Context) -> list[Gpu]:
    """The usable discrete AMD GPUs: the ones a data-parallel run puts a rank on."""
    return [g for g, _ in ctx.usable_amd if not g.integrated]


def several_gpus(ctx: Context) -> list[Finding]:
    stopped = [g for g, _, _ in not_started(ctx)]  # driver-not-started speaks of these
    gpus = [g for g in data_parallel_gpus(ctx.facts.gpus.gpus, ctx.supports) if g not in stopped]
    if len(gpus) < 2:
        return []
    if not gpus[0].is_amd:
        return [_several_nvidia(ctx, gpus)]
    names = _names(gpus)
    findings = [_several(
        gpus,
        t("doctor.gpus-several.detail",
          "How they are connected: {link}. PyTorch trains on several GPUs with one process per "
          "GPU (torch.distributed); on ROCm its nccl backend is RCCL, and the gradients go "
          "from card to card at every step.", link=_between(ctx, gpus)))]
    kinds = {(g.gfx, g.name) for g in gpus}
    if len(kinds) > 1:
        largest = max(kinds, key=lambda k: sum((g.gfx, g.name) == k for g in gpus))
        same = [g for g in gpus if (g.gfx, g.name) == largest]
        indexes = ",".join(str(ctx.rocm_index(g)) for g in same)
        advice = t("doctor.gpus-mixed.only-alike", "To train on the matching cards only: "
                   "{command}", command=f"export HIP_VISIBLE_DEVICES={indexes}")
        findings.append(Finding(
            "gpus-mixed", "info",
            t("doctor.gpus-mixed.title", "The GPUs are not alike: {gpus}", gpus=names),
            _sentences(t("doctor.gpus-mixed.detail",
                         "Data-parallel training waits for the slowest card at every step, so "
                         "different cards together give less than the sum of each, and the "
                         "PyTorch build needs code for every card's gfx target."),
                       advice if len(same) > 1 else ""),
        ))
    return findings


def _several_nvidia(ctx: Context, gpus: list[Gpu]) -> Finding:
    """Two NVIDIA GPUs or more (and not two usable AMD ones): what a data-parallel benchmark
    would use, and how nvidia-smi sees them connected."""
    return _several(gpus, t(
        "doctor.gpus-several.detail-nvidia",
        "How they are connected: {link}. PyTorch trains on several GPUs with one process per "
        "GPU (torch.distributed); its nccl backend is NCCL here, and the gradients go from "
        "card to card at every step.", link=_nvidia_between(ctx.facts.gpus.nvidia)))


def _several(gpus: list[Gpu], detail: str) -> Finding:
    """The ``gpus-several`` finding: the cards a data-parallel run would use, and ``detail``."""
    return Finding(
        "gpus-several", "info",
        t("doctor.gpus-several.title", "{count} GPUs for data-parallel training: {gpus}",
          count=len(gpus), gpus=_names(gpus)),
        detail)


def _nvidia_between(paths: tuple[GpuPath, ...] | None) -> str:
    """NVLink where every pair has it, else the longest PCIe path a pair takes (the one that
    sets the pace of an all-reduce)."""
    if not paths:
        return t("doctor.link.nvidia-unknown", "not known (nvidia-smi topo -m did not answer)")
    links = [p.nvlinks for p in paths if p.nvlinks]
    if len(links) == len(paths):
        if min(links) == max(links):
            return t("doctor.link.nvlink", "NVLink, directly ({count} links between each pair)",
                     count=links[0])
        return t("doctor.link.nvlink-uneven", "NVLink, directly ({least} to {most} links "
                 "between a pair)", least=min(links), most=max(links))
    pcie = [p.code for p in paths if not p.nvlinks]
    worst = max(pcie, key=PCIE_PATHS.index)
    words = {
        "PIX": t("doctor.link.pix", "through one PCIe switch (PIX)"),
        "PXB": t("doctor.link.pxb", "through several PCIe switches (PXB)"),
        "PHB": t("doctor.link.phb", "through the CPU's PCIe host bridge (PHB)"),
        "NODE": t("doctor.link.node", "between the PCIe host bridges of one CPU (NODE)"),
        "SYS": t("doctor.link.sys", "across the link between the CPU sockets (SYS), the slowest "
                 "way"),
    }[worst]
    if links:
        return t("doctor.link.nvlink-some", "NVLink between {some} of {pairs} pairs; the others "
                 "over PCIe, at worst {path}", some=len(links), pairs=len(paths), path=words)
    return t("doctor.link.nvidia-pcie", "PCIe, at worst {path}", path=words)


def _sentences(first: str, second: str) -> str:
    """Two sentences as one text (Chinese joins them without a space)."""
    return first + t("doctor.sentence-gap", " ") + second if second else first


def _names(gpus: list[Gpu]) -> str:
    """"4 × Instinct MI300X (gfx942)", alike cards counted, in the order they come."""
    counts: dict[str, int] = {}
    for gpu in gpus:
        name = f"{gpu.name} ({gpu.gfx})"
        counts[name] = counts.get(name, 0) + 1
    return t("doctor.list-separator", "; ").join(
        f"{count} × {name}" if count > 1 else name for name, count in counts.items())


def _between(ctx: Context, gpus: list[Gpu]) -> str:
    """How the GPUs reach each other: xGMI where the KFD lists it, else PCIe via the host;
    unknown where the KFD's io_links were not read."""
    nodes = {g.kfd_node for g in gpus if g.kfd_node is not None}
    peers = ctx.facts.gpus.peers
    if peers is None or len(nodes) < len(gpus):
        return t("doctor.link.unknown", "not known (the KFD topology's io_links were not "
                                        "read)")
    if any(p.kind == "xgmi" and p.from_node in nodes and p.to_node in nodes for p in peers):
        return t("doctor.link.xgmi", "xGMI (AMD Infinity Fabric), directly")
    links = [link for g in gpus if (link := ctx.facts.gpus.link_of(g)) is not None]
    slowest = min(links, key=lambda link: link.gbytes_per_s or 0.0, default=None)
    if slowest is None or slowest.gbytes_per_s is None:
        return t("doctor.link.pcie", "PCIe, through the host")
    return t("doctor.link.pcie-slowest",
             "PCIe, through the host (the slowest card's link: {link})", link=_shown(slowest))


def _shown(link: PcieLink) -> str:
    """"PCIe 4.0 x8, 15.8 GB/s each way"."""
    gen = generation(link.best_speed)
    name = f"PCIe {gen}.0" if gen else f"{link.best_speed:g} GT/s"
    return t("doctor.link.shown", "{name} x{lanes}, {gbs} GB/s each way", name=name,
             lanes=link.best_width, gbs=f"{link.gbytes_per_s:.1f}")


def gpu_links(ctx: Context) -> list[Finding]:
    """A discrete card on fewer lanes or a lower PCIe generation than it has."""
    findings = []
    for gpu in _training_gpus(ctx):
        link = ctx.facts.gpus.link_of(gpu)
        if link is None or not (link.narrow or link.slower) or link.card_gbytes_per_s is None:
            continue
        card_gen = generation(link.card_speed)
        card = f"PCIe {card_gen}.0 x{link.card_width}" if card_gen else f"x{link.card_width}"
        if link.narrow:
            finding = Finding(
                "gpu-link-narrow", "info",
                t("doctor.gpu-link-narrow.title", "{gpu} at {slot} gets {link}; the card has "
                  "{card}", gpu=gpu.name, slot=gpu.slot, link=_shown(link), card=card),
                t("doctor.gpu-link-narrow.detail",
                  "The slot or the way to the CPU gives the card fewer lanes than it has: "
                  "{gbs} GB/s each way instead of {card_gbs}. Training on one card hardly "
                  "notices; loading models does, and so does data-parallel training, whose "
                  "gradients cross this link at every step. Where that matters, put the card "
                  "in a slot wired x16 to the CPU (the board's manual says which slots share "
                  "lanes or hang off the chipset), and check the slot's settings in the BIOS "
                  "(lane splitting) and any riser cable.",
                  gbs=f"{link.gbytes_per_s:.1f}", card_gbs=f"{link.card_gbytes_per_s:.1f}"),
            )
        else:
            finding = Finding(
                "gpu-link-slow", "info",
                t("doctor.gpu-link-slow.title", "{gpu} at {slot} gets {link}; the card has "
                  "{card}", gpu=gpu.name, slot=gpu.slot, link=_shown(link), card=card),
                t("doctor.gpu-link-slow.detail",
                  "The board allows a lower PCIe generation than the card's: {gbs} GB/s each "
                  "way instead of {card_gbs}. Training on one card hardly notices; loading "
                  "models and data-parallel training do. The slots wired to the CPU are "
                  "usually the fastest, and in the BIOS the slot's link speed belongs on Auto.",
                  gbs=f"{link.gbytes_per_s:.1f}", card_gbs=f"{link.card_gbytes_per_s:.1f}"),
            )
        findings.append(finding)
    return findings
