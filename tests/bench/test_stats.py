"""Statistics of step series and the warm-up rule."""

from __future__ import annotations

import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.bench.worker.stats import SettleRule, best_window, cv, percentile, summarize

positive = st.floats(min_value=1e-6, max_value=1e6, allow_nan=False, allow_infinity=False)


def test_percentile_interpolates_like_numpy_linear() -> None:
    data = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert percentile(data, 0) == 1.0
    assert percentile(data, 100) == 5.0
    assert percentile(data, 50) == 3.0
    assert percentile(data, 10) == pytest.approx(1.4)
    assert percentile(data, 90) == pytest.approx(4.6)
    assert percentile([7.0], 10) == 7.0


def test_percentile_refuses_bad_input() -> None:
    with pytest.raises(ValueError):
        percentile([], 50)
    with pytest.raises(ValueError):
        percentile([1.0], 101)


def test_summary_of_a_known_series() -> None:
    s = summarize([0.10, 0.11, 0.09, 0.10, 0.30])
    assert s.n == 5
    assert s.median == pytest.approx(0.10)
    assert s.min == 0.09 and s.max == 0.30
    assert s.mean == pytest.approx(0.14)
    assert s.cv == pytest.approx(statistics.stdev([0.10, 0.11, 0.09, 0.10, 0.30]) / 0.14)
    assert summarize([2.0]).cv is None  # one value: the spread is unknown, not zero
    assert cv([]) is None


@given(st.lists(positive, min_size=1, max_size=200))
def test_summary_orders_its_figures(values: list[float]) -> None:
    s = summarize(values)
    assert s.min <= s.p10 <= s.median <= s.p90 <= s.max
    assert s.min <= s.mean * (1 + 1e-9) and s.mean <= s.max * (1 + 1e-9)
    assert (s.cv is None) == (len(values) == 1)
    assert s.cv is None or s.cv >= 0.0


@given(st.lists(positive, min_size=2, max_size=50), st.floats(min_value=0.01, max_value=100))
def test_cv_does_not_depend_on_scale(values: list[float], k: float) -> None:
    a, b = cv([v * k for v in values]), cv(values)
    assert a is not None and b is not None
    assert a == pytest.approx(b, rel=1e-6, abs=1e-12)


def test_settle_rule_ignores_the_compile_step_and_needs_a_full_window() -> None:
    rule = SettleRule(window=6, drift=0.03, max_cv=0.05, skip=1)
    assert not rule.settled([30.0, 1.0, 1.0, 1.0, 1.0, 1.0])  # 5 usable steps only
    assert rule.settled([30.0, 1.0, 1.01, 0.99, 1.0, 1.0, 1.0])


def test_settle_rule_waits_for_a_drift_to_end() -> None:
    rule = SettleRule(window=6, drift=0.03, max_cv=0.05, skip=0)
    falling = [1.10, 1.08, 1.06, 1.02, 1.00, 0.98]  # clocks still ramping / caches filling
    assert not rule.settled(falling)
    assert rule.settled([*falling, 0.98, 0.98, 0.98, 0.98, 0.98, 0.98])


def test_settle_rule_refuses_noise() -> None:
    rule = SettleRule(window=6, drift=0.5, max_cv=0.05, skip=0)
    assert not rule.settled([1.0, 1.3, 0.8, 1.2, 0.9, 1.1])


def test_best_window_is_the_first_burst_before_the_clocks_drop() -> None:
    # an H200-like bf16 series: ~775 for a while, then the power limit brings it to ~660
    rates = [770.0, 776.0, 781.0, 774.0, 779.0, 772.0, 700.0, 662.0, 659.0, 661.0, 660.0, 658.0]
    start, stop = best_window(rates, 5)
    assert (start, stop) == (0, 5)  # the first of two windows with the same median
    assert statistics.median(rates[start:stop]) == 776.0


def test_best_window_is_not_made_by_one_lucky_step() -> None:
    rates = [100.0, 100.0, 250.0, 100.0, 101.0, 100.0, 99.0]
    start, stop = best_window(rates, 5)
    assert statistics.median(rates[start:stop]) == 100.0


def test_best_window_of_a_short_series_is_all_of_it() -> None:
    assert best_window([3.0, 1.0, 2.0], 5) == (0, 3)
    assert best_window([], 5) == (0, 0)


def test_best_window_never_falls_below_the_series_median() -> None:
    # the high steps sit at both ends: no 5 in a row hold three of them
    rates = [9.0, 9.0, 1.0, 1.0, 1.0, 1.0, 9.0, 9.0]
    assert best_window(rates, 5) == (0, 8)


@given(st.lists(positive, min_size=1, max_size=40))
def test_best_window_median_is_at_least_the_median(values: list[float]) -> None:
    start, stop = best_window(values, 5)
    assert stop - start == min(len(values), 5) or (start, stop) == (0, len(values))
    assert statistics.median(values[start:stop]) >= statistics.median(values)
