"""Rules about PyTorch in the chosen Python: missing, wrong build, no GPU, no code for the card."""

from __future__ import annotations

from core.diagnose.context import Context
from core.diagnose.finding import Finding
from core.diagnose.rules_apps import repair_fix
from core.i18n import t
from core.probe.parse.kfd import override_to_gfx
from core.probe.torch import TorchFacts


def install_fix() -> str:
    return t("doctor.fix.install", "rocmate install   (a virtual environment with the matching "
             "ROCm build of PyTorch)")


def torch_rules(ctx: Context, findings_so_far: list[Finding]) -> list[Finding]:
    facts = ctx.facts
    if not facts.torch_probed:
        return []
    torch = facts.torch
    where = t("doctor.torch.in-python", " in {python}", python=torch.python) \
        if torch and torch.python else ""
    if torch is not None and torch.problem == "record-damaged":
        return []  # the snapshot-damaged finding says so; nothing is concluded from it
    if torch is not None and torch.problem:
        return [_probe_problem(torch)]  # said whatever the GPU: the user asked about this Python
    if torch is None or not torch.installed:
        if not ctx.usable_amd:
            return []
        error = f" ({torch.error_text})" if torch and torch.error else ""
        return [
            Finding(
                "torch-missing",
                "warning",
                t("doctor.torch-missing.title", "PyTorch is not installed{where}", where=where),
                t("doctor.torch-missing.detail", "No 'import torch' in the chosen Python{error}.",
                  error=error),
                install_fix(),
            )
        ]
    if torch.build != "rocm":
        return _not_rocm(ctx, where)
    arch = _arch_missing(ctx)
    if not torch.available:
        return [*arch, _no_gpu(ctx, [*findings_so_far, *arch], where)]
    if arch:
        return arch
    names = ", ".join(torch.devices) or t("doctor.torch.the-gpu", "the GPU")
    return [Finding("torch-ok", "ok", t("doctor.torch-ok.title", "PyTorch {version} sees {names}",
                                        version=torch.version, names=names))]


def _choose_python() -> str:
    return t("doctor.fix.choose-python",
             "Give the Python that holds PyTorch: --python ~/venvs/sd/bin/python (inside the "
             "activated environment, `python -c 'import sys; print(sys.executable)'` prints it); "
             "without --python rocmate checks its own environment (rocmate install makes it).")


def _probe_problem(torch: TorchFacts) -> Finding:
    """The PyTorch check itself did not get an answer: say what happened, not "not installed"."""
    python = torch.python or t("doctor.torch.that-python", "that Python")
    run_it = f"{python} -c 'import torch; print(torch.cuda.is_available())'"
    if torch.problem == "python-missing":
        return Finding(
            "torch-python-missing", "warning",
            t("doctor.torch-python-missing.title", "There is no Python at {python}",
              python=python),
            t("doctor.torch-python-missing.detail", "rocmate was asked to check the PyTorch of "
              "{python}, but there is no program there.", python=python), _choose_python())
    if torch.problem == "not-a-python":
        return Finding(
            "torch-not-python", "warning",
            t("doctor.torch-not-python.title", "{python} is not a Python", python=python),
            t("doctor.torch-not-python.detail", "rocmate's PyTorch check needs a Python: "
              "{error}.", error=torch.error_text), _choose_python())
    if torch.problem == "timeout":
        seconds = f"{torch.timeout_s:g} s" if torch.timeout_s else t(
            "doctor.torch.the-time-limit", "the time limit")
        return Finding(
            "torch-probe-timeout", "error",
            t("doctor.torch-probe-timeout.title",
              "Importing PyTorch in {python} did not finish within {seconds}", python=python,
              seconds=seconds),
            t("doctor.torch-probe-timeout.detail",
              "A ROCm PyTorch that hangs on 'import torch' or on its first GPU call usually "
              "waits on the GPU: a wrong HSA_OVERRIDE_GFX_VERSION, a card the runtime cannot "
              "start, or an amdgpu driver that is stuck (dmesg says so). A first import from a "
              "slow or network disk can also take minutes."),
            t("doctor.torch-probe-timeout.fix",
              "Run it yourself to see where it stops: {run_it}; look at "
              "dmesg | grep -i -E 'amdgpu|kfd'; or give the check more time: --torch-timeout "
              "300", run_it=run_it))
    if torch.problem == "crashed":
        return Finding(
            "torch-probe-crashed", "error",
            t("doctor.torch-probe-crashed.title", "Importing PyTorch crashed {python}",
              python=python),
            t("doctor.torch-probe-crashed.detail",
              "{error}. A crash on import is most often a ROCm library that does not fit the "
              "card or the driver (or a wrong HSA_OVERRIDE_GFX_VERSION).", error=torch.error_text),
            t("doctor.torch-probe-crashed.fix", "Run it yourself to see the message: {run_it}; "
              "then rocmate explain '<the message>'", run_it=run_it))
    return Finding(
        "torch-probe-failed", "error",
        t("doctor.torch-probe-failed.title", "rocmate could not read PyTorch's answer in {python}",
          python=python),
        f"{torch.error_text}.",
        t("doctor.torch-probe-failed.fix", "Run it yourself to see the message: {run_it}",
          run_it=run_it))


def _not_rocm(ctx: Context, where: str) -> list[Finding]:
    torch = ctx.facts.torch
    assert torch is not None
    if not ctx.usable_amd:
        if torch.build == "cuda" and torch.available:
            return [Finding("torch-ok", "ok", t("doctor.torch-ok.cuda",
                                                "PyTorch {version} (CUDA) sees the GPU",
                                                version=torch.version))]
        return []
    kind = "CUDA" if torch.build == "cuda" else t("doctor.torch.cpu-only", "CPU-only")
    return [
        Finding(
            "torch-not-rocm",
            "warning",
            t("doctor.torch-not-rocm.title", "PyTorch {version}{where} is a {kind} build",
              version=torch.version, where=where, kind=kind),
            t("doctor.torch-not-rocm.detail",
              "A {kind} build cannot use an AMD GPU; torch.cuda.is_available() stays False. The "
              "ROCm build comes from a different index (download.pytorch.org/whl/rocmX.Y).",
              kind=kind),
            repair_fix(ctx) or install_fix(),
        )
    ]


def _no_gpu(ctx: Context, findings: list[Finding], where: str) -> Finding:
    torch = ctx.facts.torch
    assert torch is not None
    ids = {f.id for f in findings if f.needs_action}
    causes = {
        "wsl1": t("doctor.torch-no-gpu.because.wsl1", "WSL 1 has no GPU access"),
        "no-amd-gpu": t("doctor.torch-no-gpu.because.no-amd-gpu", "there is no AMD GPU"),
        "no-gpu": t("doctor.torch-no-gpu.because.no-gpu", "there is no GPU"),
        "kfd-missing": t("doctor.torch-no-gpu.because.kfd-missing",
                         "the ROCm device /dev/kfd (or the WSL runtime) is missing"),
        "kfd-no-access": t("doctor.torch-no-gpu.because.kfd-no-access",
                           "this user cannot open /dev/kfd"),
        "hip-visible-devices-hides": t("doctor.torch-no-gpu.because.visible-devices",
                                       "a *_VISIBLE_DEVICES variable hides the GPU"),
        "gfx-unsupported": t("doctor.torch-no-gpu.because.gfx-unsupported",
                             "the GPU is not supported"),
        "gfx-needs-override": t("doctor.torch-no-gpu.because.gfx-needs-override",
                                "the card needs HSA_OVERRIDE_GFX_VERSION"),
        "override-wrong": t("doctor.torch-no-gpu.because.override-wrong",
                            "HSA_OVERRIDE_GFX_VERSION has a wrong value"),
        "torch-arch-missing": t("doctor.torch-no-gpu.because.arch-missing",
                                "the wheel has no code for this card"),
    }
    found = [text for key, text in causes.items() if key in ids]
    caused_by = tuple(key for key in causes if key in ids)
    if not found and ctx.facts.platform.wsl == 2:
        found.append(t(
            "doctor.torch-no-gpu.because.wsl-runtime",
            "on WSL the wheel's bundled libhsa-runtime64.so cannot talk to /dev/dxg; it must be "
            "replaced by the one from /opt/rocm/lib"))
        fix = t(
            "doctor.torch-no-gpu.fix.wsl-runtime",
            "{command}   (rocmate install --strategy wsl does this)",
            command="cd $(python -c 'import torch,os;print(os.path.dirname(torch.__file__))')/lib"
            " && rm libhsa-runtime64.so* && cp /opt/rocm/lib/libhsa-runtime64.so.1.* "
            "libhsa-runtime64.so")
    elif not found:
        found.append(t(
            "doctor.torch-no-gpu.because.unknown",
            "the cause is not visible from here: check that the wheel's ROCm ({rocm}) suits the "
            "driver, and run rocminfo", rocm=torch.wheel_rocm or "?"))
        fix = "rocminfo; dmesg | grep -i -E 'amdgpu|kfd'; rocmate explain '<the error>'"
    else:
        fix = t("doctor.torch-no-gpu.fix.causes",
                "Fix the findings above, then check again: {command}",
                command="python -c 'import torch; print(torch.cuda.is_available())'")
    return Finding(
        "torch-no-gpu",
        "error",
        t("doctor.torch-no-gpu.title", "PyTorch {version}{where} is a ROCm build but sees no GPU",
          version=torch.version, where=where),
        t("doctor.torch-no-gpu.detail", "torch.cuda.is_available() is False because {causes}.",
          causes=t("doctor.list-separator", "; ").join(found)),
        fix,
        caused_by=caused_by,
    )


def _arch_missing(ctx: Context) -> list[Finding]:
    torch = ctx.facts.torch
    if torch is None or ctx.primary is None or not torch.arch_list:
        return []
    gpu, support = ctx.primary
    wanted = ctx.effective_gfx(gpu)
    have = {a.split(":")[0] for a in torch.arch_list}
    if not wanted or wanted in have:
        return []
    posing_as = override_to_gfx(support.override) if support.override else None
    if wanted == gpu.gfx and posing_as in have:
        return []  # the override is what is missing: gfx-needs-override says so

    return [
        Finding(
            "torch-arch-missing",
            "error",
            t("doctor.torch-arch-missing.title", "PyTorch {version} has no code for {gfx}",
              version=torch.version, gfx=wanted),
            t("doctor.torch-arch-missing.detail",
              "The wheel was built for {targets}. Running on {gpu} ends in "
              "hipErrorNoBinaryForGpu or 'invalid device function'.",
              targets=", ".join(sorted(have)), gpu=gpu.name),
            t("doctor.torch-arch-missing.fix", "Install a wheel built for this card: {install}",
              install=repair_fix(ctx) or install_fix()),
        )
    ]
