"""The doctor's answer as readable terminal text, with a verdict line at the end."""

from __future__ import annotations

import re

from core.diagnose.doctor import DoctorReport
from core.diagnose.engine import NOT_PROVED, NOT_SUPPORTED, READY, READY_AFTER_FIXES
from core.diagnose.rules_apps import NO, YES, AppCheck
from core.i18n import t
from core.termstyle import Style, char_width, display_width, pad_left

GIB = 1 << 30
MARKS = {
    "error": ("✗", "red"),
    "warning": ("!", "yellow"),
    "info": ("i", "blue"),
    "ok": ("✓", "green"),
}
LABEL_WIDTH = 8  # the system summary's labels are padded to (at least) this many columns


def render_text(report: DoctorReport, style: Style, verbose: bool = False) -> str:
    lines = [style(t("doctor.text.header", "rocmate doctor"), "bold"), ""]
    lines += _machine(report, style)
    lines.append("")
    caused_by = t("doctor.text.caused-by", "Caused by:")
    fix = t("doctor.text.fix", "Fix:")
    steps = t("doctor.text.steps", "Steps:")  # steps to copy where nothing is wrong
    for finding in report.findings:
        if finding.severity == "ok" and not verbose and finding.id not in _ALWAYS_SHOWN:
            continue
        mark, colour = MARKS[finding.severity]
        lines.append(f"{style(mark, colour, 'bold')} {style(finding.title, 'bold')}")
        if finding.detail and (finding.severity != "ok" or verbose):
            lines += [f"    {line}" for line in _wrap(finding.detail)]
        causes = [c.title for c in report.findings if c.id in finding.caused_by]
        if causes and finding.needs_action:
            separator = t("doctor.list-separator", "; ")
            lines.append(f"    {style(caused_by, 'cyan')}{_gap_after(caused_by)}"
                         f"{separator.join(causes)}")
        if finding.fix and (finding.needs_action or finding.id in _STEPS_SHOWN):
            label = fix if finding.needs_action else steps
            gap = _gap_after(label)
            indent = " " * (4 + display_width(label) + len(gap))  # further lines under the first
            fix_lines = wrap_block(finding.fix, WIDTH - len(indent)) or [""]
            lines.append(f"    {style(label, 'cyan')}{gap}{fix_lines[0]}")
            lines += [f"{indent}{line}" for line in fix_lines[1:]]
        if verbose:
            lines.append(style(f"    [{finding.id}]", "dim"))
    lines.append("")
    lines.append(_verdict_line(report, style))
    return "\n".join(lines) + "\n"


def _gap_after(label: str) -> str:
    """The space after a label: none where it ends in a full-width mark (``解决办法：``), which
    has its room in it."""
    return "" if display_width(label[-1:]) == 2 else " "


_ALWAYS_SHOWN = {"gpu-found", "torch-ok", "override-ok", "wsl-windows-driver", "wsl-adrenalin-ok"}
_STEPS_SHOWN = {"windows-native-pytorch"}
"""Information whose fix is steps to copy (PowerShell on Windows): shown although nothing is
wrong."""


def _probe_problem(problem: str) -> str:
    """Why the PyTorch check got no answer, in words (``problem`` is TorchFacts.problem)."""
    words = {
        "python-missing": t("doctor.text.probe.python-missing", "no Python there"),
        "not-a-python": t("doctor.text.probe.not-a-python", "not a Python"),
        "timeout": t("doctor.text.probe.timeout", "importing torch did not finish"),
        "crashed": t("doctor.text.probe.crashed", "importing torch crashed"),
        "failed": t("doctor.text.probe.failed", "no answer from that Python"),
        "record-damaged": t("doctor.text.probe.record-damaged", "its record ({file}) could not "
                            "be read", file="torch.json"),
    }
    return words.get(problem, problem)


def _status(status: str, override: str | None) -> str:
    """A GPU's support status (a contract value: official, override, unsupported) in words."""
    if status == "override" and override:
        return t("doctor.text.status.override-value", "override {value}", value=override)
    words = {
        "official": t("doctor.text.status.official", "official"),
        "override": t("doctor.text.status.override", "override"),
        "unsupported": t("doctor.text.status.unsupported", "unsupported"),
        "unknown": t("doctor.text.status.unknown", "newer than rocmate knows"),
    }
    word = words.get(status, status)
    return f"{word} {override}" if override else word


def _machine(report: DoctorReport, style: Style) -> list[str]:
    facts = report.facts
    p = facts.platform
    distro = f"{p.distro_name} {p.distro_version}".strip() or t(
        "doctor.text.unknown-distribution", "unknown distribution")
    base = t("doctor.text.ubuntu-base", " (Ubuntu {codename} base)", codename=p.ubuntu_codename) \
        if p.ubuntu_codename and p.distro_id != "ubuntu" else ""
    wsl = t("doctor.text.wsl", ", WSL {wsl}", wsl=p.wsl) if p.wsl else ""
    kernel = p.kernel or t("doctor.text.unknown-kernel", "unknown")
    system_label = t("doctor.text.label.system", "System")
    gpus_label = t("doctor.text.label.gpus", "GPUs")
    rows = [(system_label, t("doctor.text.system", "{distro}{base}{wsl}, kernel {kernel}",
                             distro=distro, base=base, wsl=wsl, kernel=kernel))]
    if not facts.gpus.gpus:
        rows.append((gpus_label, t("doctor.text.gpus.none", "none found")))
    for i, (gpu, support) in enumerate(zip(facts.gpus.gpus, report.supports, strict=True)):
        label = gpus_label if i == 0 else ""
        if not gpu.is_amd:
            vendor = {"nvidia": "NVIDIA", "intel": "Intel"}.get(gpu.vendor) or t(
                "doctor.text.gpu.other-vendor", "other vendor")
            rows.append((label, t("doctor.text.gpu.not-rocm", "{name} - {vendor}, not a ROCm GPU",
                                  name=gpu.name, vendor=vendor)))
            continue
        gfx = gpu.gfx or t("doctor.text.gpu.no-gfx", "no gfx target")
        status = _status(support.status, support.override)
        if i in report.not_started:  # what ROCm would make of it, once the driver starts it
            status = t("doctor.text.status.not-started", "the driver did not start it ({status} "
                       "once it does)", status=status)
        if gpu.integrated:
            line = t("doctor.text.gpu.integrated", "{name} ({gfx}, integrated) - {status}",
                     name=gpu.name, gfx=gfx, status=status)
        elif gpu.vram_bytes:
            line = t("doctor.text.gpu.vram", "{name} ({gfx}, {gib} GiB) - {status}",
                     name=gpu.name, gfx=gfx, gib=f"{gpu.vram_bytes / GIB:.0f}", status=status)
        else:
            line = t("doctor.text.gpu", "{name} ({gfx}) - {status}", name=gpu.name, gfx=gfx,
                     status=status)
        rows.append((label, line))
    versions = facts.rocm.versions
    rows.append((t("doctor.text.label.rocm", "ROCm"), ", ".join(versions) if versions else t(
        "doctor.text.rocm.none", "not installed system-wide")))
    torch_label = t("doctor.text.label.pytorch", "PyTorch")
    torch = facts.torch
    if not facts.torch_probed:
        rows.append((torch_label, t("doctor.text.torch.not-checked", "not checked ({option})",
                                    option="--no-torch")))
    elif torch is not None and torch.problem:
        rows.append((torch_label, t("doctor.text.torch.no-answer", "not checked: {problem}",
                                    problem=_probe_problem(torch.problem))))
    elif torch is None or not torch.installed:
        rows.append((torch_label, t("doctor.text.torch.not-installed", "not installed")))
    else:
        if torch.build == "rocm":
            backend = f"ROCm {torch.hip}"
        elif torch.build == "cuda":
            backend = f"CUDA {torch.cuda}"
        elif torch.build == "cpu":
            backend = t("doctor.text.torch.cpu-only", "CPU only")
        else:
            backend = ""
        rows.append((torch_label, t("doctor.text.torch.installed",
                                    "{version} ({backend}) in {python}", version=torch.version,
                                    backend=backend, python=torch.python)))
    apps_label = t("doctor.text.label.apps", "Apps")
    for i, check in enumerate(report.apps):
        rows.append((apps_label if i == 0 else "", app_line(check)))
        rows.append(("", t("doctor.text.app.folder", "  in {folder}", folder=check.env.folder)))
    return _columns(rows)


def app_line(check: AppCheck) -> str:
    """An app's environment in one line: its PyTorch, where, and whether it reaches the GPU."""
    torch = check.env.torch
    what = t("doctor.text.app.torch", "PyTorch {version}", version=torch.version) if torch \
        else t("doctor.text.app.no-torch", "no PyTorch")
    if check.reaches == YES:
        reach = t("doctor.text.app.yes", "reaches the GPU")
    elif check.reaches == NO:
        reach = t("doctor.text.app.no", "cannot use the GPU ({why})", why=check.why())
    else:
        reach = t("doctor.text.app.not-checked", "not checked ({why})", why=check.why())
    return t("doctor.text.app", "{app}: {what} - {reach}", app=check.env.name, what=what,
             reach=reach)


def _columns(rows: list[tuple[str, str]]) -> list[str]:
    """``  label   value`` lines, the values in one column however wide the labels are drawn
    (a Chinese character takes two columns)."""
    width = max([LABEL_WIDTH, *(display_width(label) for label, _ in rows)])
    return [f"  {pad_left(label, width)} {value}" for label, value in rows]


def _verdict_word(verdict: str) -> str:
    """The verdict (a contract value) as shown: the value chooses the words."""
    words = {
        READY: t("doctor.text.verdict.ready", "Ready"),
        READY_AFTER_FIXES: t("doctor.text.verdict.ready-after-fixes", "Ready after these fixes"),
        NOT_SUPPORTED: t("doctor.text.verdict.not-supported", "Not supported"),
        NOT_PROVED: t("doctor.text.verdict.not-proved", "Not yet proved"),
    }
    return words.get(verdict, verdict)


def _verdict_line(report: DoctorReport, style: Style) -> str:
    colour = {READY: "green", NOT_SUPPORTED: "red"}.get(report.verdict, "yellow")
    count = sum(1 for f in report.findings if f.needs_action)
    verdict = _verdict_word(report.verdict)
    if report.verdict == NOT_PROVED:
        missing = next((f.title for f in report.findings if f.id == "kernel-check-not-run"), "")
        line = t("doctor.text.verdict-line.not-proved", "Verdict: {verdict} ({what})",
                 verdict=verdict, what=missing) if missing else \
            t("doctor.text.verdict-line", "Verdict: {verdict}", verdict=verdict)
    elif report.verdict not in (READY, NOT_SUPPORTED):
        line = t("doctor.text.verdict-line.to-fix", "Verdict: {verdict} ({count} to fix)",
                 verdict=verdict, count=count)
    else:
        line = t("doctor.text.verdict-line", "Verdict: {verdict}", verdict=verdict)
    return style(line, colour, "bold")


# Terminal layout: a wide (East Asian) character takes two columns, and Chinese text has no
# spaces, so a line may also break between two such characters -- but never inside a Latin word
# or a command, nor inside a path's Chinese folder name (/home/张三/venv), and not before a
# closing mark (，。) nor after an opening one (（).
_NO_LINE_START = set("，。、；：？！）】》」』〉％")
_NO_LINE_END = set("（【《「『〈")
_PATH_SEPARATORS = "/\\"


def _pieces(word: str) -> list[str]:
    """``word`` (no spaces in it) cut where a line may break: between two wide characters,
    but not inside a folder name after a path separator (/home/张三/venv, up to a punctuation
    mark), nor against punctuation that must stay attached."""
    wide = [char_width(c) == 2 for c in word]
    if not any(wide):
        return [word]
    breaks = []
    in_path = False
    for k in range(1, len(word)):
        before, after = word[k - 1], word[k]
        if before in _PATH_SEPARATORS:
            in_path = True
        elif not wide[k - 1] or before in _NO_LINE_START or before in _NO_LINE_END:
            in_path = False
        if (wide[k - 1] and wide[k] and not in_path and after not in _NO_LINE_START
                and before not in _NO_LINE_END):
            breaks.append(k)
    return [word[a:b] for a, b in zip([0, *breaks], [*breaks, len(word)], strict=True)]


WIDTH = 96
"""The columns the doctor's and explain's text fill (a finding's detail: 4 + 92)."""


def wrap_block(text: str, width: int) -> list[str]:
    """A text of several lines (a fix, a cause) in lines of at most ``width`` columns: each line
    of prose wrapped at its spaces (the spaces it keeps between a command and its note stay,
    and nothing in quotes or backticks is broken), each line the text indents itself (a command
    to copy) kept whole with its indent, blank lines kept."""
    lines: list[str] = []
    for line in text.splitlines():
        if not line.strip():
            lines.append("")
        elif line[:1].isspace() or display_width(line) <= width:
            lines.append(line.rstrip())
        else:
            lines += _fill(line, width)
    return lines


# a word: quoted parts ('...', "...", `...`) and other characters up to a space; with the spaces
# before it
_WORD = re.compile(r"""(\s*)((?:'[^']*'|"[^"]*"|`[^`]*`|[^\s'"`]|['"`])+)""")


def _fill(line: str, width: int) -> list[str]:
    """One line of prose in lines of at most ``width`` columns (a word wider than that alone on
    its line; Chinese broken between characters, as :func:`_wrap` does)."""
    lines: list[str] = []
    current = ""
    for gap, word in _WORD.findall(line):
        pieces = _pieces(word)
        for n, piece in enumerate(pieces):
            space = gap if current and n == 0 else ""
            if current and display_width(current + space + piece) > width:
                lines.append(current)
                current = piece
            else:
                current += space + piece
    if current:
        lines.append(current)
    return lines


def _wrap(text: str, width: int = 92) -> list[str]:
    """``text`` in lines of at most ``width`` terminal columns, broken at spaces (which the
    break swallows) and between Chinese characters; a piece wider than a line gets its own."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        for n, piece in enumerate(_pieces(word)):
            gap = " " if current and n == 0 else ""
            if current and display_width(current) + len(gap) + display_width(piece) > width:
                lines.append(current)
                current = piece
            else:
                current = f"{current}{gap}{piece}"
    if current:
        lines.append(current)
    return lines
