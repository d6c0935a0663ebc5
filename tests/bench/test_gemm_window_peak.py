"""The gemm peak where the warm-up was forced too short for a burst (core.bench.worker.suites
.gemm.window_peak): the best 4 measured steps in a row, or all of them where no 4 in a row reach
the series' median (core.bench.worker.stats.best_window, commit 0c0b03a). Which one a real run
gets depends on its step times: on a loaded CPU the fast steps can sit at both ends of the
series, and then the peak is the whole series. The words in ``details.peak`` say how many steps
it is (they said 4 whatever the window was)."""

from __future__ import annotations

import statistics

from core.bench.worker.suites.gemm import BURST_STEPS, window_peak


def test_the_best_four_in_a_row() -> None:
    rates = [1.0, 2.0, 9.0, 8.0, 9.5, 9.0, 2.0, 1.0]
    inside, steps, words = window_peak(rates)
    assert inside == [9.0, 8.0, 9.5, 9.0] and steps == [2, 5]
    assert words == ("the best 4 measured steps in a row (the warm-up was too short for a "
                     "burst)")


def test_all_of_them_where_no_four_in_a_row_reach_the_median() -> None:
    # the fast steps at both ends (a busy CPU's steps can fall so): every 4 in a row hold at
    # most two of them, so each window's median is below the series' median of 9
    rates = [9.0, 9.0, 1.0, 1.0, 1.0, 9.0, 9.0]
    windows = [statistics.median(rates[i:i + BURST_STEPS])
               for i in range(len(rates) - BURST_STEPS + 1)]
    assert max(windows) < statistics.median(rates)
    inside, steps, words = window_peak(rates)
    assert inside == rates and steps == [0, 6]
    assert words.startswith("the best 7 measured steps in a row")
    assert statistics.median(inside) >= statistics.median(rates)
