"""SteamOS 3 (ID=steamos, ID_LIKE=arch) is Arch-based; SteamOS 2 (ID=steamos, ID_LIKE=debian) was
Debian-based: the family comes from ID_LIKE, never from the shared ID (which-distro/os-release
steamos/3.7.16; ansible/ansible steamos_2.0.json)."""

from __future__ import annotations

from core.knowledge.loader import load_knowledge


def test_steamos_3_is_arch_and_steamos_2_is_debian() -> None:
    kb = load_knowledge()
    arch = kb.family_for("steamos", ["arch"])
    debian = kb.family_for("steamos", ["debian"])
    assert arch is not None and arch.name == "Arch"
    assert debian is not None and debian.name == "Debian"
