"""This machine against the known-bad stacks (resources/data/known_bad.toml): the running kernel,
the installed linux-firmware package and the ROCm releases (installed, or the PyTorch wheel's HIP
version) that public reports show hanging or crashing one of its AMD GPUs.

The doctor reports each match as the finding ``known-bad-stack`` (:func:`known_bad_findings`);
a benchmark shows the same as warnings before it starts (:func:`stack_warnings`). Under WSL 2 the
Windows driver brings the firmware and there is no Linux amdgpu: nothing here applies.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.diagnose.context import Context
from core.diagnose.finding import Finding
from core.i18n import local, t
from core.knowledge.known_bad import KnownBadStack
from core.probe.facts import Facts
from core.probe.firmware import FirmwareFacts

FINDING = "known-bad-stack"
_THREAD = re.compile(r"[\w.-]+/[\w.-]+#\d+")


def threads(source: str, most: int = 3) -> str:
    """The first public threads a row's source names ("ROCm/legacy-rocm-build#5724, ..."): what
    a finding shows; the whole source stays in the data file."""
    found = list(dict.fromkeys(_THREAD.findall(source)))[:most]
    return ", ".join(found) if found else source


@dataclass(frozen=True)
class StackMatch:
    """One known-bad row that this machine hits: the version it has and the card it hits."""

    stack: KnownBadStack
    version: str
    """The machine's version of the component ("20251125-1.fc43", "6.14.3", "7.1.25424")."""
    gpu: str
    gfx: str
    patched: bool = False
    """An Ubuntu firmware package: a snapshot of that date with Ubuntu's own changes, which may
    have dropped the bad files."""

    def title(self) -> str:
        return local(self.stack.title).format(version=self.version, gpu=self.gpu)

    def detail(self) -> str:
        text = local(self.stack.detail)
        if self.patched:
            text += t("doctor.sentence-gap", " ") + t(
                "doctor.known-bad-stack.patched",
                "This is Ubuntu's package of that snapshot, which Ubuntu may have patched: check "
                "the package's changelog ({command}).",
                command="apt changelog linux-firmware | head -n 40")
        return text

    def fix(self) -> str:
        return t("doctor.known-bad-stack.fix", "{fix} (Reports: {source})",
                 fix=local(self.stack.fix), source=threads(self.stack.source))


def stack_matches(facts: Facts, stacks: tuple[KnownBadStack, ...]) -> list[StackMatch]:
    """Every known-bad row this machine hits, once per row (its first AMD GPU with a listed
    target names the card)."""
    if facts.platform.wsl:
        return []
    amd = [g for g in facts.gpus.gpus if g.is_amd and g.gfx]
    found = []
    for stack in stacks:
        gpu = next((g for g in amd if g.gfx in stack.targets), None)
        if gpu is None or gpu.gfx is None:
            continue
        for version, patched in _versions(facts, stack):
            if stack.covers(_compared(stack, version)):
                found.append(StackMatch(stack, version, gpu.name, gpu.gfx, patched))
                break
    return found


def _versions(facts: Facts, stack: KnownBadStack) -> list[tuple[str, bool]]:
    """The machine's versions of the row's component (with whether it is distro-patched)."""
    if stack.component == "linux-firmware":
        firmware = facts.driver.firmware
        if firmware is None or firmware.date is None:
            return []
        if stack.packages and firmware.package not in stack.packages:
            return []
        return [(firmware.version, firmware.distro_patched)]
    if stack.component == "kernel":
        kernel = facts.platform.kernel_version
        return [(".".join(str(n) for n in kernel), False)] if kernel else []
    versions = [(v, False) for v in facts.rocm.versions]
    torch = facts.torch
    if torch is not None and torch.hip and torch.build == "rocm":
        versions.append((torch.hip.split("-")[0], False))
    return versions


def _compared(stack: KnownBadStack, version: str) -> str:
    """What a row compares: a firmware package's upstream date, else the version itself."""
    if stack.component == "linux-firmware":
        return FirmwareFacts("", version, "").date or version
    return version


def known_bad_findings(ctx: Context) -> list[Finding]:
    """known-bad-stack: one warning per known-bad row this machine hits."""
    return [Finding(FINDING, "warning", m.title(), m.detail(), m.fix())
            for m in stack_matches(ctx.facts, ctx.kb.known_bad)]


def stack_warnings(facts: Facts, stacks: tuple[KnownBadStack, ...]) -> list[str]:
    """What a benchmark says before it starts, one line each: a long run on a known-bad stack is
    what hangs the card."""
    return [t("bench.known-bad-stack.warning",
              "{title}. A long run may hang the GPU; {fix}", title=m.title(), fix=m.fix())
            for m in stack_matches(facts, stacks)]
