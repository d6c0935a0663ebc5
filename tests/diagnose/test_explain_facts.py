"""`rocmate explain`'s advice for a GPU without code in the installed libraries comes from this
machine's facts (its card, the installed wheel's arch list, the knowledge base's override
rules), never from a fixed list of override values in a text; and the apt SHA-1 and PCIe atomics
answers say what is true now.

Machines (tests/fixtures/machines/, SOURCE.md in each):
- k16a-780m-arch-torch251-rocm62: Radeon 780M (gfx1103), torch 2.5.1+rocm6.2 without gfx1103.
  HSA_OVERRIDE_GFX_VERSION=11.0.0 on gfx1103 is reported to cause GPU page faults and hard hangs
  (pytorch/pytorch#179653, ROCm/MIOpen#3954): explain must never offer it.
- k16a-rx7600-ubuntu2404-torch28-rocm64: RX 7600 (gfx1102) with a download.pytorch.org wheel that
  carries gfx1102 (pytorch/pytorch#147761, torch 2.7 on): no override.
- rx6700xt-ubuntu2204-needs-override: RX 6700 XT (gfx1031), where the doctor's answer is the
  override its rule in overrides.toml gives: explain gives that value, from the rule.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.diagnose.explain import explain, render_explanations
from core.i18n import set_language
from core.knowledge.kernel_log import load_kernel_log
from core.knowledge.loader import load_knowledge
from core.operations.machine import Explained, explain_error

ROOT = Path(__file__).resolve().parents[2]
MACHINES = ROOT / "tests" / "fixtures" / "machines"
ERRORS = ROOT / "tests" / "fixtures" / "errors"
DATA = ROOT / "resources" / "data"

M780 = MACHINES / "k16a-780m-arch-torch251-rocm62"
RX7600 = MACHINES / "k16a-rx7600-ubuntu2404-torch28-rocm64"
RX6700XT = MACHINES / "rx6700xt-ubuntu2204-needs-override"

NO_BINARY = (ERRORS / "hipErrorNoBinaryForGpu-easydiffusion-arch.txt").read_text(encoding="utf-8")
# the line rocBLAS prints for a target its kernel database lacks (its shape as in
# tests/fixtures/errors/rocblas-tensile-illegal-seek-gfx900-torch-nightly-rocm72.txt)
TENSILE = ("rocBLAS error: Cannot read /home/alice/venvs/torch/lib/python3.12/site-packages/"
           "torch/lib/rocblas/library/TensileLibrary.dat: Illegal seek for GPU arch : {gfx}")
INVALID = "RuntimeError: HIP error: invalid device function"

OVERRIDE_VALUE = re.compile(r"HSA_OVERRIDE_GFX_VERSION\s*=\s*\d+\.\d+\.\d+")


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    set_language("en")
    yield
    set_language(None)


def _answer(text: str, machine: Path) -> tuple[Explained, str, str]:
    explained = explain_error(text, machine)
    shown = render_explanations(text, list(explained.explanations), explained.report)
    return explained, shown, json.dumps(explained.to_json())


def _carrying(gfx: str) -> set[str]:
    """The wheel indexes the knowledge base knows to carry ``gfx``."""
    return {i.url for i in load_knowledge().torch_indexes if i.torch_for(gfx)}


def _ids(explained: Explained) -> list[str]:
    return [e.pattern.id for e in explained.explanations]


# ---- the 780M: never 11.0.0 ---------------------------------------------------------------

@pytest.mark.parametrize("text", [NO_BINARY, TENSILE.format(gfx="gfx1103"), INVALID],
                         ids=["no-binary", "tensile", "invalid-device-function"])
@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_780m_is_never_told_to_pose_as_gfx1100(text: str, lang: str) -> None:
    set_language(lang)
    explained, shown, as_json = _answer(text, M780)
    assert set(_ids(explained)) & {"hip-no-binary-for-gpu", "rocblas-no-kernels-for-arch",
                                   "hip-invalid-device-function"}
    for answer in (shown, as_json):
        assert "11.0.0" not in answer
        assert not OVERRIDE_VALUE.search(answer)
    # the advice names this card's target and a wheel index that carries it (torch.toml)
    assert "gfx1103" in shown
    assert _carrying("gfx1103") & set(re.findall(r"--index-url (\S+)", shown))


def test_780m_advice_is_in_the_json_too() -> None:
    explained, _, _ = _answer(NO_BINARY, M780)
    match = next(e for e in explained.to_json()["matches"] if e["id"] == "hip-no-binary-for-gpu")
    assert "gfx1103" in match["fix"] and "{" not in match["fix"]
    assert match["for_this_machine"]["gfx"] == "gfx1103"
    assert match["for_this_machine"]["override"] is None


def test_780m_with_the_override_already_set_is_told_to_remove_it() -> None:
    """A 780M owner who followed old advice: the value is named only to be taken out."""
    kb = load_knowledge()
    report = explain_error(NO_BINARY, M780).report
    env = dataclasses.replace(report.facts.environment,
                              values={**report.facts.environment.values,
                                      "HSA_OVERRIDE_GFX_VERSION": "11.0.0"})
    report = dataclasses.replace(report, facts=dataclasses.replace(report.facts, environment=env))
    shown = render_explanations(NO_BINARY, explain(NO_BINARY, kb, report), report)
    fix = " ".join(shown.split("   Fix: ")[-1].split())  # its lines are wrapped
    assert "HSA_OVERRIDE_GFX_VERSION=11.0.0 makes the Radeon 780M Graphics pose as gfx1100" in fix
    assert "remove it" in fix
    assert "export HSA_OVERRIDE_GFX_VERSION" not in shown


# ---- the RX 7600: the installed wheel carries gfx1102 -> no override -----------------------

@pytest.mark.parametrize("text", [NO_BINARY, TENSILE.format(gfx="gfx1102"), INVALID],
                         ids=["no-binary", "tensile", "invalid-device-function"])
def test_rx7600_with_a_wheel_carrying_gfx1102_gets_no_override(text: str) -> None:
    _, shown, as_json = _answer(text, RX7600)
    for answer in (shown, as_json):
        assert "11.0.0" not in answer
        assert not OVERRIDE_VALUE.search(answer)
        assert "export HSA_OVERRIDE_GFX_VERSION" not in answer
    assert "carries code for gfx1102" in " ".join(shown.split())  # lines are wrapped
    assert "2.8.0.dev20250529+rocm6.4" in shown


def test_rx7600_with_an_old_wheel_is_sent_to_a_wheel_not_an_override() -> None:
    """torch 2.5.1 has no gfx1102 code: the fix is a wheel that has it, not 11.0.0."""
    kb = load_knowledge()
    explained = explain_error(NO_BINARY, RX7600)
    report = explained.report
    assert report.facts.torch is not None
    old = dataclasses.replace(
        report.facts.torch, version="2.5.1+rocm6.2", hip="6.2.41133-dd7f95766",
        arch_list=("gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100"))
    report = dataclasses.replace(report, facts=dataclasses.replace(report.facts, torch=old))
    found = explain(NO_BINARY, kb, report)
    shown = render_explanations(NO_BINARY, found, report)
    assert "11.0.0" not in shown and not OVERRIDE_VALUE.search(shown)
    flat = " ".join(shown.split())  # the explanation's lines are wrapped
    assert "has no code for gfx1102" in flat
    assert _carrying("gfx1102") & set(re.findall(r"--index-url (\S+)", flat))


# ---- where the doctor's answer is an override, explain gives the rule's value --------------

def test_rx6700xt_gets_the_value_of_its_rule() -> None:
    kb = load_knowledge()
    rule = kb.override_rule("gfx1031")
    assert rule is not None
    _, shown, _ = _answer(NO_BINARY, RX6700XT)
    assert f"HSA_OVERRIDE_GFX_VERSION={rule.override}" in shown


# ---- no machine facts: a generic answer without values ------------------------------------

@pytest.mark.parametrize("text", [NO_BINARY, TENSILE.format(gfx="gfx1103"), INVALID])
def test_without_facts_no_value_is_offered(text: str) -> None:
    kb = load_knowledge()
    shown = render_explanations(text, explain(text, kb, None), None)
    assert not re.search(r"\b1[01]\.\d\.\d\b", shown), shown
    assert "rocmate doctor" in shown


def test_no_binary_texts_carry_no_fixed_override_values() -> None:
    """The explain.toml rows of GPU code missing from a library hold no override value, in any
    language: the value comes from the machine (the field the explain code fills)."""
    kb = load_knowledge()
    ids = {"hip-no-binary-for-gpu", "rocblas-no-kernels-for-arch", "hip-invalid-device-function"}
    rows = [p for p in kb.patterns if p.id in ids]
    assert {p.id for p in rows} == ids
    assert all(p.kind == "no-binary-for-gpu" for p in rows)
    for pattern in rows:
        texts = [pattern.cause, pattern.fix, *pattern.fix.translations.values(),  # type: ignore[attr-defined]
                 *pattern.cause.translations.values()]  # type: ignore[attr-defined]
        for text in texts:
            assert not re.search(r"\b1[01]\.\d\.\d\b", text), (pattern.id, text)
            assert "RX 7600" not in text and "780M" not in text, (pattern.id, text)
        for text in [pattern.fix, *pattern.fix.translations.values()]:  # type: ignore[attr-defined]
            assert "{for_this_card}" in text, pattern.id


# ---- apt's SHA-1 policy: refused since 2026-02-01 -----------------------------------------

def test_sha1_key_answer_says_apt_refuses_now() -> None:
    kb = load_knowledge()
    text = (ERRORS / "apt-sqv-signing-key-not-bound-sha1-rocm644.txt").read_text(encoding="utf-8")
    pattern = kb.match_errors(text)[0]
    assert pattern.id == "apt-sqv-sha1-key"
    english = " ".join([pattern.title, pattern.cause, pattern.fix])
    chinese = " ".join(p.translations["zh_CN"]  # type: ignore[attr-defined]
                       for p in (pattern.title, pattern.cause, pattern.fix))
    assert "later refuses" not in english
    assert "only a warning" not in english
    assert "之后会拒绝" not in chinese and "只是一个警告" not in chinese
    assert "since 2026-02-01" in english and "2026-02-01" in chinese
    assert "refuses" in english
    # what to do: the key again, the pip-only set-up without AMD's repository, and apt's own
    # policy file as the last resort
    assert "rocm.gpg.key" in pattern.fix
    assert "pip-only" in pattern.fix
    assert "apt-sequoia.config" in pattern.fix
    assert "ROCm/ROCm#5619" in pattern.source


def test_sha1_key_answer_matches_the_refusal_too() -> None:
    """After the policy date apt prints the refusal (no 'within a year' warning)."""
    kb = load_knowledge()
    refused = (
        "Err:5 https://repo.radeon.com/rocm/apt/6.4.4 noble InRelease\n"
        "  Sub-process /usr/bin/sqv returned an error code (1), error message is: Signing key "
        "on CA8BB4727A47B4D09B4EE8969386B48A1A693C5C is not bound: No binding signature at time "
        "2026-02-03T10:00:00Z because: Policy rejected non-revocation signature "
        "(PositiveCertification) requiring second pre-image resistance because: SHA1 is not "
        "considered secure since 2026-02-01T00:00:00Z"
    )
    assert kb.match_errors(refused)[0].id == "apt-sqv-sha1-key"


# ---- PCIe atomics: nothing about "Above 4G decoding" ---------------------------------------

def test_pcie_atomics_fix_does_not_send_people_to_above_4g_decoding() -> None:
    kb = load_knowledge()
    pattern = kb.pattern("pcie-atomics-missing")
    assert pattern is not None
    for text in [pattern.fix, *pattern.fix.translations.values()]:  # type: ignore[attr-defined]
        assert "4G" not in text, text
    for folder in (DATA, ROOT / "core" / "diagnose"):
        for path in folder.iterdir():
            if path.suffix in (".toml", ".py") and path.name != "kernel_log.toml":
                assert "Above 4G" not in path.read_text(encoding="utf-8"), path
    # The one place it belongs (issue 32): amdgpu's probe failing with error -12, where AMD itself
    # advises it (ROCm/legacy-rocm-build#6281), never a PCIe atomics message.
    for cause in load_kernel_log(DATA):
        if "Above 4G" in cause.fix:
            assert cause.id == "probe-enomem" and cause.match == ("failed with error -12",)
            assert "atomic" not in cause.fix.lower() and "atomic" not in cause.cause.lower()
