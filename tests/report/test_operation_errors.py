"""Issue 38/4: the report operations' failures reach the user as the one error an operation
raises (OperationError: its line and its exit status), the same way for the command line and
for the app."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.operations import reports as ops
from core.operations.errors import OperationError
from core.report.history import HistoryError
from core.report.model import ReportError
from core.report.writers import UnwritableError
from gui.widgets.results_view import plainly


@pytest.mark.parametrize(("error", "status"), [
    (ops.ReportRefError("no run #7 in the history"), 2),  # the user's input
    (ReportError("not a rocmate report"), 2),
    (HistoryError("the history is locked by another rocmate"), 1),
    (UnwritableError("cannot write /x.html: read-only"), 1),
])
def test_each_report_error_keeps_its_line_and_gets_its_status(error: Exception,
                                                              status: int) -> None:
    with pytest.raises(OperationError) as caught, ops.said_for_the_user():
        raise error
    assert str(caught.value) == str(error) and caught.value.status == status
    if not isinstance(error, OperationError):  # a ReportRefError already is one
        assert caught.value.__suppress_context__  # no traceback behind the line


def test_a_files_oserror_is_one_line_with_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "gone.json"
    with pytest.raises(OperationError) as caught, ops.said_for_the_user():
        missing.read_text()
    assert str(caught.value) == f"No such file or directory: {missing}"
    assert caught.value.status == 1


def test_the_apps_wrapper_says_the_same(tmp_path: Path) -> None:
    with pytest.raises(OperationError) as caught:
        plainly(ops.load_report, "#99", ops.HistoryAccess(tmp_path / "h.sqlite"))
    assert caught.value.status == 2 and "#99" in str(caught.value)


def test_other_errors_pass_through() -> None:
    with pytest.raises(KeyError), ops.said_for_the_user():
        raise KeyError("a bug stays a bug")
