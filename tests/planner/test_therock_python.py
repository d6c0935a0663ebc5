"""The TheRock route checks python3 against its wheels, as the pip route does (issue 33).

TheRock's plan installs unpinned device extras (``torch[device-gfx906]``) from the multi-arch
nightly index, so the pip route's check (the pinned torch release's Pythons, torch_python.toml)
said nothing: on vega20-x8-epyc-aspeed (Ubuntu 18.04, python3 3.6.9) ``--strategy therock``
planned a venv whose pip finds no wheel. The index's Python versions are torch.toml's
[[therock]] python_min / python_max (TheRock's configure_pytorch_release_matrix.py); the same
preflight (core.install.preflight._python_check) now holds python3 against them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.diagnose.doctor import run_doctor
from core.install.plan import Plan
from core.install.planner import Choices, make_plan
from core.knowledge.loader import load_knowledge
from core.knowledge.rows import KnowledgeError, read_table
from core.knowledge.wheels import parse_torch
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
MULTI_ARCH = "https://rocm.nightlies.amd.com/whl-multi-arch/"


def therock_plan(name: str) -> Plan:
    facts = run_doctor(SnapshotSystem(MACHINES / name), probe_torch=False).facts
    return make_plan(facts, load_knowledge(), Choices(strategy="therock"))


def _row_versions() -> str:
    row = next(f for f in load_knowledge().therock if f.url == MULTI_ARCH)
    assert row.python_min and row.python_max and row.python_source
    assert "configure_pytorch_release_matrix.py" in row.python_source
    return f"{row.python_min}-{row.python_max}"


def test_vega20s_python_36_stops_the_therock_plan() -> None:
    plan = therock_plan("vega20-x8-epyc-aspeed")
    assert plan.torch_index == MULTI_ARCH and "torch[device-gfx906]" in plan.torch_packages
    [check] = [c for c in plan.preflight if c.id == "python-version"]
    assert not check.ok and check.stops and plan.stopped_by == (check,)
    assert "python3 is 3.6" in check.title and "whl-multi-arch" in check.title
    assert _row_versions() in check.title  # the data row's versions, not a literal
    assert "configure_pytorch_release_matrix.py" in check.detail


def test_mi25s_python_310_fits_the_therock_wheels() -> None:
    plan = therock_plan("mi25-x7-gfx900")
    [check] = [c for c in plan.preflight if c.id == "python-version"]
    assert check.ok and not plan.stopped_by
    assert "python3 is 3.10" in check.title and _row_versions() in check.title


def load_toml_index() -> list[dict[str, object]]:
    """torch.toml's [[index]] rows as read (parse_torch wants at least one)."""
    data = read_table(load_knowledge().data_dir, "torch.toml")
    return list(data["index"])


def test_a_therock_row_with_half_a_python_range_is_refused() -> None:
    index = load_toml_index()[0]
    row = {"family": "x", "url": "https://example.org/", "targets": ["gfx1100"],
           "preview": True, "source": "s", "python_min": "3.10", "python_max": "3.14"}
    with pytest.raises(KnowledgeError, match="python_source"):
        parse_torch({"index": [index], "therock": [row]})
    with pytest.raises(KnowledgeError, match="python_min is newer"):
        parse_torch({"index": [index],
                     "therock": [{**row, "python_min": "3.15", "python_source": "s"}]})
