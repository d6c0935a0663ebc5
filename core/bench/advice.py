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
    if plain and package.startswith("torch"):  # the words of reports written until 2026-12
        command = f"{python} -m pip install {package}"

        def until_2026_12(t: errors.Translate) -> str:
            return t("bench.advice.missing-package.torch.until-2026-12",
                     "The target Python lacks {package}. Install it into that environment: "
                     "{command} (from the ROCm wheel index), or pick another Python with "
                     "--python.", package=package, command=command)

        yield until_2026_12


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
    if found := re.fullmatch(r"No module named '([\w.]+)' in the target Python", said):
        module = found[1]
        yield lambda t: t("bench.message.no-module", "No module named {module} in the target "
                          "Python", module=repr(module))
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


# -- the advice in the desktop app ------------------------------------------------------------


def app_advice_text(run: SuiteRun) -> str:
    """The run's advice as the desktop app shows it: in the current language, and where the
    command line's words name one of its options (``--python``, ``--batch-size``, ``--device``
    ...), in the app's own words: the setting or the page that does the same. Advice rocmate
    cannot tell as its own (PyTorch's, another version's) is shown as it was written."""
    err = run.error
    if err is None:
        return ""
    for make in _advice(run, err):
        if make(errors.english) == err.advice:
            return make(_in_the_app)
    return err.advice


_current: errors.Translate = t
"""core.i18n.t under another name: called with a text made elsewhere (the catalogue takes the
literal texts of each ``t(...)`` call, and this one has none of its own)."""


def _in_the_app(key: str, english: str, /, **values: object) -> str:
    """A translator (errors.Translate) that gives the app's wording of a text where it has one,
    else the text itself in the current language."""
    app = _app_words(key, values)
    return app if app is not None else _current(key, english, **values)


def _app_words(key: str, values: dict[str, object]) -> str | None:
    """The app's wording of one of the advice texts that name a command-line option (None: the
    text names none, and is shown as it is)."""
    if key in ("bench.advice.oom.batch", "bench.advice.oom.llm.batch"):
        return t("bench.advice.app.oom.batch",
                 "Out of GPU memory: try a smaller batch (a batch size of {batch} in the "
                 "settings), set {variable}=expandable_segments:True to reduce fragmentation, and "
                 "close other programs that use the GPU (a desktop, a browser, games).",
                 batch=str(values.get("option", "")).rsplit(" ", 1)[-1],
                 variable=values.get("variable"))
    if key in ("bench.advice.oom", "bench.advice.oom.llm"):
        return t("bench.advice.app.oom",
                 "Out of GPU memory: choose a smaller batch size in the settings, set "
                 "{variable}=expandable_segments:True to reduce fragmentation, and close other "
                 "programs that use the GPU (a desktop, a browser, games).",
                 variable=values.get("variable"))
    return _app_words_setup(key, values)


def _app_words_setup(key: str, values: dict[str, object]) -> str | None:
    """:func:`_app_words` for the advice about the Python, the device and the run itself."""
    if key == "bench.advice.oom.cpu":
        return t("bench.advice.app.oom.cpu",
                 "The worker ran out of memory. Choose a smaller batch size or tiny shapes in the "
                 "settings, or close other programs.")
    if key == "bench.advice.no-gpu":
        return t("bench.advice.app.no-gpu",
                 "PyTorch in the target environment sees no GPU. The System check says why and "
                 "how to fix it. For a smoke run without a GPU, choose the CPU as the device in "
                 "the settings.")
    if key == "bench.advice.missing-package":
        return t("bench.advice.app.missing-package",
                 "The target Python lacks {package}. Install it into that environment: "
                 "{command}, or check another Python on the System check page.",
                 package=values.get("package"), command=values.get("command"))
    if key in ("bench.advice.missing-package.torch.index",
               "bench.advice.missing-package.torch.until-2026-12"):
        return t("bench.advice.app.missing-package.torch",
                 "The target Python lacks {package}. Let the set-up make an environment with the "
                 "ROCm build of PyTorch for this card (Next on the System check), or check "
                 "another Python on the System check page.", package=values.get("package"))
    if key == "bench.advice.missing-package.system-python":
        return t("bench.advice.app.missing-package.system-python",
                 "The target Python ({python}) lacks {package}, and it is the system's own "
                 "Python, which pip may not change (externally managed, PEP 668). Let the set-up "
                 "make a virtual environment with PyTorch, or make one yourself ({command}) and "
                 "check that Python on the System check page.", python=values.get("python"),
                 package=values.get("package"), command=values.get("command"))
    if key == "bench.advice.broken-package":
        return t("bench.advice.app.broken-package",
                 "Reinstall {package} in the target Python ({command}, from the same index), or "
                 "check another Python on the System check page.",
                 package=values.get("package"), command=values.get("command"))
    return _app_words_runner(key, values)


def _app_words_runner(key: str, values: dict[str, object]) -> str | None:
    """:func:`_app_words` for the runner's own advice (core/bench/runner.py)."""
    if key == "bench.advice.cannot-start":
        return t("bench.advice.app.cannot-start",
                 "Check the Python that holds the ROCm PyTorch on the System check page (for "
                 "example ~/.local/share/rocmate/venv/bin/python), then run the benchmark again.")
    if key == "bench.advice.run-file":
        return t("bench.advice.app.run-file",
                 "Free space on the disk that holds rocmate's data folder, or make the folder "
                 "writable, then run the benchmark again.")
    if key == "bench.advice.rank":
        return t("bench.advice.app.rank",
                 "In a data-parallel run every rank waits for the others at each step, so one "
                 "rank that ends or stops answering stops them all. Its own words are in the "
                 "run's log. Choose fewer GPUs in the settings, or one card at a time "
                 "(HIP_VISIBLE_DEVICES), and set NCCL_DEBUG=INFO to see what RCCL says.")
    if key == "bench.advice.killed":
        return t("bench.advice.app.killed",
                 "The worker was killed (SIGKILL). If nobody stopped it, the kernel's "
                 "out-of-memory killer may have (see `journalctl -k | grep -i oom`): choose a "
                 "smaller batch size in the settings. {advice}", advice=values.get("advice"))
    return None
