"""The JSON-lines protocol helpers."""

from __future__ import annotations

import io
import json
import math

import pytest

from core.bench.worker.protocol import ERROR_KINDS, EVENTS, Emitter, decode, encode, json_safe


def test_encode_is_one_line_of_strict_json() -> None:
    line = encode({"event": "step", "seconds": 0.5, "loss": math.nan, "x": [math.inf, 1]})
    assert "\n" not in line
    data = json.loads(line)
    assert data == {"event": "step", "seconds": 0.5, "loss": None, "x": [None, 1]}


def test_encode_refuses_unknown_events() -> None:
    with pytest.raises(ValueError):
        encode({"event": "progress"})
    with pytest.raises(ValueError):
        encode({"no": "event"})


@pytest.mark.parametrize("line", ["", "   ", "hello", "[1,2]", '{"event": "chatter"}',
                                  '{"event": "hello"', "{not json}"])
def test_decode_ignores_what_is_not_an_event(line: str) -> None:
    assert decode(line) is None


def test_decode_reads_bytes_and_text() -> None:
    assert decode(b'{"event":"phase","phase":"done"}\n') == {"event": "phase", "phase": "done"}
    assert decode('  {"event":"hello"}  ') == {"event": "hello"}


def test_emitter_flushes_each_event_and_remembers_errors() -> None:
    buf = io.StringIO()
    em = Emitter(buf)
    em.emit("hello", x=1)
    assert buf.getvalue().endswith("\n")
    assert not em.error_sent
    em.emit("error", kind="oom", message="m", advice="a", detail="")
    assert em.error_sent and em.count == 2
    assert [json.loads(x)["event"] for x in buf.getvalue().splitlines()] == ["hello", "error"]


def test_the_contract_lists() -> None:
    assert EVENTS == ("hello", "phase", "step", "result", "error")
    assert set(ERROR_KINDS) == {"oom", "no-gpu", "no-binary-for-gpu", "missing-package",
                                "interrupted", "other"}
    assert json_safe({"a": (1.0, math.nan)}) == {"a": [1.0, None]}
