"""Every read-only CLI command over the recorded machines and reports, run in one process.

``python -m tests.cli_outputs --record`` writes what each command prints (exit status, stdout,
stderr) to ``tests/fixtures/cli-outputs/``; ``tests/cli/test_cli_outputs.py`` runs the same
commands and compares byte for byte. The outputs were recorded before the code was reshaped into
operations and commands, so a move that changes a word a user sees fails the test.

The commands run in a child process with a fixed environment (HOME, XDG paths, LANG, no
colour), each through ``core.cli.main`` with stdout/stderr captured. ``doctor --json``'s timings
are the one thing that differs from run to run: their values are replaced by 0.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MACHINES = ROOT / "tests" / "fixtures" / "machines"
REPORTS = ROOT / "tests" / "fixtures" / "reports"
RECORDED = ROOT / "tests" / "fixtures" / "cli-outputs"

EXPLAIN_TEXTS = {
    "hip-invalid": "RuntimeError: HIP error: invalid device function",
    "unknown": "all good here",
}


def cases() -> dict[str, list[str]]:
    """Name -> argv (relative paths: the commands run in the repository root)."""
    out: dict[str, list[str]] = {}
    for machine in sorted(p for p in MACHINES.iterdir() if (p / "SOURCE.md").is_file()):
        root = str(machine.relative_to(ROOT))
        name = machine.name
        out[f"doctor--{name}"] = ["doctor", "--root", root, "--color", "never"]
        out[f"doctor-v--{name}"] = ["doctor", "--root", root, "--color", "never", "-v"]
        out[f"doctor-json--{name}"] = ["doctor", "--root", root, "--json"]
        out[f"install--{name}"] = ["install", "--root", root, "--dry-run"]
        out[f"install-json--{name}"] = ["install", "--root", root, "--dry-run", "--json"]
        out[f"env--{name}"] = ["env", "--root", root]
        out[f"env-fish--{name}"] = ["env", "--root", root, "--shell", "fish"]
        for key, text in EXPLAIN_TEXTS.items():
            out[f"explain-{key}--{name}"] = ["explain", text, "--root", root]
        out[f"explain-json--{name}"] = ["explain", EXPLAIN_TEXTS["hip-invalid"], "--root", root,
                                        "--json"]
        if (machine / "files/proc/meminfo").is_file() or any(
                machine.glob("files/sys/devices/**/mem_info_gtt_total")):
            # an APU recorded with its memory files (issue 35)
            out[f"memory--{name}"] = ["memory", "--root", root]
            out[f"memory-json--{name}"] = ["memory", "--root", root, "--json"]
            out[f"memory-plan--{name}"] = ["memory", "plan", "--root", root]
            out[f"memory-plan-json--{name}"] = ["memory", "plan", "--root", root, "--json"]
            out[f"memory-undo--{name}"] = ["memory", "undo", "--root", root]
    reports = sorted(p for p in REPORTS.glob("*.json"))
    for report in reports:
        rel = str(report.relative_to(ROOT))
        name = report.stem
        for fmt in ("html", "md", "json"):
            out[f"render-{fmt}--{name}"] = ["report", "render", rel, "--format", fmt]
        out[f"render-refs-md--{name}"] = ["report", "render", rel, "--format", "md",
                                          "--references"]
        out[f"show--{name}"] = ["report", "show", rel]
        out[f"show-refs--{name}"] = ["report", "show", rel, "--references", "--all-cards"]
    first, *rest = [str(r.relative_to(ROOT)) for r in reports]
    for other in rest:
        stem = Path(other).stem
        out[f"compare--{stem}"] = ["report", "compare", first, other]
        out[f"compare-md--{stem}"] = ["report", "compare", first, other, "--format", "md"]
    return out


# A fixed, never-created home: a path under it in an output is the same on every machine.
FIXED_HOME = "/nonexistent/rocmate-cli-outputs/home"

_TIMING = re.compile(r'("(?:[a-z_]+_s|total_s)": )[0-9.e-]+')


def normalise(name: str, text: str) -> str:
    """Timings to 0, and this checkout's Python (a plan step runs it) to ``<python>``."""
    text = text.replace(sys.executable, "<python>")
    if name.startswith("doctor-json--"):
        return _TIMING.sub(r"\g<1>0", text)
    return text


def run_all() -> dict[str, dict[str, object]]:
    """Run every case in this process (the environment is the caller's)."""
    from core.cli import main

    results: dict[str, dict[str, object]] = {}
    for name, argv in cases().items():
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as exc:
                status = exc.code if isinstance(exc.code, int) else 1
        results[name] = {
            "rc": status,
            "stdout": normalise(name, out.getvalue()),
            "stderr": err.getvalue(),
        }
    return results


def fixed_env(home: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "XDG_DATA_HOME": f"{home}/.local/share",
        "XDG_CONFIG_HOME": f"{home}/.config",
        "XDG_STATE_HOME": f"{home}/.local/state",
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        "PYTHONHASHSEED": "0",
    }


def collect(home: str) -> dict[str, dict[str, object]]:
    """Run every case in a child Python with a fixed environment."""
    child = subprocess.run(
        [sys.executable, "-m", "tests.cli_outputs", "--dump"],
        cwd=ROOT, env=fixed_env(home), capture_output=True, text=True, timeout=900,
        check=True,
    )
    data: dict[str, dict[str, object]] = json.loads(child.stdout)
    return data


def record(home: str) -> None:
    RECORDED.mkdir(parents=True, exist_ok=True)
    for old in RECORDED.glob("*.out"):
        old.unlink()
    for name, result in collect(home).items():
        body = (f"rc: {result['rc']}\n--- stdout\n{result['stdout']}"
                f"--- stderr\n{result['stderr']}")
        (RECORDED / f"{name}.out").write_text(body, encoding="utf-8")


def recorded_text(result: dict[str, object]) -> str:
    return f"rc: {result['rc']}\n--- stdout\n{result['stdout']}--- stderr\n{result['stderr']}"


if __name__ == "__main__":
    if "--dump" in sys.argv:
        json.dump(run_all(), sys.stdout)
    elif "--record" in sys.argv:
        record(FIXED_HOME)
    else:
        raise SystemExit("usage: python -m tests.cli_outputs --record")
