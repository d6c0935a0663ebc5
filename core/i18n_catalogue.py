"""Keeping the core's catalogues in step with the code (``make i18n``, and the test that
fails CI when they are not).

:func:`collect` finds every ``t("id", "English", ...)`` call under ``core/`` by reading the
source (``ast``), so a text is in the catalogue because the code says it, not because someone
remembered to add it. :func:`update` writes a language's catalogue anew: new ids come in
unfinished (an empty ``text``), an entry whose English changed keeps its old translation under
``was`` and becomes unfinished, ids gone from the code are dropped. :func:`problems` lists
what keeps a catalogue from being finished.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path

from core.i18n import catalogue_path, fields, read_catalogue

CORE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Text:
    key: str
    english: str
    where: str  # file:line of its first use


class CatalogueError(ValueError):
    """A ``t()`` call the catalogue cannot be made from (not literal, one id two texts)."""


def collect(root: Path = CORE) -> dict[str, Text]:
    """Every ``t()`` text under ``root``, by id."""
    found: dict[str, Text] = {}
    errors: list[str] = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent)
        tree = ast.parse(path.read_text(encoding="utf-8"), str(rel))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and _is_t(node.func)):
                continue
            where = f"{rel}:{node.lineno}"
            args = node.args
            if len(args) < 2 or not all(isinstance(a, ast.Constant) and isinstance(a.value, str)
                                        for a in args[:2]):
                errors.append(f"{where}: t() needs a literal id and a literal English text")
                continue
            key, english = args[0].value, args[1].value  # type: ignore[attr-defined]
            named = {k.arg for k in node.keywords if k.arg}
            if fields(english) != named:
                errors.append(f"{where}: {key}: the fields {sorted(fields(english))} and the "
                              f"values given {sorted(named)} differ")
            known = found.get(key)
            if known is not None and known.english != english:
                errors.append(f"{where}: {key} has another English text at {known.where}")
                continue
            found.setdefault(key, Text(key, english, where))
    if errors:
        raise CatalogueError("\n".join(errors))
    return found


def _is_t(func: ast.expr) -> bool:
    return (isinstance(func, ast.Name) and func.id == "t") or (
        isinstance(func, ast.Attribute) and func.attr == "t"
        and isinstance(func.value, ast.Name) and func.value.id == "i18n")


def update(lang: str, texts: dict[str, Text], root: Path | None = None) -> Path:
    """Write ``lang``'s catalogue for ``texts``, keeping every translation that still fits."""
    path = catalogue_path(lang, root)
    old = read_catalogue(path)
    lines = [f"# rocmate's core texts in {lang}: written by `make i18n` from the code's t() "
             "calls.", "# Translate `text` (keep {fields}); `en` is the English it translates; "
             "`was` an earlier", "# translation of changed English. "
             "docs/glossary-zh_CN.md fixes the terms.", ""]
    for key in sorted(texts):
        english = texts[key].english
        entry = old.get(key)
        text, was = "", entry.was if entry is not None else ""
        if entry is not None and entry.en == english:
            text = entry.text
        elif entry is not None and entry.text:
            was = entry.text
        lines.append(f"[{_q(key)}]")
        lines.append(f"en = {_q(english)}")
        lines.append(f"text = {_q(text)}")
        if was and not text:
            lines.append(f"was = {_q(was)}")
        lines.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _q(text: str) -> str:
    """A TOML basic string (JSON's escaping is TOML's for these)."""
    return json.dumps(text, ensure_ascii=False)


def problems(lang: str, texts: dict[str, Text], root: Path | None = None) -> list[str]:
    """What keeps ``lang``'s catalogue from being finished; [] when it is."""
    path = catalogue_path(lang, root)
    entries = read_catalogue(path)
    out = []
    for key, text in sorted(texts.items()):
        entry = entries.get(key)
        if entry is None:
            out.append(f"{key} ({text.where}): not in {path.name} (run make i18n)")
        elif entry.en != text.english:
            out.append(f"{key} ({text.where}): its English changed since it was translated "
                       "(run make i18n, then translate it again)")
        elif not entry.text and text.english.strip():  # a space may become nothing
            out.append(f"{key} ({text.where}): not translated yet")
        elif fields(entry.text) != fields(entry.en):
            out.append(f"{key}: the translation's fields {sorted(fields(entry.text))} are not "
                       f"the English's {sorted(fields(entry.en))}")
    out += [f"{key}: in {path.name} but no longer in the code (run make i18n)"
            for key in sorted(set(entries) - set(texts))]
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m core.i18n_catalogue update|check [LANG ...]``."""
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    command = args.pop(0) if args else "check"
    langs = args or ["zh_CN"]
    try:
        texts = collect()
    except CatalogueError as exc:
        print(exc, file=sys.stderr)
        return 1
    failed = 0
    for lang in langs:
        if command == "update":
            print(f"{update(lang, texts)}: {len(texts)} texts")
        found = problems(lang, texts)
        if command == "check":
            for line in found:
                print(f"{lang}: {line}", file=sys.stderr)
        failed += bool(found)
        unfinished = {line.split(" ", 1)[0] for line in found} & set(texts)
        print(f"{lang}: {len(texts) - len(unfinished)} of {len(texts)} texts finished")
    return 1 if failed and command == "check" else 0


if __name__ == "__main__":
    raise SystemExit(main())
