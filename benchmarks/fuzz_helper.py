"""Coverage-guided fuzzing (atheris, libFuzzer) of the root helper's input checks for a fixed
budget: ``check_input`` (core/install/helper/validate.py), the entry that decodes the JSON,
selects the plan's steps and checks each one, with its answer as ``--check`` prints it.

    .venv/bin/python benchmarks/fuzz_helper.py [--seconds 60 | --runs N] [--out DIR]

The seeds are the real plans: every root block the planner makes for the replayed machines, as
the runner sends it (tests/faults/test_hostile_plans.py's ``real_plans``: the synthetic test key,
the test account), each as a plan object and as a bare list of steps, plus a dictionary of the
plan's keys, verbs, paths and hostile pieces (shell metacharacters, '..', escapes) that libFuzzer
splices in. Each input is checked twice against a small fake system (no root needed, nothing is
run or written):

* as raw bytes: the helper's stdin;
* structured: the input picks a seed plan, one of its steps and one of its string fields, and
  the rest of it becomes that field's new value (so most inputs get past the JSON decoder and
  reach the per-field checks).

A crash is anything but the validator's own answer: an exception escaping ``check_input`` (its
refusals are returned, never raised), or an answer that breaks the contract (``ok`` with a
refusal, a refusal without a reason, an answer ``--check`` could not print as JSON). Crashes are
counted (fuzzing goes on), their inputs saved under ``--out``/crashes, and the script exits 1.

It prints: executions, seconds, executions per second, crashes, the corpus size and libFuzzer's
coverage figure. The fuzzing runs in a child process (libFuzzer ends its process when the
budget is spent); the parent reads the figures from it.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DICTIONARY = [
    *(f'"{k}"' for k in ("schema", "steps", "id", "privileged", "title", "explain", "kind",
                         "after", "argv", "file", "key_fingerprint", "consent", "path",
                         "content", "content_b64", "mode", "append", "source_url")),
    '"rocmate.plan/1"', "true", "false", "null", "[", "]", "{", "}", ":", ",",
    '"apt-get"', '"install"', '"purge"', '"update"', '"-y"', '"--no-install-recommends"',
    '"usermod"', '"-aG"', '"render,video"', '"tester"', '"amdgpu-install"', '"--usecase=wsl"',
    "/etc/apt/keyrings/rocm.gpg", "/etc/apt/sources.list.d/rocm.list",
    "/etc/apt/preferences.d/rocm-pin-600", "https://repo.radeon.com/", "deb [arch=amd64",
    "signed-by=", "Types: deb", "URIs: ", ";", "$(", "`", "|", "&&", "..", "/../", "\\u0000",
    "\\n", "\\u202e", "\\ud800", "-o", "--allow-unauthenticated", "NaN", "1e999",
]


@dataclasses.dataclass
class Figures:
    """What one fuzzing run found."""

    executions: int
    seconds: float
    coverage: int | None
    corpus: int
    crashes: list[str]

    @property
    def per_second(self) -> float:
        return self.executions / self.seconds if self.seconds else 0.0


# --------------------------------------------------------------------------------------------
# the worker (the child process that runs libFuzzer)


def worker(out: Path, libfuzzer_args: list[str]) -> None:
    """Fuzz until libFuzzer's budget is spent (libFuzzer then ends the process)."""
    import atheris

    with atheris.instrument_imports(include=["core.install.helper"]):
        from core.install.helper import main as helper_main
        from core.install.helper.target import Policy, Target
        from core.install.helper.validate import CheckedPlan, check_input
    from core.knowledge.loader import load_knowledge
    from tests.faults.test_hostile_plans import SCHEMA, _fields, _with, real_plans
    from tests.install.support import TRUSTED_FPR, add_fixtures, write_accounts
    from tests.install.test_helper_hostile import add_system_files

    scratch = Path(tempfile.mkdtemp(prefix="fuzz-helper-"))
    fake = scratch / "root"
    write_accounts(fake)
    add_fixtures(fake)
    add_system_files(fake)
    target = Target(str(fake))
    shipped = Policy.from_knowledge(load_knowledge())
    policy = dataclasses.replace(
        shipped, trusted_fingerprints=shipped.trusted_fingerprints | {TRUSTED_FPR})
    plans = list(real_plans(scratch / "runner").values())
    fields = [[list(_fields(step)) for step in steps] for steps in plans]
    crashes = out / "crashes"
    crashes.mkdir(parents=True, exist_ok=True)

    def judge(raw: bytes, how: str) -> None:
        try:
            result = check_input(raw, target, policy)
            problem = None
            if not isinstance(result, CheckedPlan):
                problem = f"check_input answered {type(result).__name__}"
            elif result.ok == bool(result.refused) or (result.actions and result.refused):
                problem = "an answer both accepted and refused"
            elif any(not (isinstance(r.reason, str) and r.reason) for r in result.refused):
                problem = "a refusal without a reason"
            else:
                json.dumps(helper_main._check_answer(result))
        except Exception:
            problem = traceback.format_exc()
        if problem is not None:
            name = hashlib.sha256(raw).hexdigest()[:16]
            (crashes / f"{how}-{name}.json").write_bytes(raw)
            with open(out / "crashes.log", "a", encoding="utf-8") as log:
                log.write(f"--- {how}-{name}\n{problem.rstrip()}\n")

    def one_input(data: bytes) -> None:
        judge(data, "raw")
        fdp = atheris.FuzzedDataProvider(data)
        number = fdp.ConsumeIntInRange(0, len(plans) - 1)
        steps = plans[number]
        index = fdp.ConsumeIntInRange(0, len(steps) - 1)
        step_fields = fields[number][index]
        field = step_fields[fdp.ConsumeIntInRange(0, len(step_fields) - 1)]
        value = fdp.ConsumeUnicodeNoSurrogates(fdp.remaining_bytes())
        mutated = [*steps[:index], _with(steps[index], field, value), *steps[index + 1:]]
        judge(json.dumps({"schema": SCHEMA, "steps": mutated}).encode(), "field")

    corpus = out / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    for number, steps in enumerate(plans):
        (corpus / f"seed-plan-{number}.json").write_text(
            json.dumps({"schema": SCHEMA, "steps": steps}))
        (corpus / f"seed-list-{number}.json").write_text(json.dumps(steps))
    dictionary = out / "plan.dict"
    dictionary.write_text("".join(f"{json.dumps(token)}\n" for token in DICTIONARY))
    atheris.Setup([sys.argv[0], f"-dict={dictionary}", "-max_len=65536", *libfuzzer_args,
                   str(corpus)], one_input)
    atheris.Fuzz()


# --------------------------------------------------------------------------------------------
# the parent


DONE_RE = re.compile(r"Done (\d+) (?:runs )?in (\d+) second")
COV_RE = re.compile(r"(?m)^#\d+\s+\S+\s+cov: (\d+)")


def fuzz(seconds: int | None, runs: int | None, out: Path) -> tuple[Figures, str]:
    """Run the worker for the budget; its figures and libFuzzer's output."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "crashes.log").unlink(missing_ok=True)
    budget = [f"-max_total_time={seconds}"] if seconds else []
    budget += [f"-atheris_runs={runs}"] if runs else []
    argv = [sys.executable, __file__, "--worker", "--out", str(out), "--", *budget,
            f"-artifact_prefix={out}/", "-print_final_stats=1"]
    started = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    elapsed = time.monotonic() - started
    output = done.stdout + done.stderr
    match = DONE_RE.search(output)
    covs = COV_RE.findall(output)
    executions = int(match[1]) if match else 0
    crash_log = out / "crashes.log"
    crashes = crash_log.read_text().split("--- ")[1:] if crash_log.exists() else []
    if done.returncode != 0 and not crashes:
        crashes = [f"the fuzzing process ended with {done.returncode}:\n{output[-3000:]}"]
    corpus = len(list((out / "corpus").iterdir())) if (out / "corpus").is_dir() else 0
    figures = Figures(executions=executions, seconds=float(match[2]) if match else elapsed,
                      coverage=int(covs[-1]) if covs else None, corpus=corpus, crashes=crashes)
    return figures, output


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=60, help="time budget (default 60)")
    parser.add_argument("--runs", type=int, help="a number of inputs instead of a time budget")
    parser.add_argument("--out", type=Path, default=ROOT / "build/fuzz-helper",
                        help="corpus, dictionary and crashes (default build/fuzz-helper)")
    parser.add_argument("--verbose", action="store_true", help="print libFuzzer's output")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args(argv)
    if args.worker:
        worker(args.out, [a for a in rest if a != "--"])
        return 0
    try:
        import atheris  # noqa: F401
    except ImportError:
        print("atheris is not installed: .venv/bin/pip install atheris", file=sys.stderr)
        return 2
    figures, output = fuzz(None if args.runs else args.seconds, args.runs, args.out)
    if args.verbose:
        print(output)
    print(f"executions:     {figures.executions}")
    print(f"seconds:        {figures.seconds:.0f}")
    print(f"executions/s:   {figures.per_second:.0f}")
    print(f"coverage:       {figures.coverage if figures.coverage is not None else '?'}")
    print(f"corpus:         {figures.corpus} inputs")
    distinct = {crash.rstrip().rsplit("\n", 1)[-1] for crash in figures.crashes}
    print(f"crashes:        {len(figures.crashes)} ({len(distinct)} distinct)")
    for crash in figures.crashes[:5]:
        print(f"--- {crash.rstrip()}")
    if figures.executions == 0 and not figures.crashes:
        print("no executions: libFuzzer did not run (--verbose shows why)", file=sys.stderr)
        return 2
    return 1 if figures.crashes else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
