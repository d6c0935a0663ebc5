"""The set-up plan as text for a terminal: strategy, ROCm, wheel index, checks and every step
with its command or file (``rocmate install --dry-run``)."""

from __future__ import annotations

import shlex

from core.i18n import t
from core.install.plan import Plan
from core.termstyle import Style, display_width


def _blocked(plan: Plan) -> str:
    return t("plan.text.blocked", "No set-up possible: {reason}", reason=plan.blocked)


def _head(plan: Plan) -> str:
    """The plan's first line: the strategy, the ROCm release where there is one, and whether
    it is a preview."""
    if plan.rocm and plan.preview:
        return t("plan.text.header.rocm-preview", "Set-up plan: {strategy}, ROCm {rocm} (preview)",
                 strategy=plan.strategy, rocm=plan.rocm)
    if plan.rocm:
        return t("plan.text.header.rocm", "Set-up plan: {strategy}, ROCm {rocm}",
                 strategy=plan.strategy, rocm=plan.rocm)
    if plan.preview:
        return t("plan.text.header.preview", "Set-up plan: {strategy} (preview)",
                 strategy=plan.strategy)
    return t("plan.text.header", "Set-up plan: {strategy}", strategy=plan.strategy)


def render_plan(plan: Plan, style: Style) -> str:
    if plan.blocked:
        return style(_blocked(plan), "red", "bold") + "\n"
    lines = [style(_head(plan), "bold")]
    notes = list(plan.notes)
    if plan.nothing_to_do and notes:  # said first, not after every step it makes optional
        lines.append("  " + style(notes.pop(0), "green", "bold"))
    if plan.torch_index:
        lines.append("  " + t("plan.text.torch", "PyTorch from {index}: {packages}",
                              index=plan.torch_index, packages=" ".join(plan.torch_packages)))
    # the environment's and the variables' values in one column, however wide the labels are
    # drawn (a Chinese character takes two columns)
    environment = t("plan.text.label.environment", "Environment")
    variables = t("plan.text.label.variables", "Variables")
    width = max(display_width(environment), display_width(variables))
    if plan.venv:
        lines.append(f"  {_pad(environment, width)} {plan.venv}")
    if plan.env:
        lines.append(f"  {_pad(variables, width)} "
                     + ", ".join(f"{k}={v}" for k, v in plan.env.items()))
    if plan.env_unset:  # exported with a wrong value, and the environment unsets them
        lines.append(f"  {_pad(t('plan.text.label.unsets', 'Unsets'), width)} "
                     + ", ".join(plan.env_unset))
    lines.append("")
    for check in plan.preflight:
        mark = style("✓", "green") if check.ok else (
            style("✗", "red") if check.stops else style("!", "yellow"))
        said = t("plan.text.check-detail", "{title} ({detail})", title=check.title,
                 detail=check.detail) if check.detail else check.title
        lines.append(f"  {mark} {said}")
    lines.append("")
    root = " " + t("plan.text.root", "[root]")
    for number, step in enumerate(plan.steps, start=1):
        marked = style(root, "yellow") if step.privileged else ""
        if step.consent is False:  # a removal not agreed to: said so, its command not as one
            marked += " " + style(t("plan.text.skipped", "[skipped: {option} includes it]",
                                    option=step.consent_option or "--remove-old"), "yellow")
        lines.append(f"  {number:2}. {step.title}{marked}")
        lines.append(style(f"      {step.explain}", "dim"))
        if step.consent is False and step.argv:
            # the program is shown whole and only its arguments shortened, so that the line
            # does not depend on where this Python lives
            rest = " ".join(step.argv[1:])
            shown = step.argv[0] + " " + (rest if len(rest) < 150 else rest[:147] + "...")
            lines.append(style("      # " + t("plan.text.not-run", "not run: {command}",
                                              command=shown.rstrip()), "dim"))
        elif step.kind == "verify" and step.argv:
            lines.append(f"      $ {step.argv[0]} -c "
                         + t("plan.text.the-check-above", "<the check above>"))
        elif step.argv:
            shown = " ".join(step.argv)
            lines.append(f"      $ {shown if len(shown) < 160 else shown[:157] + '...'}")
        elif step.file:
            lines.append(f"      -> {step.file.path}")
    for note in notes:
        lines.append("  " + t("plan.text.note", "Note: {note}", note=note))
    return "\n".join(lines) + "\n"


def _pad(text: str, width: int) -> str:
    """``text`` with spaces after it to fill ``width`` terminal columns."""
    return text + " " * max(0, width - display_width(text))


def _comment(text: str) -> list[str]:
    """``text`` as shell comment lines: every line of it behind ``# ``, so no line break in a
    title or a translation can turn the rest of it into a command."""
    return [f"# {line}" for line in text.splitlines() or [""]]


def shell_script(plan: Plan) -> str:
    """The plan as a POSIX shell script, for people who prefer a terminal: every step in order,
    root steps through sudo, files written with a here-document. It stops at the first error.
    A step the user did not agree to (``consent`` False) is named, never carried out."""
    if plan.blocked:
        return "\n".join(_comment(_blocked(plan))) + "\n"
    head = t("plan.script.header.rocm", "rocmate set-up plan: {strategy}, ROCm {rocm}",
             strategy=plan.strategy, rocm=plan.rocm) if plan.rocm else t(
        "plan.script.header", "rocmate set-up plan: {strategy}", strategy=plan.strategy)
    lines = ["#!/bin/sh", *_comment(head),
             *_comment(t("plan.script.run-once",
                         "Run it once: the steps that add a line to a file add it again on a "
                         "second run\n({command} checks first, and can resume).",
                         command="rocmate install")),
             "set -eu", ""]
    for number, step in enumerate(plan.steps, start=1):
        title = t("plan.script.step.root", "{title} (as root)", title=step.title) \
            if step.privileged else step.title
        if step.consent is False:  # not agreed to: its title only, never its command
            lines += _comment(f"{number}. " + t("plan.script.step.left-out", "{title}: left "
                                                "out (you did not agree to it)", title=title))
            lines.append("")
            continue
        lines += _comment(f"{number}. {title}")
        sudo = "sudo " if step.privileged else ""
        if step.argv:
            lines.append(sudo + " ".join(shlex.quote(a) for a in step.argv))
        elif step.file is not None and step.file.content is not None:
            target = shlex.quote(step.file.path)
            tee = f"{sudo}tee -a {target}" if step.file.append else f"{sudo}tee {target}"
            lines += [f"{tee} > /dev/null <<'ROCMATE_EOF'", step.file.content.rstrip("\n"),
                      "ROCMATE_EOF"]
        elif step.file is not None and step.file.source_url:
            lines += _comment(t("plan.script.download",
                                "download {url}, check its fingerprint, then write it to {path} "
                                "({command} does both)", url=step.file.source_url,
                                path=step.file.path, command="rocmate install"))
        lines.append("")
    return "\n".join(lines)
