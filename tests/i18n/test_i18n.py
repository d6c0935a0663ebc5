"""The core's words in the user's language: the language from the environment or --lang, the
catalogue's text where it is finished and current, English otherwise; the catalogue made from
the code's t() calls."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core import i18n
from core.i18n import Entry, from_env, t
from core.i18n_catalogue import CatalogueError, collect, problems, update


@pytest.fixture
def chinese() -> Iterator[None]:
    i18n.use_catalogue("zh_CN", {
        "x.kernel": Entry("Kernel {kernel} is too old", "内核 {kernel} 太旧"),
        "x.stale": Entry("The old English", "旧的译文"),
        "x.unfinished": Entry("Not yet", ""),
        "x.broken": Entry("GPU {name}", "显卡 {nom}"),
        "x.gap": Entry(" ", ""),
    })
    i18n.set_language("zh_CN")
    yield
    i18n.set_language(None)
    i18n.use_catalogue("zh_CN", None)


@pytest.mark.parametrize(("env", "lang"), [
    ({}, "en"),
    ({"LANG": "zh_CN.UTF-8"}, "zh_CN"),
    ({"LANG": "zh_SG.UTF-8"}, "zh_CN"),
    ({"LANG": "zh_TW.UTF-8"}, "en"),  # Traditional script: English, not the wrong script
    ({"LANG": "de_DE.UTF-8"}, "en"),
    ({"LANG": "en_US.UTF-8", "LC_ALL": "zh_CN.UTF-8"}, "zh_CN"),
    ({"LANG": "zh_CN.UTF-8", "LC_MESSAGES": "en_GB.UTF-8"}, "en"),
    ({"LANG": "de_DE.UTF-8", "LANGUAGE": "fr:zh_CN:en"}, "zh_CN"),
    ({"LANG": "C", "LANGUAGE": "zh_CN"}, "en"),  # gettext ignores LANGUAGE under the C locale
    ({"LC_ALL": "C.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"),
    ({"LANGUAGE": "zh_CN", "LANG": "zh-Hans"}, "zh_CN"),
])
def test_the_language_comes_from_the_environment_as_gettext_reads_it(
        env: dict[str, str], lang: str) -> None:
    assert from_env(env) == lang


def test_a_finished_current_translation_is_used_with_its_fields(chinese: None) -> None:
    assert t("x.kernel", "Kernel {kernel} is too old", kernel="5.4") == "内核 5.4 太旧"


def test_a_space_between_sentences_may_become_nothing(chinese: None) -> None:
    assert t("x.gap", " ") == ""  # no space after 。


def test_english_wherever_the_translation_cannot_be_trusted(chinese: None) -> None:
    assert t("x.stale", "The new English") == "The new English"  # changed since translated
    assert t("x.unfinished", "Not yet") == "Not yet"
    assert t("x.missing", "Nobody translated {what}", what="me") == "Nobody translated me"
    assert t("x.broken", "GPU {name}", name="RX 6600") == "GPU RX 6600"  # a field lost


def test_english_is_spoken_where_asked(chinese: None) -> None:
    i18n.set_language("en")
    assert t("x.kernel", "Kernel {kernel} is too old", kernel="5.4") == "Kernel 5.4 is too old"
    with pytest.raises(ValueError, match="unknown language"):
        i18n.set_language("fr")


def _source(tmp_path: Path, code: str) -> Path:
    root = tmp_path / "core"
    root.mkdir(parents=True)
    (root / "m.py").write_text("from core.i18n import t\n" + code)
    return root


def test_the_catalogue_is_made_from_the_code(tmp_path: Path) -> None:
    root = _source(tmp_path, 'a = t("m.a", "Kernel {k} " "is old", k=1)\nb = t("m.b", "Hi")\n')
    texts = collect(root)
    assert {k: v.english for k, v in texts.items()} == {"m.a": "Kernel {k} is old", "m.b": "Hi"}
    path = update("zh_CN", texts, tmp_path / "res")
    assert "m.a" in path.read_text() and len(problems("zh_CN", texts, tmp_path / "res")) == 2
    path.write_text(path.read_text().replace('text = ""', 'text = "内核 {k} 太旧"', 1)
                    .replace('text = ""', 'text = "好 {k}"'))
    assert problems("zh_CN", texts, tmp_path / "res") == ["m.b: the translation's fields "
                                                          "['k'] are not the English's []"]
    # the English of m.a changes: its translation is kept as `was`, and it is unfinished
    changed = collect(_source(tmp_path / "v2", 'a = t("m.a", "Kernel {k} is too old", k=1)\n'))
    update("zh_CN", changed, tmp_path / "res")
    assert 'was = "' in path.read_text()
    assert problems("zh_CN", changed, tmp_path / "res") == [
        "m.a (core/m.py:2): not translated yet"]


@pytest.mark.parametrize("code", [
    'x = t("m.a", f"Kernel {k}")\n',  # not a literal
    'x = t("m.a", "Kernel {k}")\n',  # a field without a value
    'x = t("m.a", "A")\ny = t("m.a", "B")\n',  # one id, two texts
])
def test_a_call_the_catalogue_cannot_be_made_from_is_refused(tmp_path: Path, code: str) -> None:
    with pytest.raises(CatalogueError, match=r"m\.py:"):
        collect(_source(tmp_path, code))


def test_every_core_text_has_a_literal_id_and_english() -> None:
    assert len(collect()) > 40


def test_the_command_line_knows_the_same_languages() -> None:
    import core.cli

    assert core.cli.LANGUAGES == i18n.LANGUAGES


def test_a_knowledge_text_speaks_the_language_of_the_moment(chinese: None) -> None:
    note = i18n.Localized("Official from ROCm 6.4.1.", {"zh_CN": "从 ROCm 6.4.1 起官方支持。"})
    assert i18n.local(note) == "从 ROCm 6.4.1 起官方支持。"
    assert t("x.missing", "Note: {note}", note=note) == "Note: 从 ROCm 6.4.1 起官方支持。"
    i18n.set_language("en")
    assert i18n.local(note) == "Official from ROCm 6.4.1." == note
    assert i18n.local(i18n.Localized("Only English.", {})) == "Only English."


def test_a_row_reads_the_translation_beside_its_text() -> None:
    from core.knowledge.rows import KnowledgeError, Row

    row = Row("support.toml", "gfx", 0, {"note": "Official.", "note_zh_CN": "官方支持。"})
    row.check_keys(["note"], [])
    assert row.words("note").translations == {"zh_CN": "官方支持。"}
    with pytest.raises(KnowledgeError, match="note_zh_CN must be a non-empty string"):
        Row("support.toml", "gfx", 0, {"note": "Official.", "note_zh_CN": ""}).words("note")
    with pytest.raises(KnowledgeError, match="unknown key"):
        Row("support.toml", "gfx", 0, {"note": "x", "note_de": "y"}).check_keys(["note"], [])
