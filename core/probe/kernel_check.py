"""Kernel proof: small GPU kernels run on each device PyTorch sees, each compared with the CPU.

An arch list says what PyTorch was built for; only a kernel that ran says the card's math
libraries have code for it (rocBLAS/hipBLASLt for matrix products, MIOpen for convolutions,
AOTriton for attention on ROCm). In the chosen Python a small supervisor starts one throwaway
worker per device; the worker runs each operation (:data:`OPS`) and reports it as a JSON line the
moment it completes. Each operation has its own time limit: a worker that hangs or dies
(SIGABRT from rocBLAS, SIGSEGV) is killed or reaped, the operation it was on is named with the
last lines it printed, and a fresh worker goes on with the operations left. The answer is the
``kernel-check.json`` of a snapshot; a replayed machine answers with its recorded one.

Everything here but :func:`run_kernel_check` is pure and never raises on any answer.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from core.i18n import t
from core.probe.environment import applied
from core.probe.managed_env import default_python
from core.probe.parse._text import last_json_object
from core.system import System

SCHEMA = "rocmate.kernel-check/1"
OPS = ("matmul-fp32", "matmul-fp16", "matmul-bf16", "conv2d", "sdpa")
START_TIMEOUT = 90.0
"""Seconds a worker may take to import torch and open its device."""
OP_TIMEOUT = 45.0
"""Seconds one operation may take. The first convolution is the slow one: MIOpen may search
for and compile its kernels on first use (then ~/.cache/miopen keeps them). Public first-call
figures for one convolution: 10.3 s for a tiny one (input 1x3x2x2, eight 3x3 filters) in
miopenFindConvolutionForwardAlgorithm on gfx906, ROCm 3.5 (ROCm/MIOpen#717); 2.2-2.6 s per Find
of ResNet-50-sized configurations (ROCm/MIOpen#2814); 29.2 s for the naive direct solution alone
while Find timed a large bf16 convolution, 256 channels at 1216x832 (ROCm/rocm-libraries#3509).
The check's convolution (2x8x32x32, sixteen 3x3 filters) is of the tiny kind; 45 s is over 4x its
figure and 1.5x the largest. No public figure found shows one small convolution's first call
taking longer; whole-model first runs do (63 s for ResNet-18 on an MI50, ROCm/pytorch#433), but
they compile many convolutions."""
MARK = "@rocmate-kc "
OUTCOMES = ("ok", "wrong", "error", "crashed", "hung", "skipped", "not-run")
"""``ok`` same as the CPU; ``wrong`` differs beyond the tolerance; ``error`` PyTorch raised;
``crashed`` the worker died (``signal`` says on what); ``hung`` no answer within the time limit;
``skipped`` the card has no such type (bf16); ``not-run`` the worker could not start."""

WORKER = r"""
import json, sys, time
MARK = "@rocmate-kc "
def say(**kw):
    sys.stdout.write(MARK + json.dumps(kw) + "\n"); sys.stdout.flush()
where, ops = sys.argv[1], [o for o in sys.argv[2].split(",") if o]
started = time.perf_counter()
import torch
import torch.nn.functional as F
if where == "cpu":
    dev, name, gfx = torch.device("cpu"), "CPU", None
    bf16 = True
else:
    index = int(where)
    dev = torch.device("cuda", index)
    torch.cuda.set_device(index)
    props = torch.cuda.get_device_properties(index)
    name, gfx = str(props.name), getattr(props, "gcnArchName", None)
    gfx = str(gfx) if gfx and str(gfx).startswith("gfx") else None  # NVIDIA: the name again
    try:
        bf16 = bool(torch.cuda.is_bf16_supported())
    except Exception:
        bf16 = False
    if gfx and str(gfx).split(":")[0] in ("gfx803", "gfx900", "gfx906"):
        bf16 = False  # no bf16 instructions before gfx908 (CDNA1)
say(event="ready", device=where, name=name, gfx=gfx, bf16=bf16,
    seconds=round(time.perf_counter() - started, 3))
def sync():
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)
def difference(got, want):
    got = got.detach().float().cpu()
    if not bool(torch.isfinite(got).all()):
        return float("inf")
    scale = max(float(want.abs().max()), 1e-6)
    return float((got - want).abs().max()) / scale
def data(*shape):
    g = torch.Generator().manual_seed(sum(shape))
    return torch.randn(*shape, generator=g)
def matmul(dtype, tolerance):
    a, b = data(256, 256).to(dtype), data(256, 257)[:, :256].to(dtype)
    want = a.float() @ b.float()
    got = a.to(dev) @ b.to(dev); sync()
    return difference(got, want), tolerance
def conv2d():
    x, w = data(2, 8, 32, 32), data(16, 8, 3, 3)
    want = F.conv2d(x, w, padding=1)
    got = F.conv2d(x.to(dev), w.to(dev), padding=1); sync()
    return difference(got, want), 1e-2  # TF32 convolutions on NVIDIA by default
def sdpa():
    q, k, v = (data(1, 4, 128, 64 + i)[..., :64].half() for i in range(3))
    want = F.scaled_dot_product_attention(q.float(), k.float(), v.float())
    got = F.scaled_dot_product_attention(q.to(dev), k.to(dev), v.to(dev)); sync()
    return difference(got, want), 2e-2
RUN = {"matmul-fp32": lambda: matmul(torch.float32, 1e-3),
       "matmul-fp16": lambda: matmul(torch.float16, 1e-2),
       "matmul-bf16": lambda: matmul(torch.bfloat16, 3e-2),
       "conv2d": conv2d, "sdpa": sdpa}
for op in ops:
    if op == "matmul-bf16" and not bf16:
        say(event="done", op=op, outcome="skipped", seconds=0.0); continue
    say(event="start", op=op)
    began = time.perf_counter()
    try:
        diff, tolerance = RUN[op]()
        say(event="done", op=op, outcome="ok" if diff <= tolerance else "wrong",
            difference=diff if diff != float("inf") else None, tolerance=tolerance,
            seconds=round(time.perf_counter() - began, 4))
    except Exception as exc:
        say(event="done", op=op, outcome="error", error=f"{type(exc).__name__}: {exc}"[:2000],
            seconds=round(time.perf_counter() - began, 4))
"""

SUPERVISOR = r"""
import json, os, select, signal, subprocess, sys, threading, time
MARK = "@rocmate-kc "
cfg = globals().get("CFG") or json.loads(sys.argv[1])
lock = threading.Lock()
def emit(obj):
    with lock:
        sys.stdout.write(MARK + json.dumps(obj) + "\n"); sys.stdout.flush()
def kill(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
def check(where, result):
    todo = list(cfg["ops"]); result.update(device=where, name=None, gfx=None, ops=[])
    while todo:
        began = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-I", "-c", cfg["worker"], str(where),
                                 ",".join(todo)], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True)
        fd, buf, log, ready, current = proc.stdout.fileno(), b"", [], False, None
        deadline, hung = time.monotonic() + cfg["start_timeout"], False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                hung = True; break
            if not select.select([fd], [], [], left)[0]:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                text = line.decode("utf-8", "replace").rstrip("\r")
                event = None
                if text.startswith(MARK):
                    try:
                        event = json.loads(text[len(MARK):])
                    except ValueError:
                        event = None
                if not isinstance(event, dict):
                    log = (log + [text[:500]])[-15:]; continue
                kind = event.get("event")
                if kind == "ready":
                    ready = True
                    result.update(name=event.get("name"), gfx=event.get("gfx"),
                                  bf16=event.get("bf16"), start_s=event.get("seconds"))
                    emit({"event": "ready", "device": where, "name": event.get("name"),
                          "gfx": event.get("gfx")})
                    deadline = time.monotonic() + cfg["op_timeout"]
                elif kind == "start":
                    current, log = event.get("op"), []
                    deadline = time.monotonic() + cfg["op_timeout"]
                elif kind == "done":
                    op = event.pop("op", None); event.pop("event", None)
                    entry = {"op": op, **event}
                    if entry.get("outcome") != "ok" and log:
                        entry["log"] = "\n".join(log)
                    result["ops"].append(entry); emit({"event": "op", "device": where, **entry})
                    if op in todo:
                        todo.remove(op)
                    current, log = None, []
                    deadline = time.monotonic() + cfg["op_timeout"]
        if hung:
            kill(proc)
        try:
            rc = proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            kill(proc); rc = proc.wait()
        proc.stdout.close()
        if buf:
            log = (log + [buf.decode("utf-8", "replace")[:500]])[-15:]
        tail = "\n".join(log)
        if not ready:
            outcome = "hung" if hung else ("crashed" if rc < 0 else "error")
            result["start"] = {"outcome": outcome, "seconds": round(time.monotonic() - began, 3),
                               **({"signal": -rc} if rc < 0 and not hung else {}),
                               **({"exit": rc} if rc > 0 else {}), "log": tail}
            for op in todo:
                result["ops"].append({"op": op, "outcome": "not-run"})
            emit({"event": "start-failed", "device": where, **result["start"]})
            return
        if current is None:
            for op in todo:
                result["ops"].append({"op": op, "outcome": "not-run", "log": tail})
            return
        entry = {"op": current, "outcome": "hung" if hung else "crashed" if rc < 0 else "error",
                 "log": tail}
        if hung:
            entry["seconds"] = cfg["op_timeout"]
        elif rc < 0:
            entry["signal"] = -rc
        else:
            entry["exit"] = rc
        result["ops"].append(entry); emit({"event": "op", "device": where, **entry})
        todo.remove(current)
out = {"schema": "rocmate.kernel-check/1", "python": sys.executable, "devices": []}
began = time.monotonic()
threads = []
for where in cfg["devices"]:
    result = {}
    out["devices"].append(result)
    thread = threading.Thread(target=check, args=(where, result), daemon=True)
    thread.start(); threads.append(thread)
for thread in threads:
    thread.join()
out["seconds"] = round(time.monotonic() - began, 3)
out["op_timeout"], out["start_timeout"] = cfg["op_timeout"], cfg["start_timeout"]
print(json.dumps(out), flush=True)
"""


@dataclass(frozen=True)
class OpResult:
    op: str
    outcome: str
    difference: float | None = None
    tolerance: float | None = None
    error: str | None = None
    signal: int | None = None
    log: str = ""
    seconds: float | None = None

    @property
    def ok(self) -> bool:
        return self.outcome in ("ok", "skipped")

    @property
    def text(self) -> str:
        """Everything the operation printed or raised, for matching known messages."""
        return "\n".join(part for part in (self.error, self.log) if part)


@dataclass(frozen=True)
class DeviceCheck:
    device: str
    name: str | None
    gfx: str | None
    ops: tuple[OpResult, ...]
    start: OpResult | None = None
    """Why the worker could not start (import torch or open the device): outcome and log."""

    @property
    def ok(self) -> bool:
        return self.start is None and bool(self.ops) and all(op.ok for op in self.ops)

    @property
    def failed(self) -> tuple[OpResult, ...]:
        return tuple(op for op in self.ops if not op.ok and op.outcome != "not-run")

    @property
    def gfx_target(self) -> str | None:
        """The gfx target without its feature flags (``gfx90a:sramecc+:xnack-`` -> ``gfx90a``)."""
        return self.gfx.split(":")[0] if self.gfx and self.gfx.startswith("gfx") else None

    def to_json(self) -> dict[str, Any]:
        def op_json(op: OpResult) -> dict[str, Any]:
            entry: dict[str, Any] = {"op": op.op, "outcome": op.outcome}
            for key in ("difference", "tolerance", "error", "signal", "seconds"):
                value = getattr(op, key)
                if value is not None:
                    entry[key] = value
            if op.log:
                entry["log"] = op.log
            return entry
        return {"device": self.device, "name": self.name, "gfx": self.gfx, "ok": self.ok,
                "ops": [op_json(op) for op in self.ops],
                **({"start": op_json(self.start)} if self.start else {})}


@dataclass(frozen=True)
class KernelCheck:
    python: str | None
    devices: tuple[DeviceCheck, ...]
    seconds: float | None = None
    problem: str | None = None
    """Why no device answered at all: ``timeout`` (the whole check ran past its limit),
    ``failed`` (no answer could be read), ``python-missing``; None otherwise."""
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None and bool(self.devices) and all(d.ok for d in self.devices)

    def to_json(self) -> dict[str, Any]:
        return {"schema": SCHEMA, "ran": True, "ok": self.ok, "python": self.python,
                "seconds": self.seconds, "problem": self.problem, "error": self.error,
                "devices": [d.to_json() for d in self.devices]}


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None


def _op(data: Any) -> OpResult | None:
    if not isinstance(data, dict):
        return None
    outcome = data.get("outcome")
    signal = data.get("signal")
    return OpResult(
        op=str(data.get("op") or "start"),
        outcome=str(outcome) if outcome in OUTCOMES else "error",
        difference=_number(data.get("difference")),
        tolerance=_number(data.get("tolerance")),
        error=str(data["error"])[:2000] if data.get("error") else None,
        signal=signal if isinstance(signal, int) and not isinstance(signal, bool) else None,
        log=str(data.get("log") or "")[:8000],
        seconds=_number(data.get("seconds")),
    )


def kernel_check_from_json(data: dict[str, Any] | None) -> KernelCheck | None:
    """Read a check's answer (or a snapshot's kernel-check.json), tolerating odd fields."""
    if not isinstance(data, dict):
        return None
    devices: list[DeviceCheck] = []
    for each in data.get("devices") or []:
        if not isinstance(each, dict):
            continue
        ops = tuple(op for op in map(_op, each.get("ops") or []) if op is not None)
        start = _op(each.get("start")) if each.get("start") else None
        devices.append(DeviceCheck(
            device=str(each.get("device", len(devices))),
            name=str(each["name"]) if each.get("name") else None,
            gfx=str(each["gfx"]) if each.get("gfx") else None,
            ops=ops, start=start))
    problem = data.get("problem")
    return KernelCheck(
        python=str(data["python"]) if data.get("python") else None,
        devices=tuple(devices),
        seconds=_number(data.get("seconds")),
        problem=str(problem) if problem in ("timeout", "failed", "python-missing") else None,
        error=str(data["error"])[:2000] if data.get("error") else None,
    )


def events(output: str) -> list[dict[str, Any]]:
    """The JSON lines the check printed as each operation completed (what is left of a check
    that was killed)."""
    found = []
    for line in output.splitlines():
        if line.startswith(MARK):
            try:
                event = json.loads(line[len(MARK):])
            except ValueError:
                continue
            if isinstance(event, dict):
                found.append(event)
    return found


def _from_events(exe: str, found: list[dict[str, Any]], problem: str,
                 error: str) -> dict[str, Any]:
    """The answer of a check that ran past its overall limit, from the lines it printed."""
    devices: dict[str, dict[str, Any]] = {}
    for event in found:
        where = str(event.get("device"))
        entry = devices.setdefault(where, {"device": where, "ops": []})
        if event.get("event") == "ready":
            entry.update(name=event.get("name"), gfx=event.get("gfx"))
        elif event.get("event") == "op":
            entry["ops"].append({k: v for k, v in event.items() if k not in ("event", "device")})
    return {"schema": SCHEMA, "python": exe, "devices": list(devices.values()),
            "problem": problem, "error": error}


VERIFY_PRELUDE = r"""
import json, sys
import torch
print("torch", torch.__version__, "hip", torch.version.hip, flush=True)
if not torch.cuda.is_available():
    print("is_available False: PyTorch sees no GPU", flush=True); sys.exit(1)
CFG = json.loads(%s)
CFG["devices"] = [str(i) for i in range(torch.cuda.device_count())]
"""

VERIFY_EPILOGUE = r"""
bad = 0
for device in out["devices"]:
    if device.get("start"):
        bad += 1
        print(f"GPU {device['device']}: could not start ({device['start']['outcome']}): "
              f"{device['start'].get('log', '')[-300:]}")
    for op in device.get("ops", []):
        fine = op["outcome"] in ("ok", "skipped")
        bad += not fine
        print(f"GPU {device['device']} {device.get('name')} {op['op']}: {op['outcome']}"
              + ("" if fine else f" {op.get('error') or op.get('log', '')[-300:]}"), flush=True)
print("kernel check: " + ("every operation matched the CPU" if not bad else
      f"{bad} operation(s) failed; rocmate doctor names the library and the fix"), flush=True)
sys.exit(1 if bad else 0)
"""


def verify_script(start_timeout: float = START_TIMEOUT, op_timeout: float = OP_TIMEOUT) -> str:
    """The kernel check as one self-contained script (``python -c``) for the set-up plan's last
    step: on every GPU PyTorch sees, one line per operation, exit status 0 only when every
    operation matched the CPU."""
    config = {"ops": list(OPS), "worker": WORKER, "start_timeout": start_timeout,
              "op_timeout": op_timeout}
    return (VERIFY_PRELUDE % repr(json.dumps(config))) + SUPERVISOR + VERIFY_EPILOGUE


def overall_timeout(count: int, ops: int = len(OPS), start: float = START_TIMEOUT,
                    op: float = OP_TIMEOUT) -> float:
    """The outer limit of the whole check: every operation may hang once and need a fresh
    worker (devices are checked at the same time)."""
    del count
    return ops * (start + op) + 15.0


def run_kernel_check(system: System, python: str | None, devices: list[str],
                     *, start_timeout: float = START_TIMEOUT,
                     op_timeout: float = OP_TIMEOUT) -> dict[str, Any]:
    """Run the check in ``python`` on ``devices`` (torch indexes as text, or ``"cpu"``)."""
    exe = python or default_python(system)
    extra = applied(system, exe).for_run()
    config = {"devices": devices, "ops": list(OPS), "worker": WORKER,
              "start_timeout": start_timeout, "op_timeout": op_timeout}
    limit = overall_timeout(len(devices), start=start_timeout, op=op_timeout)
    result = system.run([exe, "-I", "-c", SUPERVISOR, json.dumps(config)], timeout=limit,
                        extra_env=extra)
    if not result.found:
        return {"schema": SCHEMA, "python": exe, "devices": [], "problem": "python-missing",
                "error": f"no Python at {exe}"}
    answer = last_json_object(result.output)
    if answer is not None and "devices" in answer:
        return answer
    tail = (result.output.strip().splitlines() or ["no output"])[-1][:300]
    if result.timed_out:
        return _from_events(exe, events(result.output), "timeout",
                            f"the kernel check ran past {limit:g} s")
    return _from_events(exe, events(result.output), "failed", f"the kernel check failed: {tail}")


def kernel_answer(system: System, python: str | None, devices: list[str]) -> dict[str, Any] | None:
    """The check's answer: run on a live machine, the recorded ``kernel-check.json`` on a
    replayed one (None when none was recorded)."""
    return system.answer("kernel-check", lambda machine: run_kernel_check(machine, python, devices))


# -- words for a person (the doctor's findings and the Verify page's lines) ---------------

# The messages that say a library (or PyTorch itself) has no code for the card, as printed by
# rocBLAS ("Cannot read .../TensileLibrary.dat: Illegal seek for GPU arch : gfx900",
# pytorch/pytorch#179865; "... No such file or directory for GPU arch", brknsoul/ROCmLibs#4),
# Tensile ("Cannot find"), HIP ("hipErrorNoBinaryForGpu: Unable to find code object for all
# current devices!", ROCm/legacy-rocm-build#1623), PyTorch ("invalid device function", "no kernel
# image is available") and hipBLASLt ("Attempting to use hipBLASLt on an unsupported
# architecture", pytorch/pytorch#138067).
NO_KERNELS = re.compile(
    r"hipErrorNoBinaryForGpu|Unable to find code object|invalid device function"
    r"|no kernel image is available|for GPU arch\s*:|TensileLibrary"
    r"|Cannot find .*(?:kernel|solution)"
    r"|hipBLASLt on an unsupported architecture", re.IGNORECASE)
LIBRARY_WORDS = (
    (re.compile(r"hipErrorNoBinaryForGpu|Unable to find code object|invalid device function"
                r"|no kernel image", re.I), "PyTorch"),
    (re.compile(r"hipblaslt", re.I), "hipBLASLt"),
    (re.compile(r"rocblas|tensile", re.I), "rocBLAS"),
    (re.compile(r"miopen", re.I), "MIOpen"),
    (re.compile(r"aotriton", re.I), "AOTriton"),
    (re.compile(r"cublas", re.I), "cuBLAS"),
    (re.compile(r"cudnn", re.I), "cuDNN"),
)
BY_OP = {
    "rocm": {"matmul": "rocBLAS/hipBLASLt", "conv2d": "MIOpen", "sdpa": "AOTriton"},
    "cuda": {"matmul": "cuBLAS", "conv2d": "cuDNN", "sdpa": "flash/memory-efficient attention"},
}


def op_name(op: str) -> str:
    return {
        "matmul-fp32": t("kernel.op.matmul-fp32", "fp32 matrix product"),
        "matmul-fp16": t("kernel.op.matmul-fp16", "fp16 matrix product"),
        "matmul-bf16": t("kernel.op.matmul-bf16", "bf16 matrix product"),
        "conv2d": t("kernel.op.conv2d", "convolution (conv2d)"),
        "sdpa": t("kernel.op.sdpa", "attention (scaled_dot_product_attention)"),
        "start": t("kernel.op.start", "start (import torch, open the device)"),
    }.get(op, op)


def library_of(op: OpResult, build: str) -> str:
    """The library the failing operation ran in: named by its own message where it names one,
    else the one PyTorch uses for that operation on this build."""
    for pattern, name in LIBRARY_WORDS:
        if pattern.search(op.text):
            return name
    family = "matmul" if op.op.startswith("matmul") else op.op
    return BY_OP.get(build, {}).get(family, "PyTorch")


def kind_of(op: OpResult) -> str:
    """``no-kernels``, ``crashed``, ``hung``, ``wrong`` or ``error``."""
    if NO_KERNELS.search(op.text):
        return "no-kernels"
    return {"crashed": "crashed", "hung": "hung", "wrong": "wrong"}.get(op.outcome, "error")


def message_line(op: OpResult) -> str:
    """The line of the operation's output that says most: a known message, else the last."""
    lines = [line.strip() for line in op.text.splitlines() if line.strip()]
    for line in lines:
        if NO_KERNELS.search(line) or re.search(r"error|MIOpen|abort", line, re.I):
            return line[:300]
    return lines[-1][:300] if lines else ""


def what_happened(op: OpResult) -> str:
    if op.outcome == "crashed":
        names = {6: "SIGABRT", 11: "SIGSEGV", 7: "SIGBUS", 4: "SIGILL"}
        signal = names.get(op.signal or 0, str(op.signal))
        return t("kernel.what.crashed", "the process died ({signal})", signal=signal)
    if op.outcome == "hung":
        return t("kernel.what.hung", "no answer within {seconds} s",
                 seconds=f"{op.seconds or 0:g}")
    if op.outcome == "wrong":
        difference = t("kernel.what.not-finite", "not a number") if op.difference is None \
            else f"{op.difference:.3g}"
        return t("kernel.what.wrong", "WRONG: differs from the CPU by {difference} (allowed "
                 "{tolerance})", difference=difference, tolerance=f"{op.tolerance or 0:g}")
    if op.outcome == "not-run":
        return t("kernel.what.not-run", "not run")
    return t("kernel.what.error", "failed")
