"""The fault tests' plugin: every test of tests/faults/ gets the session's ledger
(tests/faults/ledger.py) and its outcome decides what survived; the counts are written at the
end of the session for ``make faults`` (tests/faults/table.py prints them)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.faults.ledger import LEDGER, Ledger


@pytest.fixture
def ledger() -> Ledger:
    return LEDGER


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    LEDGER.start_test()
    item.stash[_PASSED] = True
    yield
    LEDGER.end_test(item.stash[_PASSED])


_PASSED = pytest.StashKey[bool]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.failed or (report.when == "call" and report.skipped):
        item.stash[_PASSED] = False


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    LEDGER.write()
