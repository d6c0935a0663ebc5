"""The doctor in Simplified Chinese: the catalogue is finished for every text the code has,
every replayed machine's findings read in Chinese, the language comes from LANG or --lang, and
--json stays English."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from core.diagnose.doctor import run_doctor
from core.i18n_catalogue import collect, problems
from core.system import SnapshotSystem
from tests.conftest import MACHINES, machine_dirs

ROOT = Path(__file__).resolve().parents[2]
CJK = re.compile(r"[\u4e00-\u9fff]")

# texts that are a command alone: nothing to translate
COMMAND_ONLY = {("dkms-leftovers", "fix"), ("distro-unsupported", "fix")}



def test_every_text_of_the_code_is_translated() -> None:
    assert problems("zh_CN", collect()) == []


@pytest.mark.parametrize("machine", machine_dirs(), ids=lambda p: p.name)
def test_every_finding_of_a_replayed_machine_reads_in_chinese(machine: Path,
                                                               chinese: None) -> None:
    report = run_doctor(SnapshotSystem(machine))
    for finding in report.findings:
        for field in ("title", "detail", "fix"):
            text = getattr(finding, field)
            if text and (finding.id, field) not in COMMAND_ONLY:
                assert CJK.search(text), (finding.id, field, text)


def _doctor(*args: str, lang: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if lang:
        env["LANG"] = lang
    return subprocess.run([sys.executable, "-m", "core.cli", "doctor", "--root",
                           str(MACHINES / "rx6700xt-ubuntu2204-needs-override"), "--no-torch",
                           "--color", "never", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_lang_from_the_environment_or_the_command_line() -> None:
    chinese = _doctor(lang="zh_CN.UTF-8")
    assert "结论：" in chinese.stdout and "解决办法：" in chinese.stdout
    assert "export HSA_OVERRIDE_GFX_VERSION=10.3.0" in chinese.stdout  # commands stay
    assert _doctor("--lang", "zh_CN").stdout == chinese.stdout
    english = _doctor("--lang", "en", lang="zh_CN.UTF-8")
    assert "Verdict: Ready after these fixes" in english.stdout and not CJK.search(english.stdout)
    assert chinese.returncode == english.returncode == 1


def test_json_stays_english_in_any_language() -> None:
    data = json.loads(_doctor("--json", lang="zh_CN.UTF-8").stdout)
    assert data["verdict"] == "Ready after these fixes"
    assert not any(CJK.search(f["title"] + f["detail"] + f["fix"]) for f in data["findings"])


@pytest.mark.parametrize(("file", "keys"), [("support.toml", ("note",)),
                                            ("overrides.toml", ("caveat", "note", "reason")),
                                            ("explain.toml", ("title", "cause", "fix"))])
def test_every_knowledge_text_the_doctor_shows_has_its_chinese_beside_it(
        file: str, keys: tuple[str, ...]) -> None:
    import tomllib

    data = tomllib.loads((ROOT / "resources/data" / file).read_text())
    rows = [row for table in data.values() if isinstance(table, list) for row in table]
    missing = [row.get("gfx", row.get("id", "?")) + "." + key for row in rows for key in keys
               if key in row and not row.get(f"{key}_zh_CN")]
    assert rows and missing == []


def test_explain_answers_in_chinese_with_the_commands_as_they_are() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LANG": "zh_CN.UTF-8"}
    done = subprocess.run([sys.executable, "-m", "core.cli", "explain",
                           "RuntimeError: HIP error: invalid device function"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert "原因：" in done.stdout and "解决办法：" in done.stdout
    assert "AMD_SERIALIZE_KERNEL=3 python your_script.py" in done.stdout
