"""A failed run's message and advice as a person reads them.

The worker and the runner write them in English into the run (the protocol and the report keep
English: a contract). Shown to a person, rocmate makes them again in the current language where
it can tell which of its own texts they were: it makes each candidate in English from what the
run records (suite, device, batch) and, where one equals what was written, gives that one in the
current language. Anything else (a message PyTorch printed, advice from another version of
rocmate) is shown as it was written. :func:`reworded` gives a report whose errors read so, for
rendering to people (never for a file a program reads).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import replace

from core.bench import runner
from core.bench.failures import failure_patterns
from core.bench.recover import stopped_error
from core.bench.worker import errors
from core.i18n import language, t
from core.report.model import ErrorInfo, Report, SuiteRun

Make = Callable[[errors.Translate], str]


def reworded(report: Report) -> Report:
    """``report`` with each failed run's message and advice in the current language (the
    report itself unchanged; in English, ``report`` as it is)."""
    if language() == "en" or not any(run.error for run in report.runs):
        return report
    runs = [replace(run, error=replace(run.error, message=message_text(run),
                                       advice=advice_text(run))) if run.error else run
            for run in report.runs]
    return replace(report, runs=runs)


def advice_text(run: SuiteRun) -> str:
    """The run's advice in the current language ("" without an error)."""
    err = run.error
    if err is None:
        return ""
    return _again(err.advice, _advice(run, err))


def message_text(run: SuiteRun) -> str:
    """The run's error message in the current language ("" without an error)."""
    err = run.error
    if err is None:
        return ""
    return _again(err.message, _messages(run, err))


def _again(written: str, candidates: Iterator[Make]) -> str:
    if language() == "en":
        return written
    for make in candidates:
        if make(errors.english) == written:
            return make(t)
    return written


def _context(run: SuiteRun) -> errors.Context:
    device = run.device
    batch = run.settings.get("batch_size")
    return errors.Context(suite=run.suite, backend=device.backend if device else None,
                          arch=device.arch if device else None,
                          batch_size=batch if isinstance(batch, int) else None)


def _advice(run: SuiteRun, err: ErrorInfo) -> Iterator[Make]:
    ctx = _context(run)
    patterns = failure_patterns()
    texts = ("", err.detail, err.message, f"{err.message}\n{err.detail}")
    kinds = dict.fromkeys((err.kind, "other"))
    own = [functools.partial(_kind_advice, k, ctx, x, patterns) for k in kinds for x in texts]
    yield from own
    for make in own:
        yield functools.partial(_killed, make)
    yield from _missing_package(err.advice, ctx)
    yield runner.hung_advice
    yield runner.rank_advice
    yield runner.run_file_advice
    yield runner.start_advice
    yield _interrupted_before_results
    stopped = re.search(r"in its run file, (.+)\.$", err.advice)
    if err.kind == "interrupted" and stopped:
        yield lambda tr: str(_stopped(run, stopped[1], tr)["advice"])


def _missing_package(advice: str, ctx: errors.Context) -> Iterator[Make]:
    """The missing-package advice, its package and Python read back from what it says."""
    plain = re.match(r"The target Python lacks (\S+)\. Install (?:it|the ROCm build) into that "
                     r"environment: (.+?) -m pip install ", advice)
    system = re.match(r"The target Python \((.+?)\) lacks (\S+), and it is the system's own",
                      advice)
    if plain:
        package, python, managed = plain[1], plain[2], False
    elif system:
        python, package, managed = system[1], system[2], True
    else:
        return
    said = replace(ctx, python=python, externally_managed=managed)
    yield functools.partial(_package_advice, package, said)


def _interrupted_before_results(t: errors.Translate) -> str:
    """What the worker advised on an interrupt before an interrupted run kept a result of its
    measured steps (issue 30/1): the reports written then still hold it."""
    return t("bench.advice.interrupted.until-2026-12", "The run was stopped before it "
             "finished; nothing after the stop was measured.")


def _package_advice(package: str, ctx: errors.Context, tr: errors.Translate) -> str:
    return errors.advice_for("missing-package", ctx, package=package, t=tr)


def _kind_advice(kind: str, ctx: errors.Context, text: str, patterns: errors.Patterns,
                 tr: errors.Translate) -> str:
    return errors.advice_for(kind, ctx, text=text, t=tr, patterns=patterns)


def _killed(make: Make, tr: errors.Translate) -> str:
    return runner.killed_advice(make(tr), tr)


def _messages(run: SuiteRun, err: ErrorInfo) -> Iterator[Make]:
    if err.kind == "interrupted":
        yield lambda tr: str(_stopped(run, "x", tr)["message"])
    # the runner's own messages (core/bench/runner.py writes them in English)
    yield lambda t: t("bench.message.cancelled", "the run was cancelled")
    said = err.message
    if found := re.fullmatch(r"the worker was killed by (\S+)", said):
        signal = found[1]
        yield lambda t: t("bench.message.killed", "the worker was killed by {signal}",
                            signal=signal)
    if found := re.fullmatch(r"the worker exited with code (-?\d+)( before it said hello)?",
                             said):
        code = found[1]
        yield lambda t: t("bench.message.exited", "the worker exited with code {code}",
                            code=code)
        yield lambda t: t("bench.message.exited-early", "the worker exited with code {code} "
                            "before it said hello", code=code)


def _stopped(run: SuiteRun, file: str, tr: errors.Translate) -> dict[str, object]:
    from pathlib import Path

    return stopped_error(len(run.steps), Path(file), tr)
