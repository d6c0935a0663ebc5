"""Where GPU variables are set: shell files, /etc/environment, fish universal variables."""

from __future__ import annotations

from core.probe.environment import scan_file


def test_bash_exports_and_plain_assignments() -> None:
    text = (
        "# comment HSA_OVERRIDE_GFX_VERSION=1.2.3\n"
        "alias ll='ls -l'\n"
        "export HSA_OVERRIDE_GFX_VERSION=10.3.0  # for my 6700 XT\n"
        'HIP_VISIBLE_DEVICES="1"\n'
        "export PYTORCH_HIP_ALLOC_CONF='expandable_segments:True';\n"
        "export HSA_OVERRIDE_GFX_VERSION_2=11.0.0\n"
        "export PATH=$PATH:/opt/rocm/bin\n"
    )
    found = [(s.name, s.value, s.line) for s in scan_file("/home/a/.bashrc", text)]
    assert found == [
        ("HSA_OVERRIDE_GFX_VERSION", "10.3.0", 3),
        ("HIP_VISIBLE_DEVICES", "1", 4),
        ("PYTORCH_HIP_ALLOC_CONF", "expandable_segments:True", 5),
        ("HSA_OVERRIDE_GFX_VERSION_2", "11.0.0", 6),
    ]


def test_fish_forms() -> None:
    config = "set -gx HSA_OVERRIDE_GFX_VERSION 11.0.0\nset -x HIP_VISIBLE_DEVICES 0\n"
    found = [(s.name, s.value) for s in scan_file("config.fish", config)]
    assert found == [("HSA_OVERRIDE_GFX_VERSION", "11.0.0"), ("HIP_VISIBLE_DEVICES", "0")]
    universal = (
        "# This file contains fish universal variable definitions.\n"
        "SETUVAR --export HSA_OVERRIDE_GFX_VERSION:10\\x2e3\\x2e0\nSETUVAR fish_color_cwd:green\n"
    )
    found = [(s.name, s.value) for s in scan_file("fish_variables", universal)]
    assert found == [("HSA_OVERRIDE_GFX_VERSION", "10.3.0")]


def test_etc_environment_and_garbage() -> None:
    assert [
        s.value for s in scan_file("/etc/environment", 'HSA_OVERRIDE_GFX_VERSION="9.0.0"\n')
    ] == ["9.0.0"]
    assert scan_file("x", "\x00\xff HSA_OVERRIDE_GFX_VERSIONX=1\n") == []
    assert scan_file("x", "") == []
