"""From runner outcomes to a ``rocmate.report/1`` (core.report.model)."""

from __future__ import annotations

import datetime as _dt
import logging
from dataclasses import fields
from pathlib import Path
from typing import Any

from core import __version__
from core.bench.peaks import reference
from core.bench.runner import RunOutcome
from core.bench.telemetry import energy
from core.knowledge.loader import Knowledge
from core.probe.driver import (
    amdgpu_dkms_version,
    amdgpu_loaded,
    nvidia_loaded,
    nvidia_version,
    version_text,
)
from core.report.efficiency import efficiencies
from core.report.model import (
    MAX_NUMBER,
    DeviceInfo,
    Driver,
    Energy,
    ErrorInfo,
    Figure,
    Interruption,
    Machine,
    Measure,
    PowerSource,
    Report,
    Software,
    Step,
    SuiteResult,
    SuiteRun,
    Warmup,
)
from core.system import System

log = logging.getLogger(__name__)

_FIGURE_KEYS = {f.name for f in fields(Figure)}
_STEP_KEYS = {"event", "phase", "index", "seconds", "items", "throughput", "unit", "t", "rx_t",
              "part"}
_ITEM_UNITS = {"images/s": "image", "tokens/s": "token"}
_DOCTOR_GPU_KEYS = ("vendor", "pci_id", "name", "gfx", "vram_bytes", "integrated")
_PCI_DEVICES = "/sys/bus/pci/devices"
_BACKEND_DRIVERS = {"hip": "amdgpu", "cuda": "nvidia"}
_VENDOR_DRIVERS = {"amd": "amdgpu", "nvidia": "nvidia"}


def _figure(d: dict[str, Any]) -> Figure:
    return Figure(**{k: v for k, v in d.items() if k in _FIGURE_KEYS})


def _result(ev: dict[str, Any]) -> SuiteResult:
    w = ev.get("warmup") or {}
    m = ev.get("measure") or {}
    return SuiteResult(
        headline=ev["headline"],
        figures={k: _figure(v) for k, v in (ev.get("figures") or {}).items()},
        warmup=Warmup(steps=int(w.get("steps", 0)), seconds=float(w.get("seconds", 0.0)),
                      first_step_s=w.get("first_step_s"), settled=w.get("settled"),
                      forced=bool(w.get("forced", False))),
        measure=Measure(steps=int(m.get("steps", 0)), seconds=float(m.get("seconds", 0.0)),
                        items=int(m.get("items", 0))),
        peak_memory_bytes=ev.get("peak_memory_bytes"),
        peak_memory_reserved_bytes=ev.get("peak_memory_reserved_bytes"),
        details=ev.get("details") or {},
    )


def _step(ev: dict[str, Any]) -> Step:
    extra = {k: float(v) for k, v in ev.items()
             if k not in _STEP_KEYS and isinstance(v, (int, float)) and not isinstance(v, bool)}
    return Step(phase=str(ev.get("phase")), index=int(ev.get("index", 0)),
                seconds=float(ev.get("seconds", 0.0)), items=int(ev.get("items", 0)),
                t=ev.get("rx_t"), part=ev.get("part"), figures=extra)


def _device(out: RunOutcome) -> DeviceInfo | None:
    h = out.hello
    if h is None:
        return None
    ids = out.device_ids
    return DeviceInfo(name=str(h.get("device_name") or h.get("device")),
                      backend=str(h.get("backend")), arch=h.get("arch"),
                      pci_bus_id=h.get("pci_bus_id"), pci_id=ids.pci_id if ids else None,
                      total_memory_bytes=h.get("total_memory_bytes"))


def _energy(out: RunOutcome, result: SuiteResult) -> Energy | None:
    """Energy per item over the measured phase, when power was sampled."""
    unit = result.figures.get("throughput")
    item = _ITEM_UNITS.get(unit.unit) if unit else None
    measure_steps = [s for s in out.steps if s.get("phase") == "measure"]
    start = next((p.get("rx_t") for p in out.phases if p.get("phase") == "measure"), None)
    if not item or not measure_steps or start is None or not result.measure.items:
        return None
    got = energy(out.telemetry, float(start), float(measure_steps[-1]["rx_t"]))
    if got is None:
        return None
    joules, mean_w, method = got
    return Energy(joules=joules, per_item_j=joules / result.measure.items, item_unit=item,
                  mean_power_w=mean_w, method=method)


def _scrub(text: str, home: str | None) -> str:
    """Paths under the user's home as ``~/...`` (a report must not carry user names)."""
    if home and len(home) > 1:
        return text.replace(home.rstrip("/") + "/", "~/")
    return text


def suite_run(out: RunOutcome, kb: Knowledge | None = None, home: str | None = None) -> SuiteRun:
    """One outcome as a report's suite run."""
    settings = dict((out.result or {}).get("settings") or (out.hello or {}).get("settings")
                    or {k: v for k, v in vars(out.options).items() if v is not None})
    if settings.get("model"):
        settings["model"] = Path(str(settings["model"])).name  # which weights, not where
    for key, value in settings.items():
        if type(value) is int and abs(value) > MAX_NUMBER:  # a 64-bit seed: kept exactly, as text
            settings[key] = str(value)
    run = SuiteRun(
        suite=out.suite, status=out.status, started=out.started, duration_s=out.duration_s,
        settings=settings, device=_device(out),
        steps=[_step(s) for s in out.steps], telemetry=list(out.telemetry),
    )
    if out.status == "ok" and out.result is not None:
        run.result = _result(out.result)
        run.energy = _energy(out, run.result)
        if run.device is not None and run.device.backend != "cpu":
            ids = out.device_ids
            run.reference = reference(out.suite, run.settings, run.result.figures,
                                      ids.pci_id if ids else None, ids.revision if ids else None,
                                      run.device.name, kb)
    elif out.partial is not None:  # cut short: the result of the steps it measured
        run.result = _result(out.partial)
        cut = out.partial.get("interrupted") or {}
        run.result.interrupted = Interruption(measured_steps=int(cut.get("measured_steps", 0)),
                                              planned_steps=cut.get("planned_steps"))
        run.energy = _energy(out, run.result)
    src = out.power_source
    if src and isinstance(src.get("sampler"), str):
        run.power_source = PowerSource(sampler=src["sampler"], power=src.get("power"),
                                       energy=src.get("energy"))
    if run.result is not None:
        run.efficiency = efficiencies(run)
    if out.error is not None:
        e = out.error
        run.error = ErrorInfo(kind=str(e.get("kind", "other")),
                              message=_scrub(str(e.get("message", "")), home),
                              advice=_scrub(str(e.get("advice", "")), home),
                              detail=_scrub(str(e.get("detail") or ""), home),
                              source=str(e.get("source", "worker")))
    return run


def software(hello: dict[str, Any] | None, driver: Driver | None = None) -> Software:
    """The worker's versions (its hello), plus the GPU kernel driver read on the parent side."""
    h = hello or {}
    hip = h.get("hip")
    packages = {k: str(h[k]) for k in ("torchvision", "diffusers", "transformers", "cudnn")
                if h.get(k) is not None}
    return Software(python=h.get("python"), torch=h.get("torch"), hip=hip, cuda=h.get("cuda"),
                    rocm=".".join(str(hip).split(".")[:2]) if hip else None,
                    packages=packages, env=dict(h.get("env") or {}), driver=driver)


def gpu_driver(system: System, hello: dict[str, Any] | None, facts: Machine) -> Driver | None:
    """The kernel driver of the GPU the run used (else of the machine's first AMD or NVIDIA GPU):
    amdgpu from DKMS or the kernel's own, or NVIDIA's; None when there is none or it cannot be
    read. Files only, no command; a failure is logged, never raised."""
    try:
        name = _driver_name(system, hello or {}, facts)
        kernel = str(facts.platform.get("kernel") or "") or None
        if name == "amdgpu":
            return _amdgpu_driver(system, kernel)
        if name == "nvidia":
            return _nvidia_driver(system, kernel)
    except Exception as exc:  # a report without the driver beats no report
        log.warning("GPU driver facts unavailable: %s", exc)
    return None


def _driver_name(system: System, hello: dict[str, Any], facts: Machine) -> str | None:
    """amdgpu or nvidia: the driver bound to the run's PCI device, else the one its backend
    (hip, cuda) needs, else the first AMD or NVIDIA GPU's."""
    bus = hello.get("pci_bus_id")
    if isinstance(bus, str) and bus:
        link = system.readlink(f"{_PCI_DEVICES}/{bus.lower()}/driver") or ""
        bound = link.rstrip("/").rsplit("/", 1)[-1]
        if bound in _VENDOR_DRIVERS.values():
            return bound
    by_backend = _BACKEND_DRIVERS.get(str(hello.get("backend")))
    if by_backend:
        return by_backend
    return next((_VENDOR_DRIVERS[v] for g in facts.gpus
                 if (v := str(g.get("vendor"))) in _VENDOR_DRIVERS), None)


def _amdgpu_driver(system: System, kernel: str | None) -> Driver | None:
    """amdgpu: DKMS-built when /sys/module/amdgpu/version exists, else the kernel's own."""
    if not amdgpu_loaded(system):
        return None
    dkms = amdgpu_dkms_version(system)
    return Driver(name="amdgpu", version=version_text(dkms) if dkms else None,
                  source="dkms" if dkms else "in-tree", kernel=kernel)


def _nvidia_driver(system: System, kernel: str | None) -> Driver | None:
    """NVIDIA's module and its version, when it is loaded."""
    if not nvidia_loaded(system):
        return None
    return Driver(name="nvidia", version=nvidia_version(system), source="nvidia", kernel=kernel)


def machine(system: System) -> Machine:
    """The doctor's platform and GPU facts (sysfs only; no command is run)."""
    platform: dict[str, Any] = {}
    gpus: list[dict[str, Any]] = []
    try:
        from core.probe.platform import probe_platform

        platform = dict(probe_platform(system).to_json())
    except Exception as exc:  # a report without a platform beats no report
        log.warning("platform facts unavailable: %s", exc)
    try:
        from core.knowledge.loader import load_knowledge
        from core.knowledge.vendors import load_vendors
        from core.probe.gpus import probe_gpus

        facts = probe_gpus(system, load_knowledge(), load_vendors())
        gpus = [{k: g.to_json().get(k) for k in _DOCTOR_GPU_KEYS} for g in facts.gpus]
    except Exception as exc:
        log.warning("GPU facts unavailable: %s", exc)
    return Machine(platform=platform, gpus=gpus)


def build_report(outcomes: list[RunOutcome], system: System,
                 kb: Knowledge | None = None, machine_facts: Machine | None = None) -> Report:
    """A report of one or more runs on this machine."""
    hello = next((o.hello for o in outcomes if o.hello), None)
    try:
        home: str | None = system.user().home
    except Exception:
        home = None
    facts = machine_facts or machine(system)
    return Report(
        tool_version=__version__,
        created=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        machine=facts,
        software=software(hello, gpu_driver(system, hello, facts)),
        runs=[suite_run(o, kb, home) for o in outcomes],
    )
