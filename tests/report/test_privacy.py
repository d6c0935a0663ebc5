"""No user name, host name, home path or serial number in anything rocmate writes: every
writer, the history, and the CLI's exports, from reports seeded with a fake person's details."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.cli import main as rocmate
from core.report.history import History
from core.report.model import to_json
from core.report.privacy import (
    _VOCABULARY,
    Identity,
    leaks,
    learn,
    scrub_data,
    scrub_report,
    scrub_text,
)
from core.report.text import report_text
from core.report.writers import render
from tests.report.support import ALL_REPORTS, CPU, HOME, HOST, SECRETS, USER, load, seeded


def main(argv: list[str]) -> int:
    """``rocmate report ARGV``."""
    return rocmate(["report", *argv])


def test_the_seeded_report_really_carries_the_secrets() -> None:
    raw = to_json(seeded())
    assert leaks(raw, SECRETS) == SECRETS


@pytest.mark.parametrize("fmt", ["json", "html", "md"])
@pytest.mark.parametrize("identity", [None, Identity(frozenset({USER}), frozenset({HOST}),
                                                      frozenset({HOME}))],
                         ids=["learned-from-the-report", "given"])
def test_no_writer_lets_a_secret_through(fmt: str, identity: Identity | None) -> None:
    out = render(seeded(), fmt, baseline=seeded(), baseline_label=f"{HOME}/Downloads/theirs.json",
                 label=f"{USER}'s run", references=True, all_cards=True, identity=identity)
    assert leaks(out, SECRETS) == []
    plain = out.replace("\\_", "_")  # Markdown escapes underscores
    assert "~/.config/miopen" in plain  # paths stay useful, without the name
    assert "HIP_VISIBLE_DEVICES" in plain  # harmless variables stay


def test_text_of_a_scrubbed_report_has_no_secret() -> None:
    assert leaks(report_text(scrub_report(seeded())), SECRETS) == []


def test_the_history_stores_no_secret(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite"
    with History(db, identity=Identity()) as h:
        ids = h.insert(seeded(), origin=f"{HOME}/Downloads/{USER}-report.json")
        assert leaks(to_json(h.report(ids[0])), SECRETS) == []
        assert h.entry(ids[0]).origin == "~/Downloads/<user>-report.json"
    con = sqlite3.connect(db)
    rows = con.execute("SELECT * FROM runs").fetchall()
    con.close()
    assert leaks(repr(rows), SECRETS) == []
    assert leaks(db.read_bytes().decode("latin-1"), SECRETS) == []


def test_the_cli_exports_and_shows_no_secret(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "h.sqlite")
    theirs = tmp_path / f"{USER}-report.json"
    theirs.write_text(to_json(seeded()))
    assert main(["--db", db, "import", str(theirs)]) == 0
    outputs = [capsys.readouterr().out]
    for suffix in ("json", "html", "md"):
        out = tmp_path / f"out.{suffix}"
        assert main(["--db", db, "export", "1", "-o", str(out), "--references"]) == 0
        outputs.append(out.read_text())
        assert main(["render", str(theirs), "--format", suffix]) == 0
        outputs.append(capsys.readouterr().out)
    for args in (["list"], ["show", "1"], ["show", "2"], ["compare", "1", "2", "--references"],
                 ["compare", "1", str(theirs), "--format", "md"], ["list", "--json"]):
        assert main(["--db", db, *args]) == 0
        outputs.append(capsys.readouterr().out)
    for out in outputs:
        assert leaks(out, SECRETS) == [], out[:300]


def test_scrubbing_a_clean_report_changes_nothing() -> None:
    for path in ALL_REPORTS:
        report = load(path)
        assert scrub_report(report) == report
        assert scrub_report(report, Identity.current()) == report


def test_what_is_removed_and_what_is_kept() -> None:
    data = {
        "platform": {"distro_id": "ubuntu", "codename": "noble", "hostname": "ubuntu",
                     "kernel": "6.8.0-45-generic"},
        "env": {"USER": "ubuntu", "HOME": "/home/ubuntu", "ROCM_PATH": "/opt/rocm",
                "MIOPEN_USER_DB_PATH": "/home/ubuntu/.config/miopen"},
        "gpu": {"name": "Radeon RX 7900 XTX", "gfx": "gfx1100", "pci_id": "1002:744c",
                "pci_bus_id": "0000:03:00.0", "Serial_Number": "123", "gpu_uuid": "x"},
    }
    out = scrub_data(data)
    # "ubuntu" is a distribution as well as a common account name: never replaced as a word
    assert out["platform"] == {"distro_id": "ubuntu", "codename": "noble",
                               "kernel": "6.8.0-45-generic"}
    assert out["env"] == {"ROCM_PATH": "/opt/rocm", "MIOPEN_USER_DB_PATH": "~/.config/miopen"}
    assert out["gpu"] == {"name": "Radeon RX 7900 XTX", "gfx": "gfx1100", "pci_id": "1002:744c",
                          "pci_bus_id": "0000:03:00.0"}


@pytest.mark.parametrize(("text", "expected"), [
    ("/home/alice/venv/bin/python", "~/venv/bin/python"),
    ("cd /home/alice && ls", "cd ~ && ls"),
    ("/var/home/alice/x", "~/x"),
    ("/Users/alice/Library", "~/Library"),
    ("C:\\Users\\alice\\AppData", "~\\AppData"),
    ("/mnt/c/Users/alice/Downloads", "~/Downloads"),
    ("/root/.cache/torch", "~/.cache/torch"),
    ("/rootfs/x /opt/home/alice", "/rootfs/x /opt/home/alice"),  # not home folders
    ("alice@box:~$ rocmate", "<user>@<host>:~$ rocmate"),
    ("mail me at a.b@example.com", "mail me at <email>"),
    ("Serial Number: 1234ABCD, ok", "Serial Number: <serial>, ok"),
    ('"serial": "XYZ-99"', '"serial": "<serial>"'),
    ("GPU-12345678-1234-1234-1234-1234567890ab", "GPU-<uuid>"),
    ("mac 00:1a:2b:3c:4d:5e", "mac <mac>"),
    ("pci 0000:03:00.0 and 10de:2335", "pci 0000:03:00.0 and 10de:2335"),
    ("torch 2.4.1+rocm6.1 hip 6.1.40091-a8dbc0c19", "torch 2.4.1+rocm6.1 hip 6.1.40091-a8dbc0c19"),
])
def test_scrub_text(text: str, expected: str) -> None:
    assert scrub_text(text) == expected


def test_names_learned_from_a_report_are_replaced_everywhere() -> None:
    data = {"env": {"HOSTNAME": "Quasar-Rig.lan"}, "detail": "/home/zeb/x",
            "msg": "zeb on quasar-rig: ZEB was here; zebra stays"}
    ident = learn(data)
    assert "zeb" in ident.users and "Quasar-Rig" in ident.hosts
    assert scrub_data(data) == {"env": {}, "detail": "~/x",
                                "msg": "<user> on <host>: <user> was here; zebra stays"}


def test_the_current_identity_is_read() -> None:
    ident = Identity.current()
    assert ident.users and ident.homes


names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_", min_size=3, max_size=12).filter(
    lambda s: s[0].isalpha() and s not in _VOCABULARY)  # generic words stay words


@given(name=names, rest=st.text(alphabet="abcdefghij/ .-", max_size=30))
def test_a_home_path_never_keeps_its_name(name: str, rest: str) -> None:
    for prefix in ("/home/", "/var/home/", "/Users/", "/mnt/d/Users/"):
        text = f"error in {prefix}{name}/{rest} while {name} slept"
        out = scrub_text(text)
        assert name not in out.replace("<user>", "")


def test_cpu_fixture_is_unchanged_through_the_history(tmp_path: Path) -> None:
    with History(tmp_path / "h.sqlite") as h:
        (i,) = h.insert(load(CPU))
        assert h.report(i) == load(CPU)


def test_a_seeded_report_is_not_imported_twice(tmp_path: Path) -> None:
    with History(tmp_path / "h.sqlite", identity=Identity()) as h:
        ids, new = h.import_report(seeded(), origin="a.json")
        again, new_again = h.import_report(seeded(), origin="b.json")
        assert new and not new_again and again == ids
