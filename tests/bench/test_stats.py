"""Statistics of step series and the warm-up rule."""

from __future__ import annotations

import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.bench.worker.stats import SettleRule, cv, percentile, summarize

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
