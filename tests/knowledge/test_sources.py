"""Every row's `source` in resources/data/*.toml is a public reference a user can follow.

The rule is written down in docs/knowledge.md ("The source rule"). A source passes when

1. it names nothing of the project's own: no research note ("rocm-facts 3.2", "research notes",
   "anchors-performance"), no seed, no test fixture, no repository path (tests/, core/, docs/),
   none of the knowledge files themselves ("overrides.toml rule"), and none of the short codes
   that the files' header comments once defined ("IDS, SPECS", "CORE-10.1", "PT-PREV"): a reader
   of the row cannot follow a legend they never see;
2. every file name it gives says where the file lives: a URL or host, an "owner/repo" before it,
   or one of the few projects known by name (the Linux kernel, libdrm, distro-info-data);
   "rocm-facts.md" or "METHODOLOGY.md" alone is refused;
3. and it contains at least one reference a user can follow: a URL (or a host and path), an
   issue or pull request ("owner/repo#N", "owner/repo issue #N"), a repository ("owner/repo",
   with or without a file in it), or a named document with the part of it that says the fact
   (a title in quotes or 《》 followed by a section, or a publisher's document such as
   "ROCm installation docs for Linux, quick start" or "PCI ID repository (virtio-gpu)").

A figure this project measured itself is followable in the file of this (public) repository
that holds the run: a recorded report under tests/fixtures/reports/ or a page under docs/, named
as "this repository's <path>" ("本仓库的<path>"). No other path of the repository qualifies, and
the form does not excuse a research note, a seed, a short code or a bare name elsewhere in the
source.

Every table and every file is checked: nothing is skipped. `source_zh_CN` siblings are checked
by the same rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tomllib

DATA = Path(__file__).resolve().parents[2] / "resources" / "data"
FILES = sorted(p.name for p in DATA.glob("*.toml"))

# -- 1. the project's own things --------------------------------------------------------------

# (pattern, why) - case-insensitive words that only mean something inside this project.
INTERNAL_WORDS: tuple[tuple[str, str], ...] = (
    (r"rocm-facts", "a research note"),
    (r"research notes?", "a research note"),
    (r"anchors-[a-z]+", "a research note"),
    (r"\bseeds?\b", "a seed file"),
    (r"\bfixtures?\b", "a test fixture"),
    (r"\b(?:gpus|rocm|torch|overrides|support|distros|explain|references|bench|pci_vendors)"
     r"\.toml\b", "a knowledge file of this project"),
    (r"\bDESIGN\.md\b|\bINSTALL \d", "a design note"),
)
# A path into this repository (unless a repository or site named before it owns the path).
OWN_PATH = re.compile(r"(?<![\w/.-])(?:\.\./)*(?:tests|core|docs|resources|shared)/[\w./*-]+")
# Short codes the files' header comments defined; case-sensitive, whole words.
LEGEND_CODES = re.compile(
    r"(?<![\w/.-])(?:IDS|SPECS(?:-\d+)?|THUNK|KFD|KFDTEST|ISAREG|COMPAT|SYSREQ|VERSIONS|INSTALL"
    r"|PT-PREV|SDNEXT|USERS|CORE-[0-9./]+|AMD-[0-9.]+|SRC-3P|SRC-weak)(?![\w-])"
)

# The project's own records: "this repository's docs/bench.md", "本仓库的tests/fixtures/reports/
# x.json". Only those two folders, and no ".." that would leave them.
OWN_RECORD = re.compile(
    r"(?:\bthis repository's|本仓库的)\s*(?![^\s,;)）]*\.\.)"
    r"(?:tests/fixtures/reports|docs)/[\w./-]*\w"
)

# -- 2. file names must say where they live --------------------------------------------------

URL = re.compile(r"https?://[^\s)\]>,;'\"]+")
HOST_PATH = re.compile(
    r"(?<![\w@/.-])(?:[a-z0-9-]+\.)+(?:com|org|net|io|dev|cz|gov|edu|ai|cloud|info)"
    r"(?:/[^\s)\]>,;'\"]*)?",
    re.IGNORECASE,
)
REPO = re.compile(r"(?<![\w./-])([A-Za-z0-9][\w.-]*)/([A-Za-z0-9][\w.-]*)")
FILE_NAME = re.compile(
    r"(?<![\w.-])[\w*.-]+\.(?:md|mdx|txt|json|toml|csv|rst|ya?ml|py|c|h|cpp|sh|ids|html?)\b"
)
KNOWN_PROJECTS = re.compile(r"\b(?:Linux kernel|libdrm|distro-info-data)\b")

# -- 3. something to follow -------------------------------------------------------------------

ISSUE = re.compile(
    r"[\w.-]+/[\w.-]+ ?#\d+|[\w.-]+/[\w.-]+ (?:issue|pull request|PR|discussion)s? #?\d+"
)
PUBLISHER = (
    r"(?:ROCm|AMD(?:'s)?|PyTorch|pytorch\.org|MIOpen|Radeon|Linux kernel|libdrm|Wikipedia"
    r"|PCI ID repository|distro-info-data|TheRock|NVIDIA|Microsoft|Ubuntu|Debian|Vultr(?:'s)?)"
)
DOC_WORD = (
    r"(?:docs?|documentation|release notes|notes|page|guide|table|matrix|repository|article"
    r"|requirements|specifications?|install\w*|selector|whitepaper|datasheet|data sheet"
    r"|reference|forums?|blog post|kfd_device\.c|amdgpu\.ids|topology\.c)"
)
PUBLISHED_DOC = re.compile(rf"\b{PUBLISHER}\b[^;]*?\b{DOC_WORD}\b", re.IGNORECASE)
# Public data sets and code bases that are documents in themselves (a section still follows).
NAMED_SOURCE = re.compile(r"\b(?:PCI ID repository|distro-info-data|libdrm|Linux kernel)\b")
TITLED_DOC = re.compile(r"\"[^\"]{6,}\"|“[^”]{6,}”|《[^》]{2,}》")
SECTION = re.compile(r"[,(:]|\bsection\b|§|第[\d.]+节|\brow\b|\btable\b", re.IGNORECASE)
NOT_FOLLOWABLE = re.compile(
    r"title and site are not known|标题和网站不详|not published elsewhere|未在别处发表",
    re.IGNORECASE,
)


def _parts(source: str) -> list[str]:
    return [part.strip() for part in re.split(r";|；", source) if part.strip()]


def _has_followable(source: str) -> bool:
    if NOT_FOLLOWABLE.search(source):
        return False
    if URL.search(source) or HOST_PATH.search(source) or ISSUE.search(source):
        return True
    if any(_is_repo(m) for m in REPO.finditer(source)):
        return True
    for part in _parts(source):
        for doc in (PUBLISHED_DOC, TITLED_DOC, NAMED_SOURCE):
            match = doc.search(part)
            if match and SECTION.search(part, match.start()):
                return True
    return False


def _is_repo(match: re.Match[str]) -> bool:
    """"owner/repo", not "10.3.0/11.0.0", "gfx1150/gfx1151", "AI 5 340/330" or "and/or"."""
    owner, repo = match.groups()
    text = match.group(0)
    if re.fullmatch(r"[\d.x]+/[\d.x]+", text) or re.match(r"gfx\d", owner):
        return False
    if owner.lower() in {"and", "or", "amd", "ati", "i", "o"} or repo.lower() in {"or", "and"}:
        return False
    return not (owner.isdigit() or repo.isdigit())


def _bare_files(part: str) -> list[str]:
    """File names in one ;-part that nothing before them locates."""
    bare = []
    for match in FILE_NAME.finditer(part):
        before = part[: match.start()]
        inside_url = any(u.start() <= match.start() < u.end()
                         for u in [*URL.finditer(part), *HOST_PATH.finditer(part)])
        located = (inside_url or any(_is_repo(m) for m in REPO.finditer(before))
                   or HOST_PATH.search(before) or URL.search(before)
                   or KNOWN_PROJECTS.search(before) or "/" in match.group(0)
                   or _path_with_repo(part, match))
        if not located:
            bare.append(match.group(0))
    return bare


def _located_before(before: str) -> bool:
    return bool(any(_is_repo(m) for m in REPO.finditer(before)) or HOST_PATH.search(before)
                or URL.search(before) or KNOWN_PROJECTS.search(before))


def _path_with_repo(part: str, match: re.Match[str]) -> bool:
    """The file is the last piece of a path ("docs/reference/gpu-specs.rst") that follows a
    repository or a known project."""
    start = match.start()
    while start > 0 and part[start - 1] not in " \t(,'\"":
        start -= 1
    path = part[start: match.end()]
    if "/" not in path:
        return False
    before = part[:start]
    return bool(any(_is_repo(m) for m in REPO.finditer(before)) or KNOWN_PROJECTS.search(before)
                or HOST_PATH.search(before))


def problems(source: str) -> list[str]:
    """Why ``source`` is not a public reference a user can follow ([] when it is)."""
    found: list[str] = []
    if not source.strip():
        return ["empty"]
    own_record = bool(OWN_RECORD.search(source)) and not NOT_FOLLOWABLE.search(source)
    source = OWN_RECORD.sub("this repository's record", source)
    for pattern, why in INTERNAL_WORDS:
        match = re.search(pattern, source, re.IGNORECASE)
        if match:
            found.append(f"{why} ({match.group(0)!r})")
    for match in LEGEND_CODES.finditer(source):
        found.append(f"a short code only a header comment explains ({match.group(0)!r})")
    for part in _parts(source):
        found += [f"a path in this repository ({m.group(0)!r})" for m in OWN_PATH.finditer(part)
                  if not _located_before(part[: m.start()])]
        found += [f"a file name without its repository or site ({name!r})"
                  for name in _bare_files(part)]
    if not (own_record or _has_followable(source)):
        found.append("nothing a user can follow (no URL, issue, repository, or named document"
                     " with its section)")
    return list(dict.fromkeys(found))


def _sources(node: Any, where: str) -> Iterator[tuple[str, str]]:
    if isinstance(node, dict):
        label = next((str(node[k]) for k in ("id", "pci_id", "gfx", "version", "name", "family")
                      if isinstance(node.get(k), str)), "")
        here = f"{where} ({label})" if label else where
        for key, value in node.items():
            if isinstance(value, str) and (key == "source" or key.startswith("source_")):
                yield f"{here}.{key}", value
            elif isinstance(value, dict | list):
                yield from _sources(value, f"{where}.{key}" if isinstance(value, dict) else key)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _sources(item, f"[[{where}]] row {index + 1}")


def file_sources(filename: str) -> list[tuple[str, str]]:
    with (DATA / filename).open("rb") as handle:
        return list(_sources(tomllib.load(handle), filename))


def test_every_data_file_is_checked() -> None:
    assert {"gpus.toml", "support.toml", "explain.toml", "references.toml"} <= set(FILES)
    assert all(file_sources(name) for name in FILES), "a data file without any source"


@pytest.mark.parametrize("filename", FILES)
def test_every_source_is_a_public_reference(filename: str) -> None:
    offenders = [f"{where}: {text!r}\n    -> " + "; ".join(why)
                 for where, text in file_sources(filename) if (why := problems(text))]
    assert not offenders, (f"{filename}: {len(offenders)} source(s) a user cannot follow "
                           "(docs/knowledge.md, 'The source rule'):\n" + "\n".join(offenders))


# -- the rule itself --------------------------------------------------------------------------

REFUSED = [
    "rocm-facts.md",
    "rocm-facts 3.2",
    "research notes",
    "research notes, section 4",
    "anchors-performance 5.1 (RDNA 3 Wikipedia infobox)",
    "seed 001 section 6.3",
    "fixture apt-expkeysig-rocm-2019.txt (ROCm/ROCm#859)",
    "../shared/research/rocm-facts.md",
    "tests/fixtures/reports/h200-sd15.json: 4.5 GB",
    "IDS, SPECS",
    "THUNK (gfxip_lookup_table)",
    "CORE-10.1 (release notes)",
    "PT-PREV",
    "COMPAT; rocm.toml (current = 7.1)",
    "overrides.toml rule",
    "METHODOLOGY.md",
    "notes.txt",
    "public os-release fixtures (ID=zorin)",
    "a Chinese blog post whose title and site are not known (it opens with 'x'), section 6",
    "the rocmate project's own measurement, not published elsewhere",
    "this repository's tests/fixtures/machines/rx6600-ubuntu2404-fresh/SOURCE.md",
    "this repository's core/bench/worker/suites/llm.py",
    "this repository's docs/../core/bench/worker/suites/llm.py",
    "this repository's docs/bench.md; rocm-facts 3.2",
    "this repository's docs/bench.md; seed 001",
    "this repository's docs/bench.md; PT-PREV",
    "this repository's tests/fixtures/reports/x.json; notes.txt",
    "this repository's docs/bench.md, not published elsewhere",
    "this repository's",
    "docs/bench.md, section 'Method'",
    "本仓库的core/bench/runner.py",
    "",
]

ACCEPTED = [
    "ROCm/ROCm#859",
    "pytorch/pytorch#132570 (roc-obj-ls: gfx900 in torch 2.5 ROCm wheels)",
    "unslothai/unsloth#8412",
    "mosaicml/llm-foundry issue #1153 (user report)",
    "https://rocm.docs.amd.com/en/latest/reference/gpu-specs.html",
    "download.pytorch.org/whl/rocm6.2 (index page)",
    "ROCm/TheRock RELEASES.md (gfx1151 index)",
    "huggingface/diffusers docs/source/en/optimization/torch2.0.mdx",
    "libdrm data/amdgpu.ids (7590, C0)",
    "Linux kernel drivers/gpu/drm/amd/amdkfd/kfd_device.c, kgd2kfd_probe()",
    "ROCm installation docs for Linux, quick start (usermod -a -G render,video)",
    "PyTorch documentation, CUDA semantics: memory management",
    "PCI ID repository (virtio-gpu)",
    "distro-info-data ubuntu.csv, row '20.10,Groovy Gorilla,groovy'",
    "the Chinese blog post \"AMD显卡跑PyTorch：ROCm安装与CUDA代码无缝迁移实战\" by 长河君, "
    "section 6.3",
    "中文博客文章《AMD显卡跑PyTorch：ROCm安装与CUDA代码无缝迁移实战》，作者长河君，第7.2节表格",
    "AMD's product page, Radeon RX 9070 GRE (https://www.amd.com/en/products/graphics/desktops/"
    "radeon/9000-series/amd-radeon-rx-9070-gre.html)",
    "this repository's tests/fixtures/reports/gpu/h200-health-resnet50-page.json (gemm 9.1 s)",
    "the rocmate project's own measurement, kept in this repository's docs/bench.md, section "
    "'Measured on the device machine's NVIDIA H200' (1,993 img/s)",
    "本仓库的docs/bench.md，“Measured on the device machine's NVIDIA H200”一节（1,993 img/s）",
]


@pytest.mark.parametrize("source", REFUSED)
def test_the_rule_refuses(source: str) -> None:
    assert problems(source), source


@pytest.mark.parametrize("source", ACCEPTED)
def test_the_rule_accepts(source: str) -> None:
    assert problems(source) == [], problems(source)
