"""``rocmate explain "<error text>"``: the likely cause of a pasted error on *this* machine.

The error patterns are data (resources/data/explain.toml). Each pattern names the doctor findings
that would confirm it; the doctor's answer for this machine decides which cause comes first.

A pattern's fix may hold the field ``{for_this_card}`` (the patterns of GPU code missing from a
library): explain fills it from this machine's facts, never from a fixed list of values in a
text: the card and its gfx target, the installed PyTorch's arch list, the doctor's answer for
the card (its override value, from overrides.toml through the support table) and the wheel
indexes rocmate knows to carry the target (torch.toml). Without facts (no AMD GPU with a known
target) it is a generic answer that names no value.

A row may have a cause, fix and confirming findings of its own under WSL 2 (``cause_wsl``,
``fix_wsl``, ``findings_wsl``): there the GPU is reached through the Windows driver and AMD's WSL
runtime (librocdxg), so advice about the render group or the Linux kernel driver is wrong. explain
gives them when this machine is WSL 2 or the pasted text shows it came from WSL
(:data:`core.knowledge.error_patterns.WSL_TEXT`).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.diagnose.context import Context, OverrideSetting
from core.diagnose.doctor import DoctorReport
from core.diagnose.doctor_text import WIDTH, wrap_block
from core.diagnose.finding import Finding
from core.i18n import local, t
from core.knowledge.error_patterns import WSL_TEXT, ErrorPattern
from core.knowledge.loader import Knowledge
from core.knowledge.rows import version_tuple
from core.knowledge.wheels import TorchIndex
from core.probe.parse.kfd import override_to_gfx
from core.termstyle import display_width

CARD_FIELD = "{for_this_card}"
"""The field of a pattern's fix that :class:`CardFacts` fills."""


@dataclass(frozen=True)
class Wheel:
    """A PyTorch wheel index rocmate knows to carry code for a target."""

    url: str
    torch: str | None
    """The newest torch version on the index that carries the target."""
    device_extra: bool
    """AMD's index: the target comes with the extra ``torch[device-<gfx>]``."""

    def command(self, gfx: str) -> str:
        if self.device_extra:
            return f'pip install --index-url {self.url} "torch[device-{gfx}]"'
        pin = f"=={self.torch}" if self.torch else ""
        return f'pip install "torch{pin}" --index-url {self.url}'


@dataclass(frozen=True)
class CardFacts:
    """What this machine says about the card an error of GPU code missing from a library is
    about: the card the doctor would train on, and what its answer for it is."""

    gpu: str
    gfx: str
    status: str
    """The doctor's support status for the card (support.toml)."""
    override: str | None
    """The HSA_OVERRIDE_GFX_VERSION value the doctor gives for the card (its override rule),
    None where the doctor gives none (an official card, an unsupported one)."""
    caveat: str | None
    torch: str | None
    """The installed ROCm PyTorch's version; None when there is none."""
    targets: tuple[str, ...] | None
    """The gfx targets the installed wheel carries; None when not known."""
    setting: OverrideSetting | None
    """The override in force for the card now."""
    wheel: Wheel | None
    """The best index rocmate knows to carry the card's own target."""
    posing_wheel: Wheel | None
    """The best index carrying the target the doctor's override poses as."""
    no_override: str | None
    """Why no override value works for the card (overrides.toml), where known."""

    @property
    def posing(self) -> str | None:
        return override_to_gfx(self.override) if self.override else None

    def advice_override(self) -> str | None:
        """The override this advice gives: only the doctor's value, and only where no wheel
        carries the card's own target (then the wheel is the answer)."""
        if self.carried or self.wheel is not None:
            return None
        return self.override

    @property
    def carried(self) -> bool:
        """The installed wheel carries the card's own target."""
        return self.targets is not None and self.gfx in self.targets

    def text(self) -> str:
        """The advice, in the current language."""
        return _join(self._setting_line(), self._wheel_line())

    def _setting_line(self) -> str:
        """A sentence about the override in force, where it is not the answer."""
        setting = self.setting
        if setting is None or not setting.valid or setting.gfx == self.gfx:
            return ""
        if not self.carried and setting.gfx == self.posing:
            return ""  # the doctor's own value
        unset = t("explain.card.unset-override",
                  "{setting} makes the {gpu} pose as {posing}, which is not the answer for this "
                  "card: remove it where it is set ({doctor} says where).",
                  setting=f"{setting.variable}={setting.value}", gpu=self.gpu,
                  posing=setting.gfx, doctor="rocmate doctor")
        if setting.gfx is None or not cross_generation(self.gfx, setting.gfx):
            return unset
        return unset + t("doctor.sentence-gap", " ") + cross_generation_note(self.gfx,
                                                                              setting.gfx)

    def _wheel_line(self) -> str:
        torch = self.torch
        if self.carried:
            return t("explain.card.carried",
                     "For the {gpu} here: the installed PyTorch {version} carries code for "
                     "{gfx}, so this card needs no HSA_OVERRIDE_GFX_VERSION. If the error came "
                     "from another program or Python, give it a PyTorch built for {gfx}; if it "
                     "came from this one, another library in the process lacks {gfx} (the "
                     "command below shows what a library carries).",
                     gpu=self.gpu, version=torch, gfx=self.gfx)
        setting = self.setting
        if (setting is not None and setting.valid and self.posing is not None
                and setting.gfx == self.posing and self.targets is not None
                and self.posing in self.targets):
            return t("explain.card.override-in-force",
                     "For the {gpu} ({gfx}) here: {setting} is set, as the doctor says for this "
                     "card, and the installed PyTorch {version} carries code for {posing}. If the "
                     "error came from another program or Python, it lacks that setting or a "
                     "PyTorch built for {posing}; if it came from this one, another library in "
                     "the process lacks {posing} (the command below shows what a library "
                     "carries).",
                     gpu=self.gpu, gfx=self.gfx, setting=f"{setting.variable}={setting.value}",
                     version=torch, posing=self.posing)
        lacks = ""
        if torch is not None and self.targets is not None:
            lacks = t("explain.card.lacks",
                      "the installed PyTorch {version} has no code for {gfx} (it carries "
                      "{targets}).", version=torch, gfx=self.gfx,
                      targets=", ".join(self.targets))
        plan = t("explain.card.plan", "{command} shows the whole set-up rocmate plans for it.",
                 command="`rocmate install --dry-run`")
        if self.wheel is not None:
            return t("explain.card.install-wheel",
                     "For the {gpu} ({gfx}) here: {lacks}Install a PyTorch wheel that carries "
                     "{gfx}:\n  {command}\n{plan}",
                     gpu=self.gpu, gfx=self.gfx, lacks=_gap(lacks),
                     command=self.wheel.command(self.gfx), plan=plan)
        override = self.advice_override()
        if override is not None:
            caveat = local(self.caveat) if self.caveat else ""
            posing = self.posing or ""
            need = ""
            if self.targets is not None and posing not in self.targets:
                need = (t("explain.card.posing-wheel",
                          "The installed PyTorch has no {posing} code either: install one that "
                          "has it:\n  {command}", posing=posing,
                          command=self.posing_wheel.command(posing))
                        if self.posing_wheel is not None else "")
            return t("explain.card.override",
                     "For the {gpu} ({gfx}) here: {lacks}No PyTorch wheel rocmate knows carries "
                     "{gfx}; the doctor's answer for this card is to pose as {posing}:\n"
                     "  {command}\n{caveat}",
                     gpu=self.gpu, gfx=self.gfx, lacks=_gap(lacks), posing=posing,
                     command=f"export HSA_OVERRIDE_GFX_VERSION={override}",
                     caveat=_join(caveat, same_generation_note(), need)).rstrip()
        reason = local(self.no_override) if self.no_override else t(
            "explain.card.nothing-known",
            "rocmate knows no PyTorch wheel with {gfx} code and no override value for it.",
            gfx=self.gfx)
        return t("explain.card.no-way", "For the {gpu} ({gfx}) here: {lacks}{reason}",
                 gpu=self.gpu, gfx=self.gfx, lacks=_gap(lacks), reason=reason)

    def to_json(self) -> dict[str, object]:
        return {
            "gpu": self.gpu,
            "gfx": self.gfx,
            "status": self.status,
            "torch": self.torch,
            "torch_has_code": None if self.targets is None else self.carried,
            "override": self.advice_override(),
            "index": self.wheel.url if self.wheel else None,
        }


def gfx_generation(gfx: str) -> int | None:
    """The major version of a gfx target, as HSA_OVERRIDE_GFX_VERSION's first field: gfx1031 ->
    10, gfx906 and gfx90a -> 9, gfx1201 -> 12; None for what is not a target name."""
    digits = gfx.removeprefix("gfx")
    if len(digits) == 3 and digits[:1].isdigit():
        return int(digits[0])
    if len(digits) == 4 and digits[:2].isdigit():
        return int(digits[:2])
    return None


def cross_generation(card: str, posing: str) -> bool:
    """An override that makes ``card`` pose as a target of another generation (major
    version): what newer runtimes refuse (ROCm/rocm-systems PR #5686)."""
    mine, other = gfx_generation(card), gfx_generation(posing)
    return mine is not None and other is not None and mine != other


def cross_generation_note(card: str, posing: str) -> str:
    """Why a cross-generation override is worse than useless, with its sources."""
    return t("explain.card.cross-generation",
             "Posing a {card} as {posing} crosses GPU generations: newer ROCm runtimes refuse "
             "such a value outright ({refused}), so programs see no GPU, and older ones can "
             "flood the kernel with 'ih_fifo overflow' and hang the GPU ({crash}).",
             card=card, posing=posing, refused="ROCm/rocm-systems PR #5686",
             crash="ROCm/rocm-systems#3531")


def same_generation_note() -> str:
    """Said with every override value explain gives: only the card's own generation works."""
    return t("explain.card.same-generation",
             "Use this value and no other: ROCm runtimes from mid-2026 on refuse a value of "
             "another GPU generation than the card's ({refused}).",
             refused="ROCm/rocm-systems PR #5686")


def _gap(text: str) -> str:
    return text + t("doctor.sentence-gap", " ") if text else ""


def _join(*texts: str) -> str:
    return "\n".join(text for text in texts if text)


def generic_card_advice() -> str:
    """The advice without facts about a card: what to look for, no value."""
    return t("explain.card.generic",
             "Run {doctor} on the machine with the error: it names the card's gfx target and "
             "what the card needs, a PyTorch wheel built for that target or, only where rocmate "
             "gives one for the card, an HSA_OVERRIDE_GFX_VERSION value.",
             doctor="'rocmate doctor'")


def _wheels(kb: Knowledge, gfx: str | None) -> Wheel | None:
    """The best stable index whose wheels carry ``gfx`` (its newest torch that does):
    pytorch.org's before AMD's, current releases first, then the newest ROCm."""
    if gfx is None:
        return None
    current = {r.version for r in kb.current_releases()}
    found = [(i, v) for i in kb.torch_indexes if i.stable
             for v in [i.torch_for(gfx)] if v is not None]
    if not found:
        return None

    def key(item: tuple[TorchIndex, str]) -> tuple[int, int, tuple[int, ...]]:
        index = item[0]
        return (0 if index.vendor == "pytorch" else 1, 0 if index.rocm in current else 1,
                tuple(-p for p in version_tuple(index.rocm)))

    best, torch = min(found, key=key)
    return Wheel(best.url, torch, best.device_extra)


def card_facts(report: DoctorReport | None, kb: Knowledge) -> CardFacts | None:
    """The facts the advice is made from: the card the doctor would train on (None without an
    AMD GPU of known target)."""
    if report is None or report.primary_index is None:
        return None
    gpu = report.facts.gpus.gpus[report.primary_index]
    support = report.supports[report.primary_index]
    if not gpu.is_amd or gpu.gfx is None:
        return None
    ctx = Context(report.facts, kb)
    torch = report.facts.torch
    targets = None
    if ctx.torch_targets is not None and torch is not None:
        # the wheel's own order (gfx900 before gfx1030), each target once
        targets = tuple(dict.fromkeys(a.split(":")[0] for a in torch.arch_list))
    override = support.override if support.status == "override" else None
    posing = override_to_gfx(override) if override else None
    no_override = kb.no_override(gpu.gfx)
    return CardFacts(
        gpu=gpu.name,
        gfx=gpu.gfx,
        status=support.status,
        override=override,
        caveat=support.caveat,
        torch=torch.version if targets is not None and torch is not None else None,
        targets=targets,
        setting=ctx.override_for(gpu),
        wheel=_wheels(kb, gpu.gfx),
        posing_wheel=_wheels(kb, posing),
        no_override=no_override.reason if no_override else None,
    )


@dataclass(frozen=True)
class Explanation:
    pattern: ErrorPattern
    confirmed_by: tuple[Finding, ...]
    """Findings on this machine that point to this cause."""
    card: CardFacts | None = None
    """This machine's facts for a fix with :data:`CARD_FIELD`; None: none known."""
    wsl: bool = False
    """The error is from WSL 2 (this machine is, or the text says so): the row's WSL cause and
    fix, where it has them."""

    @property
    def uses_card(self) -> bool:
        return CARD_FIELD in self.pattern.fix_for(self.wsl)

    def cause(self, *, english: bool = False) -> str:
        """The pattern's cause for this platform, in the current language (``english``: the
        English row)."""
        text = self.pattern.cause_for(self.wsl)
        return str.__str__(text) if english else local(text)

    def fix(self, *, english: bool = False) -> str:
        """The pattern's fix for this platform in the current language (``english``: the
        English row), its :data:`CARD_FIELD` filled from this machine's facts."""
        fix = self.pattern.fix_for(self.wsl)
        text = str.__str__(fix) if english else local(fix)
        if CARD_FIELD not in text:
            return text
        advice = self.card.text() if self.card is not None else generic_card_advice()
        return text.replace(CARD_FIELD, advice)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "id": self.pattern.id,
            "title": self.pattern.title,
            "cause": self.cause(english=True),
            "fix": self.fix(english=True),
            "platform": "wsl" if self.wsl else "linux",
            "source": self.pattern.source,
            "on_this_machine": [f.to_json() for f in self.confirmed_by],
        }
        if self.uses_card:
            out["for_this_machine"] = self.card.to_json() if self.card is not None else None
        return out


def from_wsl(text: str, report: DoctorReport | None) -> bool:
    """Whether the error is from WSL 2: this machine is, or the text shows it."""
    machine = report is not None and report.facts.platform.wsl == 2
    return machine or WSL_TEXT.search(text) is not None


def explain(text: str, kb: Knowledge, report: DoctorReport | None) -> list[Explanation]:
    """Matching patterns, those confirmed by this machine's findings first."""
    findings = [f for f in (report.findings if report else ()) if f.needs_action]
    card = card_facts(report, kb)
    wsl = from_wsl(text, report)
    result = []
    for pattern in kb.match_errors(text):
        confirmed = tuple(f for f in findings if f.id in pattern.findings_for(wsl))
        result.append(Explanation(pattern, confirmed,
                                  card if CARD_FIELD in pattern.fix_for(wsl) else None, wsl))
    return sorted(result, key=lambda e: 0 if e.confirmed_by else 1)


def render_explanations(
    text: str, explanations: list[Explanation], report: DoctorReport | None
) -> str:
    if not explanations:
        lines = [
            t("explain.text.unknown", "rocmate does not recognise this error."),
            t("explain.text.unknown.next",
              "Run {doctor} for a full check of this machine, and include its output (or a "
              "{snapshot}) when you ask for help.", doctor="`rocmate doctor`",
              snapshot="`rocmate snapshot`"),
        ]
        if report is not None:
            problems = [f for f in report.findings if f.needs_action]
            if problems:
                lines.append("")
                lines.append(t("explain.text.meanwhile",
                               "Meanwhile, the doctor sees these problems here:"))
                lines += [f"  - {f.title}" for f in problems]
        return "\n".join(lines) + "\n"
    lines = []
    for number, item in enumerate(explanations, start=1):
        pattern = item.pattern
        lines.append(f"{number}. {local(pattern.title)}")
        lines += _labelled("   ", t("explain.text.cause-label", "Cause:"), item.cause())
        if item.confirmed_by:
            lines.append("   " + t("explain.text.on-this-machine", "On this machine:"))
            for finding in item.confirmed_by:
                lines += _labelled("     - ", "", finding.title)
                if finding.fix:
                    lines += _labelled("       ", t("explain.text.fix-label", "Fix:"), finding.fix)
        lines += _labelled("   ", t("explain.text.fix-label", "Fix:"), item.fix())
        lines += _labelled("   ", "", t("explain.text.source", "(source: {source})",
                                          source=pattern.source))
        lines.append("")
    return "\n".join(lines)


def _labelled(indent: str, label: str, text: str) -> list[str]:
    """``label`` and ``text`` after ``indent``; the text's further lines under its first
    column, its prose wrapped and its commands (lines it indents) whole."""
    gap = "" if not label or display_width(label[-1:]) == 2 else " "
    start = f"{indent}{label}{gap}"
    under = " " * display_width(start)
    block = wrap_block(text, WIDTH - display_width(start)) or [""]
    return [start + block[0], *(under + line if line else "" for line in block[1:])]
