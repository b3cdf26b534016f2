"""Joining by address over the machine's loopback (no mDNS, no namespaces, no root)."""

from __future__ import annotations

from e2e_helpers import Procs, bot_args, expect_success

from hanabi_p2p.datadir import DataDir

LOOPBACK = "127.0.0.1"


def test_a_bot_joins_by_address_and_the_game_finishes_with_equal_valid_logs(
    procs: Procs,
) -> None:
    host = procs.hanabi("host", "host", "--players", "2", "--no-mdns",
                        *bot_args(interface=LOOPBACK, name="Ann"))
    address, port = host.table_address()
    guest = procs.hanabi("guest", "join", "--address", f"{address}:{port}",
                         *bot_args(interface=LOOPBACK, name="Bob"))
    expect_success([host, guest])
    assert "Ann" in guest.stdout and "Bob" in host.stdout  # each saw the other sit down


def test_a_late_joiner_by_address_is_refused_clearly_and_the_game_goes_on(
    procs: Procs,
) -> None:
    slow = ["--bot-delay", "0.05"]  # keep the game running while the late joiner knocks
    host = procs.hanabi("host", "host", "--players", "2", "--no-mdns",
                        *bot_args(interface=LOOPBACK, name="Ann", extra=slow))
    address, port = host.table_address()
    guest = procs.hanabi("guest", "join", "--address", f"{address}:{port}",
                         *bot_args(interface=LOOPBACK, name="Bob", extra=slow))
    host.wait_for(r"turn 2:")
    late = procs.hanabi("late", "join", "--address", f"{address}:{port}",
                        *bot_args(interface=LOOPBACK, name="Cid"))
    assert late.finish() != 0
    # (once seated, a table takes links of a few peers that are not players, for
    # spectators: the late joiner learns from the log that its game has begun, and stops)
    assert "the table is full and its game has begun" in late.stderr
    assert "hanabi-p2p watch" in late.stderr
    assert not (late.data_dir / "games").exists() or not any((late.data_dir / "games").iterdir())
    assert not list(DataDir(late.data_dir).private_dir.glob("*")), "a refused join leaves nothing"
    expect_success([host, guest])


def test_a_joiner_that_loses_the_race_for_the_last_seat_is_told_so_and_stops(
    procs: Procs,
) -> None:
    host = procs.hanabi("host", "host", "--players", "2", "--no-mdns",
                        *bot_args(interface=LOOPBACK, name="Ann"))
    address, port = host.table_address()
    trigger = procs.workdir / "ask-for-a-seat-now"
    loser = procs.script("Lou", "scripted_peer.py", "hesitant-join",
                         "--address", f"{address}:{port}", "--interface", LOOPBACK,
                         "--data-dir", str(procs.data_dir("Lou")), "--name", "Lou",
                         "--trigger", str(trigger))
    loser.wait_for("holding back my request")  # in the lobby, linked to the host
    guest = procs.hanabi("guest", "join", "--address", f"{address}:{port}",
                         *bot_args(interface=LOOPBACK, name="Bob"))
    host.wait_for("seated: ")
    trigger.touch()  # Lou's request now comes too late
    assert loser.finish() != 0
    assert "the table is full: the host seated other players" in loser.stderr
    assert loser.log_path.exists()
    expect_success([host, guest])
