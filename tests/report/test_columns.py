"""The column-at-a-time look and build (core.report.columns) against a plain value-by-value
walk: the same verdict, key count and strings for real reports and for JSON of any shape."""

from __future__ import annotations

import gc
import json
import math
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.report import model
from core.report.columns import Look, build, look, looks_kept
from core.report.model import MAX_DEPTH, MAX_NUMBER, ReportError, Step, from_json, parse_json
from core.report.pause import collector_paused

REPORTS = sorted(Path(__file__).parents[1].joinpath("fixtures/reports").rglob("*.json"))


def reference(data: Any, max_depth: int = MAX_DEPTH, max_number: float = MAX_NUMBER) -> Look:
    """What look() must find, one value at a time."""
    found = Look()

    def visit(node: Any, key: str, packages: bool, depth: int) -> None:
        kind = type(node)
        if kind not in (dict, list, str, int, float, bool, type(None)):
            found.fine = False  # a subclass: seen through, but not fine
        if isinstance(node, (dict, list, tuple)) and depth >= max_depth:
            found.fine = False
            return
        if isinstance(node, dict):
            found.keys += len(node)
            for k, v in node.items():
                found.names.add(k)
                visit(v, k, packages or key == "packages", depth + 1)
        elif isinstance(node, (list, tuple)):
            for v in node:
                visit(v, key, packages or key == "packages", depth + 1)
        elif isinstance(node, str):
            found.texts.add((str(node), key, packages))
        elif kind in (int, float) and not -max_number <= node <= max_number:
            found.fine = False

    visit(data, "", False, 0)
    return found


def same(a: Look, b: Look) -> None:
    assert (a.fine, a.keys, a.names, a.texts) == (b.fine, b.keys, b.names, b.texts)


@pytest.mark.parametrize("path", REPORTS, ids=[p.name for p in REPORTS])
def test_real_reports_look_the_same_either_way(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    same(look(data, max_depth=MAX_DEPTH, max_number=MAX_NUMBER), reference(data))


def _steps(n: int) -> list[dict[str, Any]]:
    return [{"phase": "warmup" if i < 3 else "measure", "index": i, "seconds": 0.1 + i / 1e3,
             "items": 8, "t": float(i), "part": None, "figures": {}} for i in range(n)]


@pytest.mark.parametrize(("where", "value"), [
    (500, math.nan), (999, math.inf), (0, -math.inf), (10, 1e16), (10, -1e16), (3, 10**16),
])
def test_one_bad_number_in_a_thousand_steps_is_found(where: int, value: float) -> None:
    steps = _steps(1000)
    steps[where]["seconds"] = value
    assert not look(steps, max_depth=MAX_DEPTH, max_number=MAX_NUMBER).fine
    assert not reference(steps).fine


def test_mixed_shapes_lists_in_lists_packages_and_subclasses() -> None:
    class Text(str):
        pass

    class Obj(dict):
        pass

    data = {"runs": [{"steps": [*_steps(5), {"phase": "x", "index": 1, "extra": [[1, "in"]]},
                                {"index": 2}, [1, 2, {"k": "v"}], "loose", None, True]},
                     {"packages": {"torch": "2.14.1", "list": ["a", {"b": "c"}]}},
                     {"packages": "not an object", "deep": [[[["d"]]]]}],
            "sub": Obj(a=Text("who"))}
    same(look(data, max_depth=MAX_DEPTH, max_number=MAX_NUMBER), reference(data))
    assert not look(data, max_depth=MAX_DEPTH, max_number=MAX_NUMBER).fine  # the subclasses
    plain = json.loads(json.dumps(data))
    found = look(plain, max_depth=MAX_DEPTH, max_number=MAX_NUMBER)
    same(found, reference(plain))
    assert found.fine
    assert ("c", "b", True) in found.texts and ("a", "list", True) in found.texts
    assert ("not an object", "packages", False) in found.texts


@pytest.mark.parametrize("depth", [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1])
def test_depth_is_counted_as_the_validator_counts_it(depth: int) -> None:
    node: Any = 1
    for i in range(depth):
        node = [node] if i % 2 else {"k": node}
    same(look(node, max_depth=MAX_DEPTH, max_number=MAX_NUMBER), reference(node))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**17, 10**17)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=5)
    | st.dictionaries(st.sampled_from(["a", "b", "packages", "user", "t"]), inner, max_size=4),
    max_leaves=40)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_json_looks_the_same_either_way(data: Any) -> None:
    same(look(data, max_depth=6, max_number=MAX_NUMBER), reference(data, max_depth=6))


def test_looks_are_kept_inside_only_and_per_thread() -> None:
    data = {"steps": _steps(10)}
    first = look(data, max_depth=MAX_DEPTH, max_number=MAX_NUMBER)
    assert look(data, max_depth=MAX_DEPTH, max_number=MAX_NUMBER) is not first
    with looks_kept():
        kept = look(data, max_depth=MAX_DEPTH, max_number=MAX_NUMBER)
        assert look(data, max_depth=MAX_DEPTH, max_number=MAX_NUMBER) is kept
        assert look(data, max_depth=3, max_number=MAX_NUMBER) is not kept  # other limits
        other: list[Look] = []
        worker = threading.Thread(target=lambda: other.append(
            look(data, max_depth=MAX_DEPTH, max_number=MAX_NUMBER)))
        worker.start()
        worker.join()
        assert other[0] is not kept
    assert look(data, max_depth=MAX_DEPTH, max_number=MAX_NUMBER) is not kept


def test_build_equals_the_item_by_item_reader() -> None:
    steps = _steps(50)
    steps[7]["figures"] = {"loss": 2, "acc": 0.5}
    steps[8]["t"] = 3  # an int where floats are usual
    quick = build(steps, model._STEP_FIELDS, Step)
    slow = [model._step(model._R(s, "s")) for s in steps]
    assert quick == slow
    assert all(type(s.seconds) is float and (s.t is None or type(s.t) is float) for s in quick)
    assert type(quick[7].figures["loss"]) is float
    assert quick[0].figures is not steps[0]["figures"]  # a new dict, not the parsed one


@pytest.mark.parametrize("change", [
    lambda s: s[4].update(index=4.0), lambda s: s[4].update(phase=None),
    lambda s: s[4].pop("t"), lambda s: s[4].update(figures={"a": "x"}),
    lambda s: s[4].update(figures=[1]), lambda s: s.append("step"),
    lambda s: s[4].update(extra=1), lambda s: s[4].update(index=True),
])
def test_build_leaves_anything_unusual_to_the_reader(change: Any) -> None:
    steps = _steps(10)
    change(steps)
    assert build(steps, model._STEP_FIELDS, Step) is None


def test_unknown_keys_of_a_later_writer_are_passed_over() -> None:
    steps = [dict(s, later=1) for s in _steps(5)]
    assert build(steps, model._STEP_FIELDS, Step) == build(_steps(5), model._STEP_FIELDS, Step)


# --- the quick parse ----------------------------------------------------------------------------

REPORT = REPORTS[0].read_text(encoding="utf-8")


def _with_steps(steps: list[dict[str, Any]], text: str = REPORT) -> str:
    data = json.loads(text)
    data["runs"][0]["steps"] = steps
    return json.dumps(data)


@pytest.mark.parametrize("escaped", [False, True])
def test_a_duplicate_key_deep_in_a_long_list_is_refused(escaped: bool) -> None:
    text = _with_steps(_steps(2000))
    if escaped:  # a string with an escaped quote: the quick parse cannot count keys
        text = text.replace('"phase": "warmup"', '"phase": "warm\\"up"', 1)
    at = text.index('"index": 1500')
    bad = text[:at] + '"items": 1, ' + text[at:]
    with pytest.raises(ReportError, match="the key 'items' appears twice in one object"):
        parse_json(bad)
    spaced = text[:at] + '"items" : 1, ' + text[at:]
    with pytest.raises(ReportError, match="appears twice"):
        parse_json(spaced)


def test_strings_that_look_like_keys_do_not_hide_or_invent_duplicates() -> None:
    steps = _steps(20)
    steps[3]["part"] = '":'
    steps[4]["part"] = ":"
    steps[5]["part"] = 'a": "b'
    report = from_json(_with_steps(steps))
    assert [s.part for s in report.runs[0].steps[3:6]] == ['":', ":", 'a": "b']


@pytest.mark.parametrize("value", ['":"', '": "', '":x'])
def test_a_string_opening_with_a_colon_does_not_hide_a_duplicate(value: str) -> None:
    steps = _steps(20)
    steps[3]["part"] = value
    text = _with_steps(steps)
    at = text.index('"index": 15')
    with pytest.raises(ReportError, match="the key 'items' appears twice"):
        parse_json(text[:at] + '"items": 1, ' + text[at:])


def test_a_spaced_key_does_not_hide_a_duplicate() -> None:
    text = _with_steps(_steps(20)).replace('"index": 2,', '"index" : 2,', 1)
    at = text.index('"index": 15')
    with pytest.raises(ReportError, match="the key 'items' appears twice"):
        parse_json(text[:at] + '"items": 1, ' + text[at:])


def test_the_quick_parse_refuses_what_the_strict_one_refuses() -> None:
    for text, message in [
        (_with_steps(_steps(100)).replace('"seconds": 0.15', '"seconds": NaN', 1), "NaN"),
        (_with_steps(_steps(100)).replace('"index": 70', '"index": ' + "7" * 30, 1),
         "an integer of 30 digits"),
        (_with_steps(_steps(100)).replace('"index": 70', '"index": ' + "7" * 5000, 1),
         "an integer of 5000 digits"),
    ]:
        with pytest.raises(ReportError, match=message):
            parse_json(text)


def test_bytes_and_text_parse_alike() -> None:
    text = _with_steps(_steps(30))
    assert parse_json(text.encode("utf-8")) == parse_json(text) == json.loads(text)


# --- the collector --------------------------------------------------------------------------


def test_the_collector_comes_back_as_it_was() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("a failed read")
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # off before: left off
    finally:
        gc.enable()
