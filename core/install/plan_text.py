"""The set-up plan as text for a terminal: strategy, ROCm, wheel index, checks and every step
with its command or file (``rocmate install --dry-run``)."""

from __future__ import annotations

import shlex

from core.install.plan import Plan
from core.termstyle import Style


def render_plan(plan: Plan, style: Style) -> str:
    if plan.blocked:
        return style(f"No set-up possible: {plan.blocked}", "red", "bold") + "\n"
    head = f"Set-up plan: {plan.strategy}"
    if plan.rocm:
        head += f", ROCm {plan.rocm}"
    if plan.preview:
        head += " (preview)"
    lines = [style(head, "bold")]
    if plan.torch_index:
        lines.append(f"  PyTorch from {plan.torch_index}: {' '.join(plan.torch_packages)}")
    if plan.venv:
        lines.append(f"  Environment {plan.venv}")
    if plan.env:
        lines.append("  Variables   " + ", ".join(f"{k}={v}" for k, v in plan.env.items()))
    lines.append("")
    for check in plan.preflight:
        mark = style("✓", "green") if check.ok else style("!", "yellow")
        lines.append(f"  {mark} {check.title}" + (f" ({check.detail})" if check.detail else ""))
    lines.append("")
    for number, step in enumerate(plan.steps, start=1):
        root = style(" [root]", "yellow") if step.privileged else ""
        lines.append(f"  {number:2}. {step.title}{root}")
        lines.append(style(f"      {step.explain}", "dim"))
        if step.kind == "verify" and step.argv:
            lines.append(f"      $ {step.argv[0]} -c <the check above>")
        elif step.argv:
            shown = " ".join(step.argv)
            lines.append(f"      $ {shown if len(shown) < 160 else shown[:157] + '...'}")
        elif step.file:
            lines.append(f"      -> {step.file.path}")
    for note in plan.notes:
        lines.append(f"  Note: {note}")
    return "\n".join(lines) + "\n"


def shell_script(plan: Plan) -> str:
    """The plan as a POSIX shell script, for people who prefer a terminal: every step in order,
    root steps through sudo, files written with a here-document. It stops at the first error."""
    if plan.blocked:
        return f"# No set-up possible: {plan.blocked}\n"
    lines = ["#!/bin/sh", f"# rocmate set-up plan: {plan.strategy}"
             + (f", ROCm {plan.rocm}" if plan.rocm else ""),
             "# Run it once: the steps that add a line to a file add it again on a second run",
             "# (rocmate install checks first, and can resume).", "set -eu", ""]
    for number, step in enumerate(plan.steps, start=1):
        lines.append(f"# {number}. {step.title}" + (" (as root)" if step.privileged else ""))
        sudo = "sudo " if step.privileged else ""
        if step.argv:
            lines.append(sudo + " ".join(shlex.quote(a) for a in step.argv))
        elif step.file is not None and step.file.content is not None:
            target = shlex.quote(step.file.path)
            tee = f"{sudo}tee -a {target}" if step.file.append else f"{sudo}tee {target}"
            lines += [f"{tee} > /dev/null <<'ROCMATE_EOF'", step.file.content.rstrip("\n"),
                      "ROCMATE_EOF"]
        elif step.file is not None and step.file.source_url:
            lines.append(f"# download {step.file.source_url}, check its fingerprint, then "
                         f"write it to {step.file.path} (rocmate install does both)")
        lines.append("")
    return "\n".join(lines)
