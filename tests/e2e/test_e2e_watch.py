"""Spectators with real processes on a namespace LAN: a `hanabi-p2p watch` that arrives late
catches up and ends with the players' final state and log digest; without the table's
consent it never decodes a card in anyone's hand, with `host --spectators` it sees every one.

Each table is one `host --bot --bots 2` process (three seats, three keys, one machine); the
spectator is its own process on another host of the LAN, printing headless lines. What it
decoded is read from its `hands seen:` lines (every card of every hand, by deck position, as
its session knows it after each turn) and checked against the deck audit of the players'
log. Besides that it holds its saved log (no entry of its own in it) and its identity key:
no deck seed, no private file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_helpers import Proc, Procs, bot_args, expect_success
from netlab import Host, NetLab, require_netlab

from hanabi_p2p.log.storage import load
from hanabi_p2p.rules.cards import Card
from hanabi_p2p.session.verify import verify_file
from hanabi_p2p.verdict_cache import verdict_path

pytestmark = pytest.mark.netns

# Namespaces of this suite, apart from every other suite's in `ip netns`.
LAB_PREFIX = "hpw"
PLAYERS = 3
# Long enough a game for a late spectator to start, find the table and catch up while it is
# still being played; short enough to keep the test to seconds.
BOT_DELAY = ["--bot-delay", "0.15"]
# The spectator starts once the players have taken this many turns.
LATE_AFTER_TURN = 5
HANDS_SEEN = re.compile(r"^hands seen: (.*)$", re.M)
CARD = re.compile(r"\b(\d+)=([^\s;]+)")
TURN = re.compile(r"^turn (\d+): ", re.M)
GAME_OVER = re.compile(r"^Game over: .*$", re.M)
UNKNOWN = "??"


@pytest.fixture
def labs() -> Iterator[tuple[NetLab, NetLab]]:
    """Two LANs (one per table, so both games run at once), torn down after the test."""
    require_netlab()
    with NetLab(LAB_PREFIX) as first, NetLab(LAB_PREFIX) as second:
        yield first, second


def open_table(procs: Procs, host: Host, table: str, *extra: str) -> Proc:
    return procs.hanabi(f"{table}-players", "host", "--table", table,
                        "--players", str(PLAYERS), "--bots", str(PLAYERS - 1), *extra,
                        *bot_args(interface=host.address, name=f"{table}0", extra=BOT_DELAY),
                        ns=host)


def watch(procs: Procs, host: Host, name: str, *how: str) -> Proc:
    return procs.hanabi(name, "watch", *how, "--headless", "--interface", host.address,
                        "--name", name, ns=host)


def seen_hands(spectator: Proc) -> list[dict[int, str]]:
    """Every `hands seen:` line the spectator printed: deck position -> face or '??'."""
    lines = HANDS_SEEN.findall(spectator.stdout)
    assert lines, f"{spectator.name} printed no hands\n" + spectator.describe()
    return [{int(position): face for position, face in CARD.findall(line)} for line in lines]


def audited_faces(log: Path) -> dict[int, Card]:
    report = verify_file(load(log))
    assert report.faces, f"{log}: no audited faces"
    return report.faces


def assert_caught_up(players: Proc, spectator: Proc) -> None:
    """It arrived late, yet it tells every turn and the same end; nothing in its log is its
    own (it never posts), and (checked by expect_success) its log has the players' digest."""
    assert TURN.findall(spectator.stdout) == TURN.findall(players.stdout)
    assert "turn 1: " in spectator.stdout  # the turns before it came, caught up from a peer
    assert GAME_OVER.findall(spectator.stdout) == GAME_OVER.findall(players.stdout)
    authors = {entry.author for entry in load(spectator.log_path).entries}
    assert authors == {entry.author for entry in load(players.log_path).entries}
    assert len(authors) == PLAYERS
    # and it holds nothing else of the game: no deck seed, no private file at all; only
    # the verdict its program found, beside the log, for `log list` (it audited the deck)
    assert spectator.data_dir is not None
    verdict = verdict_path(spectator.log_path)
    assert json.loads(verdict.read_text())["row"]["verdict"] == "valid"
    private = [p for p in spectator.data_dir.rglob("*") if p.is_file()
               and p.suffix not in (".hlog", ".pem") and p != verdict]
    assert private == [], private


def test_a_late_spectator_catches_up_and_sees_hands_only_with_the_tables_consent(
    labs: tuple[NetLab, NetLab], procs: Procs
) -> None:
    closed_lan, open_lan = labs[0].lan(2), labs[1].lan(2)
    closed = open_table(procs, closed_lan[0], "closed")
    shown = open_table(procs, open_lan[0], "shown", "--spectators")
    address, port = shown.table_address()
    closed.table_address()
    closed.wait_for(rf"(?m)^turn {LATE_AFTER_TURN}: ")
    shown.wait_for(rf"(?m)^turn {LATE_AFTER_TURN}: ")
    # one found by mDNS under its name, one at the address the host prints
    outsider = watch(procs, closed_lan[1], "Olga", "closed", "--browse-seconds", "3")
    friend = watch(procs, open_lan[1], "Fred", "--address", f"{address}:{port}")

    expect_success([closed, outsider])
    expect_success([shown, friend])
    assert_caught_up(closed, outsider)
    assert_caught_up(shown, friend)

    # the players saw them come (the host's printout: its screen's log lines)
    assert re.search(r"(?m)^Olga \(\S+\) is watching \(public view only\)$", closed.stdout)
    assert re.search(r"(?m)^Fred \(\S+\) is watching, and sees every hand$", shown.stdout)

    # without consent: not one card in anyone's hand decoded, after any turn
    for hands in seen_hands(outsider):
        assert hands and set(hands.values()) == {UNKNOWN}, hands

    # with consent: by the end, every card in every hand, exactly as the audit has it
    truth = audited_faces(shown.log_path)
    last = seen_hands(friend)[-1]
    assert len(last) >= PLAYERS * 4  # the hands at the end (the last rounds draw nothing)
    assert last == {position: str(truth[position]) for position in last}
