"""The words for a run cut short: a result made of the steps measured before the stop
(``result.interrupted``, core.bench.partial), or too few steps for one. One place for the
terminal, Markdown, HTML, the history list and the app."""

from __future__ import annotations

from core.i18n import t
from core.report.model import SuiteRun
from core.report.steadiness import MIN_RESULT_STEPS


def interrupted_words(measured: int, planned: int | None) -> str:
    """``interrupted after 1,234 of 100,000 steps`` (``... after 1,234 steps`` when the
    measured phase was timed)."""
    if planned:
        return t("report.interrupted.after-of", "interrupted after {measured} of {planned} steps",
                 measured=f"{measured:,}", planned=f"{planned:,}")
    if measured == 1:
        return t("report.interrupted.after-one", "interrupted after 1 step")
    return t("report.interrupted.after", "interrupted after {measured} steps",
             measured=f"{measured:,}")


def measured_steps(run: SuiteRun) -> int:
    """The measured steps of the run's first part (the one a result's headline describes)."""
    measured = [s for s in run.steps if s.phase == "measure"]
    return sum(1 for s in measured if s.part == measured[0].part) if measured else 0


def interruption_text(run: SuiteRun) -> str | None:
    """What a reader must know of a run cut short: its result is made of the steps measured
    before the stop, or it measured too few for one. None for any other run."""
    r = run.result
    if r is not None and r.interrupted is not None:
        return t("report.interrupted.result",
                 "{interrupted}: the figures are made of the steps measured before the stop, "
                 "as a full run's are", interrupted=interrupted_words(
                     r.interrupted.measured_steps, r.interrupted.planned_steps))
    stopped = run.status in ("cancelled", "interrupted") or (
        run.error is not None and run.error.kind == "interrupted")
    steps = measured_steps(run)
    if r is None and stopped and 0 < steps < MIN_RESULT_STEPS:
        return t("report.interrupted.too-few",
                 "{interrupted}: too few for a result (it takes {least} measured steps)",
                 interrupted=interrupted_words(steps, None), least=MIN_RESULT_STEPS)
    return None
