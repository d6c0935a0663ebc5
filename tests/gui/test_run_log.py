"""The Run set-up page's log under a flood: a tick adds at most LINES_PER_TICK lines to the view
(the GUI thread stays free), the end of a run shows everything that is left, and a flood beyond
what the view keeps shows the newest lines."""

from __future__ import annotations

from typing import Any

from gui.pages.base import PageId
from gui.pages.run_setup import LINES_PER_TICK, LOG_LINES, RunSetupPage
from tests.gui.support import open_wizard


def _page(qtbot: Any) -> RunSetupPage:
    page = open_wizard(qtbot, "rx6600-ubuntu2404-fresh").pages[PageId.RUN_SETUP]
    assert isinstance(page, RunSetupPage)
    return page


def _lines(page: RunSetupPage) -> list[str]:
    return page.log.toPlainText().splitlines()


def test_a_tick_adds_a_bounded_number_of_lines_and_the_end_adds_the_rest(qtbot: Any) -> None:
    page = _page(qtbot)
    page.events.extend({"event": "output", "line": f"line {i}"} for i in range(1000))
    page.drain()
    assert _lines(page) == [f"line {i}" for i in range(LINES_PER_TICK)]
    page.drain(everything=True)
    assert _lines(page) == [f"line {i}" for i in range(1000)]


def test_a_flood_beyond_the_view_shows_the_newest_lines(qtbot: Any) -> None:
    page = _page(qtbot)
    total = LOG_LINES * 3
    page.events.extend({"event": "output", "line": f"line {i}"} for i in range(total))
    page.drain()
    page.drain(everything=True)
    shown = _lines(page)
    assert len(shown) == LOG_LINES and shown[-1] == f"line {total - 1}"
    assert shown == [f"line {i}" for i in range(total - LOG_LINES, total)]
