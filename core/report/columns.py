"""One look at a report's JSON data, a column at a time.

A long run's report is mostly two lists of like-shaped objects (150,000 steps, 10,000 telemetry
samples). Visiting them value by value in Python costs seconds; taking them a column at a time
(every step's ``seconds``, then every step's ``phase``) lets C do the per-value work: the types
of a column in one ``set(map(type, ...))``, its range in one ``min``/``max``, its distinct
strings in one ``set``. What comes out is what the validator (numbers, depth), the strict
parser (how many keys were read) and the privacy survey (each distinct string with the key it
sits under) need, from one walk.
"""

from __future__ import annotations

import math
import threading
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain, repeat
from operator import itemgetter
from typing import Any, TypeVar

T = TypeVar("T")

_NONE = type(None)


@dataclass
class Look:
    """What one walk over JSON data found.

    ``fine``: no number beyond ±``max_number`` (NaN and infinities included), nothing nested
    ``max_depth`` levels or deeper, and only JSON's own types (exactly ``dict``, ``list``,
    ``str``, ``int``, ``float``, ``bool``, ``None``); where it is False the caller walks again
    slowly to name the place. ``keys``: how many object keys the data holds, counting each
    object's own. ``names``: the distinct keys. ``texts``: each distinct string value with the
    key it sits under (a list's items sit under the list's key) and whether it is inside a
    ``packages`` object.
    """

    fine: bool = True
    keys: int = 0
    names: set[str] = field(default_factory=set)
    texts: set[tuple[str, str, bool]] = field(default_factory=set)


def look(data: Any, *, max_depth: int, max_number: float) -> Look:
    """Walk ``data`` (a report's JSON data, or any part of one) a column at a time; inside
    :func:`looks_kept`, the same data object is walked once."""
    kept: dict[int, tuple[Any, tuple[int, float], Look]] | None = getattr(_kept, "looks", None)
    limits = (max_depth, max_number)
    if kept is not None and id(data) in kept:
        same, was, found = kept[id(data)]
        if same is data and was == limits:
            return found
    walker = _Walker(max_depth, max_number)
    walker.column([data], "", False, 0)
    if kept is not None:
        kept[id(data)] = (data, limits, walker.found)  # holding data: its id stays its own
    return walker.found


_kept = threading.local()


@contextmanager
def looks_kept() -> Iterator[None]:
    """Inside (in this thread), :func:`look` at a data object it has seen answers from
    memory: a report being read is looked at by the parser, the validator and the privacy
    survey, and nothing changes its data in between. Callers must not change data they
    looked at inside."""
    outer = getattr(_kept, "looks", None)
    if outer is None:
        _kept.looks, _kept.columns = {}, {}
    try:
        yield
    finally:
        if outer is None:
            _kept.looks = _kept.columns = None


class _Walker:
    def __init__(self, max_depth: int, max_number: float) -> None:
        self.max_depth = max_depth
        self.max_number = max_number
        self.found = Look()

    def column(self, values: list[Any], key: str, packages: bool, depth: int) -> None:
        """``values``: what sits under ``key`` in many objects (or in one list); containers
        among them are nested ``depth`` levels deep."""
        kinds = set(map(type, values))
        groups: dict[type, list[Any]]
        if len(kinds) == 1:
            groups = {kinds.pop(): values}
        else:
            groups = defaultdict(list)
            for v in values:
                groups[type(v)].append(v)
        for kind, group in groups.items():
            self.group(kind, group, key, packages, depth)

    def group(self, kind: type, values: list[Any], key: str, packages: bool,
              depth: int) -> None:
        if kind is float or kind is int:
            self.numbers(values, kind is float)
        elif kind is str:
            self.found.texts.update(zip(set(values), repeat(key), repeat(packages)))
        elif kind is dict:
            self.objects(values, packages or key == "packages", depth)
        elif kind is list:
            self.lists(values, key, packages or key == "packages", depth)
        elif kind is bool or kind is _NONE:
            pass
        else:  # a subclass, from a caller's own data: seen through, but not fine
            self.found.fine = False
            if issubclass(kind, str):
                self.found.texts.update((str(v), key, packages) for v in set(values))
            elif issubclass(kind, dict):
                self.objects([dict(v) for v in values], packages or key == "packages", depth)
            elif issubclass(kind, (list, tuple)):
                self.lists([list(v) for v in values], key, packages or key == "packages", depth)

    def numbers(self, values: list[Any], floats: bool) -> None:
        top = self.max_number
        nan = floats and any(map(math.isnan, values))
        if nan or not (-top <= min(values) and max(values) <= top):
            self.found.fine = False

    def lists(self, lists: list[list[Any]], key: str, packages: bool, depth: int) -> None:
        if depth >= self.max_depth:
            self.found.fine = False
            return
        # one list (a run's steps) is walked as it is, so that its columns are kept for build
        items = lists[0] if len(lists) == 1 else list(chain.from_iterable(lists))
        if items:
            self.column(items, key, packages, depth + 1)

    def objects(self, objects: list[dict[Any, Any]], packages: bool, depth: int) -> None:
        """Many objects at ``depth``; ``packages``: they sit inside a ``packages`` object."""
        if depth >= self.max_depth:
            self.found.fine = False
            return
        found = self.found
        sizes = set(map(len, objects))
        columns = None
        if len(sizes) == 1:  # the usual list: every object with the same keys
            found.keys += sizes.pop() * len(objects)
            columns = _same_keys(objects)
        else:
            found.keys += sum(map(len, objects))
        if columns is None:
            columns = defaultdict(list)
            for obj in objects:
                for k, v in obj.items():
                    columns[k].append(v)
        for k, values in columns.items():
            name = k if type(k) is str else str(k)
            found.names.add(name)
            self.column(values, name, packages, depth + 1)


def _same_keys(objects: list[dict[Any, Any]]) -> dict[Any, list[Any]] | None:
    """The columns of objects that all have as many keys as the first, or None where one
    lacks a key of the first (then their keys differ). Inside :func:`looks_kept` the columns
    of a list are taken once: the look and the build of a run's steps share them."""
    kept: dict[int, tuple[list[Any], dict[Any, list[Any]] | None]] | None = getattr(
        _kept, "columns", None)
    if kept is not None and id(objects) in kept:
        same, columns = kept[id(objects)]
        if same is objects:
            return columns
    try:
        columns = {k: list(map(itemgetter(k), objects)) for k in objects[0]}
    except KeyError:
        columns = None
    if kept is not None:
        kept[id(objects)] = (objects, columns)  # holding the list: its id stays its own
    return columns


# --- building dataclasses from a list of like-shaped objects ---------------------------------

_KINDS: dict[str, frozenset[type]] = {
    "text": frozenset({str}),
    "otext": frozenset({str, _NONE}),
    "integer": frozenset({int}),
    "ointeger": frozenset({int, _NONE}),
    "num": frozenset({int, float}),
    "onum": frozenset({int, float, _NONE}),
    "num_map": frozenset({dict, _NONE}),
}
"""What a field of each kind may hold for the quick build (JSON's exact types; the reader's
step-by-step path takes the rest, and names what it refuses)."""


def build(objects: list[Any], fields: tuple[tuple[str, str], ...],
          cls: Callable[..., T]) -> list[T] | None:
    """``cls(*values)`` for each of ``objects``, built a column at a time, with ``fields``
    (name, kind) in ``cls``'s positional order; numbers become floats where the kind is a
    number, a missing or null ``num_map`` an empty dict. None where the list is not the usual
    one (not all objects with the same keys, a value of another type): the caller then reads
    it object by object. Keys ``fields`` does not name are passed over (a later writer's)."""
    if not objects or set(map(type, objects)) != {dict} or len(set(map(len, objects))) != 1:
        return None
    columns = _same_keys(objects)
    if columns is None:
        return None
    built: list[list[Any]] = []
    for name, kind in fields:
        values = columns.get(name)
        if values is None:  # no object has the key
            if kind in ("text", "integer", "num"):
                return None
            values = [None] * len(objects)
        ready = _converted(values, kind)
        if ready is None:
            return None
        built.append(ready)
    return list(map(cls, *built))


def _converted(values: list[Any], kind: str) -> list[Any] | None:
    kinds = set(map(type, values))
    if not kinds <= _KINDS[kind]:
        return None
    if kind in ("num", "onum") and int in kinds:
        return [v if v is None else float(v) for v in values]
    if kind == "num_map":
        return _number_maps(values)
    return values


def _number_maps(values: list[dict[Any, Any] | None]) -> list[dict[str, float]] | None:
    """Each a new dict of str -> float ({} for None)."""
    maps = [v for v in values if v]
    keys = set(map(type, chain.from_iterable(maps)))
    numbers = set(map(type, chain.from_iterable(map(dict.values, maps))))
    if not keys <= {str} or not numbers <= {int, float}:
        return None
    if int in numbers:
        return [{k: float(n) for k, n in v.items()} if v else {} for v in values]
    return [dict(v) if v else {} for v in values]
