"""The doctor's answer as readable terminal text, with a verdict line at the end."""

from __future__ import annotations

from core.diagnose.doctor import DoctorReport
from core.diagnose.engine import NOT_SUPPORTED, READY
from core.termstyle import Style

GIB = 1 << 30
MARKS = {
    "error": ("✗", "red"),
    "warning": ("!", "yellow"),
    "info": ("i", "blue"),
    "ok": ("✓", "green"),
}


def render_text(report: DoctorReport, style: Style, verbose: bool = False) -> str:
    lines = [style("rocmate doctor", "bold"), ""]
    lines += _machine(report, style)
    lines.append("")
    for finding in report.findings:
        if finding.severity == "ok" and not verbose and finding.id not in _ALWAYS_SHOWN:
            continue
        mark, colour = MARKS[finding.severity]
        lines.append(f"{style(mark, colour, 'bold')} {style(finding.title, 'bold')}")
        if finding.detail and (finding.severity != "ok" or verbose):
            lines += [f"    {line}" for line in _wrap(finding.detail)]
        causes = [c.title for c in report.findings if c.id in finding.caused_by]
        if causes and finding.needs_action:
            lines.append(f"    {style('Caused by:', 'cyan')} {'; '.join(causes)}")
        if finding.fix and finding.needs_action:
            fix_lines = finding.fix.splitlines() or [""]
            lines.append(f"    {style('Fix:', 'cyan')} {fix_lines[0]}")
            lines += [f"         {line}" for line in fix_lines[1:]]
        if verbose:
            lines.append(style(f"    [{finding.id}]", "dim"))
    lines.append("")
    lines.append(_verdict_line(report, style))
    return "\n".join(lines) + "\n"


_PROBE_PROBLEM = {
    "python-missing": "no Python there",
    "not-a-python": "not a Python",
    "timeout": "importing torch did not finish",
    "crashed": "importing torch crashed",
    "failed": "no answer from that Python",
}
_ALWAYS_SHOWN = {"gpu-found", "torch-ok", "override-ok", "wsl-windows-driver"}


def _machine(report: DoctorReport, style: Style) -> list[str]:
    facts = report.facts
    p = facts.platform
    system = f"{p.distro_name} {p.distro_version}".strip() or "unknown distribution"
    if p.ubuntu_codename and p.distro_id != "ubuntu":
        system += f" (Ubuntu {p.ubuntu_codename} base)"
    if p.wsl:
        system += f", WSL {p.wsl}"
    lines = [f"  System   {system}, kernel {p.kernel or 'unknown'}"]
    if not facts.gpus.gpus:
        lines.append("  GPUs     none found")
    for i, (gpu, support) in enumerate(zip(facts.gpus.gpus, report.supports, strict=True)):
        label = "GPUs" if i == 0 else ""
        if not gpu.is_amd:
            vendor = {"nvidia": "NVIDIA", "intel": "Intel"}.get(gpu.vendor, "other vendor")
            lines.append(f"  {label:<8} {gpu.name} - {vendor}, not a ROCm GPU")
            continue
        bits = [gpu.gfx or "no gfx target"]
        if gpu.vram_bytes and not gpu.integrated:
            bits.append(f"{gpu.vram_bytes / GIB:.0f} GiB")
        if gpu.integrated:
            bits.append("integrated")
        status = support.status
        if support.override:
            status += f" {support.override}"
        lines.append(f"  {label:<8} {gpu.name} ({', '.join(bits)}) - {status}")
    versions = facts.rocm.versions
    lines.append(f"  ROCm     {', '.join(versions) if versions else 'not installed system-wide'}")
    torch = facts.torch
    if not facts.torch_probed:
        lines.append("  PyTorch  not checked (--no-torch)")
    elif torch is not None and torch.problem:
        lines.append(f"  PyTorch  not checked: {_PROBE_PROBLEM[torch.problem]}")
    elif torch is None or not torch.installed:
        lines.append("  PyTorch  not installed")
    else:
        backend = {"rocm": f"ROCm {torch.hip}", "cuda": f"CUDA {torch.cuda}", "cpu": "CPU only"}
        lines.append(
            f"  PyTorch  {torch.version} ({backend.get(torch.build, '')}) in {torch.python}"
        )
    return lines


def _verdict_line(report: DoctorReport, style: Style) -> str:
    colour = {READY: "green", NOT_SUPPORTED: "red"}.get(report.verdict, "yellow")
    count = sum(1 for f in report.findings if f.needs_action)
    suffix = ""
    if report.verdict not in (READY, NOT_SUPPORTED):
        suffix = f" ({count} to fix)"
    return style(f"Verdict: {report.verdict}{suffix}", colour, "bold")


def _wrap(text: str, width: int = 92) -> list[str]:
    words = text.split()
    lines: list[str] = []
    current = ""
    for word in words:
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}".strip()
    if current:
        lines.append(current)
    return lines
