"""The PyTorch family table (resources/data/torch_family.toml): which distributions are the
family, the torchvision and torchaudio made with each torch, and the index each build of a
local version tag comes from (issue 34)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from core.i18n import Localized
from core.knowledge.rows import (
    KnowledgeError,
    check_top_level,
    is_wheel_version,
    read_table,
    rows,
    unique,
)
from core.resources import data_dir

FILE = "torch_family.toml"
ROLES = ("torch", "vision", "audio", "triton", "extension")
ROCM = ("index", "replaced", "none")
KINDS = ("cpu", "cuda", "rocm", "none")


@dataclass(frozen=True)
class Member:
    name: str
    """The canonical distribution name (PEP 503)."""
    role: str
    rocm: str
    """``index``, ``replaced`` or ``none`` (the file's header says what each means)."""
    source: str
    note: Localized | None = None


@dataclass(frozen=True)
class Pair:
    torch: str
    torchvision: str
    torchaudio: str | None
    source: str


@dataclass(frozen=True)
class IndexAudio:
    """The torchaudio an index shared by several releases carries for one local label (AMD's
    index numbers it apart from torch: 2.11.0.2+rocm10.0.0 beside torch 2.13.0+rocm10.0.0)."""

    local: str
    torchaudio: str
    source: str


@dataclass(frozen=True)
class BuildIndex:
    kind: str
    index: str
    """The index URL; ``{tag}`` stands for the local tag."""
    source: str


@dataclass(frozen=True)
class TorchFamily:
    members: tuple[Member, ...]
    pairs: tuple[Pair, ...]
    builds: tuple[BuildIndex, ...]
    audio: tuple[IndexAudio, ...] = ()

    def member(self, name: str) -> Member | None:
        return next((m for m in self.members if m.name == name), None)

    def pair(self, torch: str) -> Pair | None:
        """The torchvision/torchaudio made with ``torch`` (its public version, no ``+tag``)."""
        return next((p for p in self.pairs if p.torch == torch), None)

    def audio_for(self, local: str) -> IndexAudio | None:
        return next((a for a in self.audio if a.local == local), None)

    def build_index(self, kind: str, tag: str | None) -> str | None:
        row = next((b for b in self.builds if b.kind == kind), None)
        if row is None:
            return None
        if "{tag}" in row.index:
            return row.index.replace("{tag}", tag) if tag else None
        return row.index


def parse_family(data: dict[str, object]) -> TorchFamily:
    check_top_level(FILE, data, ("member", "pair", "audio", "build"))
    members = []
    for row in rows(FILE, data, "member"):
        row.check_keys(("name", "role", "rocm", "source"), ("note", "note_zh_CN"))
        role, rocm = row.text("role"), row.text("rocm")
        if role not in ROLES:
            raise row.fail(f"role must be one of {', '.join(ROLES)}")
        if rocm not in ROCM:
            raise row.fail(f"rocm must be one of {', '.join(ROCM)}")
        members.append(Member(row.text("name"), role, rocm, row.source(), row.opt_words("note")))
    unique(FILE, "member", (m.name for m in members), "name")
    if not any(m.role == "torch" for m in members):
        raise KnowledgeError(f"{FILE}: no member with role torch")
    pairs = []
    for row in rows(FILE, data, "pair"):
        row.check_keys(("torch", "torchvision", "torchaudio", "source"), ())
        torch = row.str_list("torch", required=True, check=is_wheel_version, what="a version")
        vision = row.str_list("torchvision", check=is_wheel_version, what="a version")
        audio = row.data.get("torchaudio")
        if not isinstance(audio, list) or not all(isinstance(a, str) for a in audio):
            raise row.fail("torchaudio must be a list of versions ('' for not known)")
        if not len(torch) == len(vision) == len(audio):
            raise row.fail("torch, torchvision and torchaudio must pair one to one")
        if any(a and not is_wheel_version(a) for a in audio):
            raise row.fail("torchaudio holds something that is not a version")
        pairs += [Pair(t, v, a or None, row.source()) for t, v, a in zip(torch, vision, audio,
                                                                          strict=True)]
    unique(FILE, "pair", (p.torch for p in pairs), "torch")
    builds = []
    for row in rows(FILE, data, "build"):
        row.check_keys(("kind", "index", "source"), ())
        kind, index = row.text("kind"), row.text("index")
        if kind not in KINDS:
            raise row.fail(f"kind must be one of {', '.join(KINDS)}")
        if not index.startswith("https://"):
            raise row.fail("index must start with https://")
        builds.append(BuildIndex(kind, index, row.source()))
    unique(FILE, "build", (b.kind for b in builds), "kind")
    audio = []
    for row in rows(FILE, data, "audio", required=False):
        row.check_keys(("local", "torchaudio", "source"), ())
        version = row.text("torchaudio")
        if not is_wheel_version(version):
            raise row.fail("torchaudio must be a version")
        audio.append(IndexAudio(row.text("local"), version, row.source()))
    unique(FILE, "audio", (a.local for a in audio), "local")
    return TorchFamily(tuple(members), tuple(pairs), tuple(builds), tuple(audio))


def load_torch_family(folder: Path | None = None) -> TorchFamily:
    if folder is None:
        return _default()
    return parse_family(read_table(folder, FILE))


@lru_cache(maxsize=1)
def _default() -> TorchFamily:
    return parse_family(read_table(data_dir(), FILE))
