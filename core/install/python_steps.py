"""The user's part of every route: which PyTorch wheel index serves the card (a stable index,
best first, or TheRock's nightly multi-arch index), the virtual environment with the wheels in
it, and the last check that PyTorch sees the GPU.

``make_plan`` (core.install.planner) picks the index with :func:`pick_index` and appends
:func:`add_python_env` and, last of all, :func:`add_verify`.
"""

from __future__ import annotations

from core.diagnose.context import Support
from core.diagnose.release_choice import stable_indexes
from core.i18n import t
from core.install.plan import Step
from core.install.plan_builder import PlanBuilder, PlanError
from core.knowledge.loader import Knowledge
from core.knowledge.rows import gfx_base
from core.knowledge.wheels import TheRockIndex, TorchIndex, current_therock
from core.probe.gpus import Gpu
from core.probe.kernel_check import verify_script
from core.probe.parse.kfd import override_to_gfx


def native_code(
    kb: Knowledge, gpu: Gpu, strategy: str, index: TorchIndex | None
) -> bool:
    """Whether the planned wheels carry code for the card's own target (then no override):
    the index's arch list (for AMD's indexes, the device extras it offers), or TheRock's
    multi-arch device extras."""
    if not gpu.gfx:
        return False
    if strategy == "therock":
        family = therock_index(kb, gpu.gfx)
        return bool(family and family.device_extra and gfx_base(gpu.gfx) in family.targets)
    return bool(index and index.torch_for(gpu.gfx))


def wheel_target(env: dict[str, str], gpu: Gpu) -> str | None:
    """The target whose code the wheels must carry: the one the override in ``env`` poses as,
    else the card's own. The device extra follows it, so a plan never pairs a card's own
    device wheel with an override that makes the runtime look for another target's code."""
    for key, value in env.items():
        if key.startswith("HSA_OVERRIDE_GFX_VERSION"):
            return override_to_gfx(value) or gpu.gfx
    return gpu.gfx


def therock_index(kb: Knowledge, gfx: str) -> TheRockIndex | None:
    """TheRock's index for ``gfx`` that still gets builds (the one support.toml names, else the
    first that carries the target); a frozen per-family index never."""
    named = kb.therock_for(gfx)
    if named is not None and not named.frozen:
        return named
    return current_therock(kb.therock, gfx)


def pick_index(
    kb: Knowledge, gpu: Gpu, support: Support, strategy: str, rocm: str | None, strict: bool
) -> TorchIndex | None:
    """The wheel index: for ``rocm`` when given (falling back when not ``strict``)."""
    if strategy == "therock":
        return None
    indexes = stable_indexes(kb, gpu, support)
    if not indexes:
        raise PlanError(t("plan.error.no-index", "no stable PyTorch wheel index has code for "
                          "{gfx}", gfx=gpu.gfx))
    matching = stable_indexes(kb, gpu, support, rocm) if rocm else indexes
    if not matching and strict:
        raise PlanError(t("plan.error.no-index-for-rocm", "no stable PyTorch index for ROCm "
                          "{rocm} has code for {gfx}", rocm=rocm, gfx=gpu.gfx))
    return (matching or indexes)[0]



def add_python_env(
    builder: PlanBuilder, index: TorchIndex | None, gpu: Gpu, strategy: str,
    target: str | None = None, pins: tuple[str, ...] = (),
) -> None:
    """The venv and the PyTorch wheels; ``target`` is the gfx whose code must be in them
    (the card's own, or the one its override poses as): the pin is the newest torch on the
    index that carries it, unless ``pins`` names the requirements (a legacy route's)."""
    builder.add(
        Step(
            "venv",
            t("plan.venv.title", "Create rocmate's Python environment"),
            t("plan.venv.explain",
              "A virtual environment at {path}, so nothing touches the system Python.",
              path=builder.venv),
            argv=("python3", "-m", "venv", builder.venv),
        )
    )
    builder.add(
        Step(
            "pip-upgrade",
            t("plan.pip-upgrade.title", "Update pip in it"),
            t("plan.pip-upgrade.explain", "An old pip may not understand the wheel index."),
            argv=(builder.python, "-m", "pip", "install", "--upgrade", "pip"),
        )
    )
    if strategy == "therock":
        family = therock_index(builder.ctx.kb, gpu.gfx or "")
        assert family is not None and gpu.gfx
        builder.torch_url = family.url
        device = gfx_base(target or gpu.gfx)
        if family.device_extra:
            extra = f"device-{device}"
            builder.torch_packages = [f"torch[{extra}]", f"torchvision[{extra}]"]
            _device_wheel_notes(builder, gpu, device, family.untested)
        else:
            builder.torch_packages = ["torch", "torchvision"]
        builder.notes.append(t(
            "plan.note.therock-preview",
            "TheRock's {family} index holds nightly preview builds of ROCm + PyTorch.",
            family=family.family,
        ))
        if family.device_extra:
            builder.notes.append(t(
                "plan.note.therock-device-extra",
                "One index serves every GPU: the {extra} extra picks this card's kernels, "
                "and the torch wheel brings the matching ROCm libraries with it.",
                extra=f"[device-{device}]",
            ))
    else:
        assert index is not None
        builder.torch_url = index.url
        if index.device_extra and (target or gpu.gfx):
            device = gfx_base(target or gpu.gfx or "")
            extras = [f"torch[device-{device}]", f"torchvision[device-{device}]"]
            torch = (index.torch_for(device) or index.newest_torch) if index.local else None
            vision = index.torchvision_with(torch) if torch else None
            if torch and vision:
                extras = [f"{extras[0]}=={torch}+{index.local}",
                          f"{extras[1]}=={vision}+{index.local}"]
            builder.torch_packages = extras
            _device_wheel_notes(builder, gpu, device, ())
        elif pins:
            builder.torch_packages = list(pins)
        else:
            newest = (index.torch_for(target) if target else None) or index.newest_torch
            pin = f"+{index.name}" if index.vendor == "pytorch" else ""
            builder.torch_packages = [
                f"torch=={newest}{pin}" if newest else "torch",
                "torchvision",
            ]
    builder.add(
        Step(
            "pip-torch",
            t("plan.pip-torch.title", "Install PyTorch for ROCm"),
            t("plan.pip-torch.explain",
              "From {url}. The wheels bring their own ROCm libraries (several GB).",
              url=builder.torch_url),
            argv=(
                builder.python,
                "-m",
                "pip",
                "install",
                *builder.torch_packages,
                "--index-url",
                builder.torch_url,
            ),
        )
    )

def _device_wheel_notes(
    builder: PlanBuilder, gpu: Gpu, device: str, untested: tuple[str, ...]
) -> None:
    """Why the device extra is the one it is, where it is not plainly the card's own
    supported target: an override card's own untested device wheel, or the override
    target's wheel."""
    own = gfx_base(gpu.gfx) if gpu.gfx else None
    support = builder.ctx.primary[1] if builder.ctx.primary else None
    override = support.override if support and support.status == "override" else None
    posed = override_to_gfx(override) if override else None
    if own and device == own and own in untested:
        builder.notes.append(t(
            "plan.note.device-wheel-untested",
            "AMD builds a device wheel for {gfx} itself ({extra}), so no {variable} is "
            "set; no public output shows PyTorch working with it yet (untested publicly).",
            gfx=own, extra=f"[device-{own}]", variable="HSA_OVERRIDE_GFX_VERSION",
        ))
        if override and posed:
            builder.notes.append(t(
                "plan.note.device-wheel-fallback",
                "If it fails, the stable wheels with {gfx} code and {variable}={value} are "
                "the publicly tested route: {command}.",
                gfx=posed, variable="HSA_OVERRIDE_GFX_VERSION", value=override,
                command="rocmate install --strategy pip-only",
            ))
    elif own and device != own:
        value = next((v for k, v in builder.env.items()
                      if k.startswith("HSA_OVERRIDE_GFX_VERSION")), "")
        builder.notes.append(t(
            "plan.note.device-wheel-override",
            "This index has no device wheel for {gfx}, so the plan takes {extra}: "
            "{variable}={value} makes the card pose as {device}, whose kernels that wheel "
            "carries.",
            gfx=own, extra=f"[device-{device}]", variable="HSA_OVERRIDE_GFX_VERSION",
            value=value, device=device,
        ))


def add_verify(builder: PlanBuilder) -> None:
    builder.add(
        Step(
            "verify",
            t("plan.verify.title", "Check that PyTorch sees the GPU"),
            t("plan.verify.explain",
              "torch version and torch.version.hip, is_available, then on each GPU "
              "fp32/fp16/bf16 matrix products, a convolution and attention, each compared "
              "with the CPU in its own time limit (the kernel check of rocmate doctor)."),
            argv=(builder.python, "-c", verify_script()),
            kind="verify",
        )
    )

