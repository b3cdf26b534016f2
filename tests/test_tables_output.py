"""`hanabi-p2p tables` fits a classic 80-column terminal (its rows were 81 to 89 columns
wide with a default table name, a host name and a LAN address, and wrapped): long table,
host and variant names are cut with an ellipsis, never the seats, address or table id."""

from __future__ import annotations

import dataclasses

import pytest

from hanabi_p2p.commands.tables import SCREEN_COLUMNS, CheckedTable, format_tables
from hanabi_p2p.limits import MAX_PLAYER_NAME_CHARS, MAX_TABLE_NAME_CHARS
from hanabi_p2p.net.discovery import FoundTable, TableAd
from hanabi_p2p.net.version import PROTOCOL_VERSION
from hanabi_p2p.peer.probe import ProbeResult
from hanabi_p2p.ui.text import get_cwidth

FINGERPRINT = "K7QF-2M9D"
WIDEST_ADDRESS = "255.255.255.255"  # with a 5-digit port: the widest an address column gets


def listed(name: str, host: str, options: tuple[str, ...] = (), answered: bool = True,
           address: str = "192.168.1.23") -> CheckedTable:
    ad = TableAd(table_id=bytes(range(16)), name=name, variant="rainbow", options=options,
                 seats_taken=2, seats_total=5, host_fingerprint=FINGERPRINT, host_name=host)
    probe = ProbeResult(ad.table_id, bytes(32), ad.version, uses_secret=True)
    return CheckedTable(FoundTable(ad, address, 41019), probe if answered else None)


@pytest.mark.parametrize(
    ("name", "host"),
    [
        ("root's table", "root"),  # a default table name: 88 columns
        ("T" * MAX_TABLE_NAME_CHARS, "H" * MAX_PLAYER_NAME_CHARS),
        ("金曜日の夜のテーブル" * 4, "花子" * 12),  # two columns a character
    ],
    ids=["default", "longest", "wide"],
)
def test_every_line_fits_80_columns_and_keeps_what_identifies_a_table(
        name: str, host: str) -> None:
    tables = [listed(name, host, ("empty_clues", "choreography"), answered=False,
                     address=WIDEST_ADDRESS),
              listed(name, host)]
    lines = format_tables(tables).splitlines()
    rows = lines[:3]
    assert max(get_cwidth(line) for line in rows) <= SCREEN_COLUMNS == 80
    headings = rows[0].split()
    assert headings == ["NAME", "VARIANT", "SEATS", "HOST", "PASSWORD", "ADDRESS", "TABLE"]
    for row in rows[1:]:
        # what one needs to join or watch it is never cut
        assert "2/5" in row and FINGERPRINT in row and row.endswith("00010203")
    assert f"{WIDEST_ADDRESS}:41019" in rows[1] and "192.168.1.23:41019" in rows[2]
    assert rows[1].startswith("?" + name[:2]) and rows[2].startswith(name[:2])


def test_a_listing_that_fits_is_not_cut() -> None:
    rows = format_tables([listed("Friday", "Alice", address="10.0.0.5")]).splitlines()
    assert rows[1] == "Friday  rainbow  2/5    Alice K7QF-2M9D  yes       10.0.0.5:41019  00010203"


def test_a_cut_name_ends_in_an_ellipsis_and_columns_stay_aligned() -> None:
    rows = format_tables([listed("T" * MAX_TABLE_NAME_CHARS, "Alice Liddell", address="10.0.0.5"),
                          listed("B", "Bob", address="10.0.0.6")]).splitlines()
    assert rows[1].startswith("T" * 12 + "…  rainbow  2/5    Al… K7QF-2M9D  yes")
    assert max(get_cwidth(line) for line in rows) == SCREEN_COLUMNS  # cut no more than needed
    assert rows[1].index("2/5") == rows[2].index("2/5") == rows[0].index("SEATS")
    assert rows[1].index(FINGERPRINT) == rows[2].index(FINGERPRINT)


def test_a_table_of_another_protocol_version_says_whole_why_it_cannot_be_joined() -> None:
    table = listed("T" * MAX_TABLE_NAME_CHARS, "Alice", ("empty_clues",))
    ad = dataclasses.replace(table.table.ad, version=PROTOCOL_VERSION + 1)
    other = CheckedTable(FoundTable(ad, "192.168.1.23", 41019), table.probe)
    lines = format_tables([other]).splitlines()
    assert lines[2] == (f"'{'T' * MAX_TABLE_NAME_CHARS}' at 192.168.1.23:41019: protocol "
                        f"v{PROTOCOL_VERSION + 1}: cannot join (it needs another version of "
                        "hanabi-p2p)")


# -- a script reads it ------------------------------------------------------------------------

LONG_NAME = "Friday night at Ann's, the long table by the window"[:MAX_TABLE_NAME_CHARS]


@pytest.fixture
def found(monkeypatch: pytest.MonkeyPatch) -> list[CheckedTable]:
    """`tables` finds these two tables (no network): one answered, one did not."""
    from hanabi_p2p.commands import tables as command

    shown = [listed(LONG_NAME, "Hostess with a long name"),
             listed("Café Noël", "Bob", answered=False)]

    async def on_the_lan(interface: str, timeout: float) -> tuple[list[CheckedTable], int]:
        return shown, 1

    monkeypatch.setattr(command, "list_tables", on_the_lan)
    monkeypatch.setattr(command, "default_interface_address", lambda: "192.168.1.2")
    return shown


def test_piped_listing_cuts_no_name(found: list[CheckedTable],
                                    capsys: pytest.CaptureFixture[str]) -> None:
    from hanabi_p2p import cli

    assert cli.main(["tables"]) == 0  # stdout is captured: not a terminal
    out = capsys.readouterr().out
    assert LONG_NAME in out and "Hostess with a long name K7QF-2M9D" in out
    assert "…" not in out
    assert "Café Noël" in out


def test_tables_json_is_one_document_of_every_documented_key(
        found: list[CheckedTable], capsys: pytest.CaptureFixture[str]) -> None:
    import json
    from pathlib import Path

    from hanabi_p2p import cli

    assert cli.main(["tables", "--json"]) == 0
    out = capsys.readouterr().out
    assert out.isascii()  # what a peer chose reaches a terminal escaped
    doc = json.loads(out)
    assert doc["interface"] == "192.168.1.2" and doc["ignored_adverts"] == 1
    first, second = doc["tables"]
    assert first["name"] == LONG_NAME and first["host_name"] == "Hostess with a long name"
    assert second["name"] == "Café Noël"  # as sent: JSON escaped it
    assert (first["password"], first["answered"], first["genuine"]) == (True, True, True)
    assert (second["password"], second["answered"], second["genuine"]) == (None, False, False)
    assert first["seats_taken"] == 2 and first["seats_total"] == 5
    assert first["address"] == "192.168.1.23" and first["port"] == 41019
    assert first["table_id"] == bytes(range(16)).hex() and first["compatible"] is True
    doc_text = (Path(__file__).resolve().parent.parent / "docs" / "json.md").read_text()
    section = doc_text.split("## `tables --json`\n", 1)[1].split("\n## ", 1)[0]
    documented = {line.split("`")[1] for line in section.splitlines() if line.startswith("| `")}
    keys = set(doc) | {"tables"} | {f"tables[].{key}" for key in first}
    assert keys == documented


def test_a_timed_table_shows_its_clock_before_anyone_sits_down() -> None:
    timed = listed("Blitz", "Ann")
    timed = dataclasses.replace(timed, table=dataclasses.replace(
        timed.table, ad=dataclasses.replace(timed.table.ad, turn_timer=60, total_clock=900)))
    lines = format_tables([timed, listed("Slow", "Bob")], columns=120).splitlines()
    assert "rainbow timer 60s clock 900s" in lines[1]
    assert "timer" not in lines[2]
