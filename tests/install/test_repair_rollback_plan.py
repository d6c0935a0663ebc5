"""Where a rollback fetches each recorded build from, and what it cannot bring back (issue 34):
the plan from a record and the environment as it is now, without running pip."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.cli import main as cli_main
from core.install.repair import Restore, build_source, make_rollback_plan, parse_freeze
from core.knowledge.loader import load_knowledge
from core.knowledge.torch_family import load_torch_family
from core.operations.repair import app_venv_problem
from core.probe.python_packages import Distribution, PythonEnvironment


def _source(version: str, torch: str | None = None) -> str | None:
    return build_source(load_knowledge(), load_torch_family(), version, torch)


def test_sources_of_builds() -> None:
    assert _source("2.5.1+cpu") == "https://download.pytorch.org/whl/cpu"
    assert _source("2.5.1+cu124") == "https://download.pytorch.org/whl/cu124"
    assert _source("2.5.1+rocm6.2") == "https://download.pytorch.org/whl/rocm6.2"
    assert _source("2.13.0+rocm10.0.0") == "https://stable.repo.amd.com/rocm/whl-next/"
    assert _source("2.5.1") == "https://pypi.org/simple"  # PyPI's own (CUDA) build
    assert _source("3.1.0", "2.5.1+rocm6.1") == "https://download.pytorch.org/whl/rocm6.1"
    assert _source("3.1.0", "2.5.1") == "https://pypi.org/simple"
    assert _source("2.6.0+git1c2d3e4") is None


def _now(versions: dict[str, str]) -> PythonEnvironment:
    dists = tuple(Distribution(n, v, f"/v/lib/python3.12/site-packages/{n}-{v}.dist-info")
                  for n, v in versions.items())
    return PythonEnvironment("/v/bin/python", "/v", exists=True, venv=True, distributions=dists)


def test_rollback_plan() -> None:
    freeze = ("filelock==3.16.1\ntorch==2.5.1\ntriton==3.1.0\ntorchvision==0.20.1\n"
              "mylib @ file:///home/a/mylib\nxformers==0.0.28+git123\n")
    restore = Restore("/data/r", "/v/bin/python", "/v", parse_freeze(freeze),
                      {"torch": "https://pypi.org/simple", "triton": "https://pypi.org/simple",
                       "torchvision": "https://pypi.org/simple", "xformers": None})
    now = _now({"filelock": "3.16.1", "torch": "2.9.1+rocm6.4", "torchvision": "0.24.1+rocm6.4",
                "pytorch-triton-rocm": "3.5.1", "mylib": "0.1", "xformers": "0.0.29"})
    plan = make_rollback_plan(restore, now)
    assert [s.id for s in plan.steps] == ["rollback-remove", "rollback-family-1",
                                          "rollback-others"]
    assert plan.steps[0].argv == ("/v/bin/python", "-m", "pip", "uninstall", "-y",
                                  "pytorch-triton-rocm", "--disable-pip-version-check")
    family = plan.steps[1].argv or ()
    assert "torch==2.5.1" in family and "triton==3.1.0" in family
    assert family[family.index("--index-url") + 1] == "https://pypi.org/simple"
    assert "mylib @ file:///home/a/mylib" in (plan.steps[2].argv or ())
    assert plan.repair is not None
    assert plan.repair.unreachable == ("xformers==0.0.28+git123",)
    assert any("cannot bring it back" in n for n in plan.notes)
    assert "filelock==3.16.1" not in " ".join(a for s in plan.steps for a in s.argv or ())
    same = make_rollback_plan(restore, _now({"filelock": "3.16.1", "torch": "2.5.1",
                                             "triton": "3.1.0", "torchvision": "0.20.1",
                                             "mylib": "0.1", "xformers": "0.0.28+git123"}))
    assert [s.id for s in same.steps] == ["rollback-others"]  # the direct URL is reinstalled


def _venv(root: Path, rocmate: bool) -> str:
    prefix = root / "files" / "home" / "a" / "venvs" / "torch"
    site = prefix / "lib" / "python3.12" / "site-packages" / "torch-2.9.1+rocm6.4.dist-info"
    site.mkdir(parents=True)
    (site / "METADATA").write_text("Name: torch\nVersion: 2.9.1+rocm6.4\n")
    (prefix / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.12.3\n")
    (prefix / "bin").mkdir()
    if rocmate:
        (prefix / "bin" / "rocmate-env.sh").write_text("# Written by rocmate\n")
    return "/home/a/venvs/torch"


def test_rocmate_s_own_venv_is_not_an_app(tmp_path: Path) -> None:
    assert app_venv_problem(tmp_path, _venv(tmp_path, rocmate=True)) is None
    other = tmp_path / "other"
    said = app_venv_problem(other, _venv(other, rocmate=False))
    assert said is not None and "torch 2.9.1+rocm6.4" in said


def test_repairs_list_empty(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert cli_main(["install", "--repairs"]) == 0
    assert "no repairs yet" in capsys.readouterr().out
    assert cli_main(["install", "--rollback", "/home/a/venv/bin/python", "--dry-run"]) == 1
    assert "no repair of /home/a/venv/bin/python" in capsys.readouterr().err
