"""Datasheet peaks from the knowledge base (resources/data/gpus.toml), and how close a run came.

Looked up by the device's PCI id (and revision), else by its name. When no row or no peak is
known, the reference says so instead of inventing a number.

A figure with a peak beside it (gemm's ``tflops_bf16_peak``, the first burst, beside the
sustained ``tflops_bf16``) is set against the same datasheet peak under its own name: the
datasheet comparison is the peak's, the sustained fraction is kept beside it (and is all an
older report has).
"""

from __future__ import annotations

from typing import Any

from core.knowledge.gpus import GpuRow
from core.knowledge.loader import Knowledge, KnowledgeError, load_knowledge
from core.report.model import PEAK_SUFFIX, Figure, Reference

# figure name -> the GpuRow field holding its peak, per suite (precision-dependent ones below)
_FIXED = {
    "gemm": {"tflops_fp32": "peak_tflops_fp32", "tflops_fp16": "peak_tflops_fp16",
             "tflops_bf16": "peak_tflops_bf16"},
    "bandwidth": {"d2d_gbs": "mem_bandwidth_gbs"},
}
_BY_PRECISION = {"amp-fp16": "peak_tflops_fp16", "amp-bf16": "peak_tflops_bf16"}
_TFLOPS_FIGURE = {"resnet50-train": "tflops", "llm-train": "tflops", "sd15-infer": "unet_tflops"}


def find_row(kb: Knowledge, pci_id: str | None, revision: str | None,
             name: str | None) -> tuple[GpuRow | None, str]:
    """The card's row and how it was found (or why none was)."""
    if pci_id:
        row = kb.gpu_by_pci(pci_id, revision)
        if row is not None:
            return row, f"PCI id {pci_id}"
    if name:
        row = kb.gpu_by_name(name)
        if row is not None:  # the same card only: an RX 6800M has no RX 6800 peaks
            return row, f"name {name!r}"
    return None, f"no row in the knowledge base for {pci_id or name or 'this device'}"


def peak_fields(suite: str, settings: dict[str, Any]) -> dict[str, str]:
    """Figure name -> GpuRow field for a suite run."""
    fields = dict(_FIXED.get(suite, {}))
    fig = _TFLOPS_FIGURE.get(suite)
    field = _BY_PRECISION.get(str(settings.get("precision")))
    if fig and field:
        fields[fig] = field
    return fields


def reference(suite: str, settings: dict[str, Any], figures: dict[str, Figure],
              pci_id: str | None, revision: str | None, name: str | None,
              kb: Knowledge | None = None) -> Reference | None:
    """Measured / datasheet peak for the figures that have one; None for a CPU-only suite."""
    fields = {k: v for k, v in peak_fields(suite, settings).items() if k in figures}
    if not fields:
        return None
    if kb is None:
        try:
            kb = load_knowledge()
        except (KnowledgeError, OSError) as exc:
            return Reference(note=f"knowledge base unavailable: {exc}")  # i18n: english (data)
    row, how = find_row(kb, pci_id, revision, name)
    if row is None:
        return Reference(note=f"{how}: no datasheet peak to compare with")  # i18n: english
    peaks: dict[str, float] = {}
    fractions: dict[str, float] = {}
    missing = []
    for fig, field in fields.items():
        peak = getattr(row, field, None)
        if peak:
            for name in (fig, fig + PEAK_SUFFIX):
                if name in figures:
                    peaks[name] = float(peak)
                    fractions[name] = figures[name].median / float(peak)
        else:
            missing.append(field)
    note = f"found by {how}"
    if missing:
        note += f"; no {', '.join(missing)} for {row.name} in the knowledge base"
    return Reference(name=row.name, source=row.source, peaks=peaks, fractions=fractions, note=note)
