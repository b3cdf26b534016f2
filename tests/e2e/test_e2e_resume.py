"""A peer killed mid-game comes back with `join --resume` and the game finishes: nothing of
it is lost (every entry is stored, fsync'd, before it is sent)."""

from __future__ import annotations

import time

import pytest
from e2e_helpers import Procs, bot_args, expect_success, verify_log
from netlab import NetLab

SLOW = ["--bot-delay", "0.05"]  # a game long enough to be killed in the middle of


@pytest.mark.netns
@pytest.mark.slow
@pytest.mark.parametrize("victim", ["host", "guest"])
def test_a_peer_killed_mid_game_resumes_and_the_game_finishes_and_verifies(
    netlab: NetLab, procs: Procs, victim: str
) -> None:
    h1, h2, h3 = netlab.lan(3)
    host = procs.hanabi("host", "host", "--players", "3", "--no-mdns",
                        *bot_args(interface=h1.address, name="Ann", extra=SLOW), ns=h1)
    address, port = host.table_address()
    guests = [
        procs.hanabi(name, "join", "--address", f"{address}:{port}",
                     *bot_args(interface=ns.address, name=name, extra=SLOW), ns=ns)
        for name, ns in (("Bob", h2), ("Cid", h3))
    ]
    peers = {"host": (host, h1), "guest": (guests[0], h2)}
    killed, where = peers[victim]
    killed.wait_for(r"turn 8:")
    killed.kill()
    assert "log: " not in killed.stdout  # it really died mid-game

    back = procs.hanabi(f"{killed.name}-resumed", "join", "--resume", "--bot", *SLOW,
                        data_dir=killed.data_dir, ns=where)
    survivors = [p for p in (host, *guests) if p is not killed]
    finished = expect_success([*survivors, back])
    assert "resumed from the saved log" in back.stdout
    assert back.log_path.parent.parent == killed.data_dir
    assert finished.digest


def test_the_others_say_whom_they_wait_for_while_a_peer_is_gone(procs: Procs) -> None:
    host = procs.hanabi("host", "host", "--players", "2", "--no-mdns",
                        *bot_args(interface="127.0.0.1", name="Ann", extra=SLOW))
    address, port = host.table_address()
    guest = procs.hanabi("guest", "join", "--address", f"{address}:{port}",
                         *bot_args(interface="127.0.0.1", name="Bob", extra=SLOW))
    host.wait_for(r"turn 2:")
    shown = len(host.output)
    guest.kill()
    # a new line, other than a turn Bob played just before dying, names Bob
    host.wait_for(r"(?m)^(?!turn ).*Bob", timeout=3, since=shown)


@pytest.mark.netns
def test_a_game_rides_out_a_cable_cut_for_a_moment_mid_game(netlab: NetLab, procs: Procs) -> None:
    h1, h2 = netlab.lan(2)
    host = procs.hanabi("host", "host", "--players", "2", "--no-mdns",
                        *bot_args(interface=h1.address, name="Ann"), ns=h1)
    address, port = host.table_address()
    guest = procs.hanabi("guest", "join", "--address", f"{address}:{port}",
                         *bot_args(interface=h2.address, name="Bob"), ns=h2)
    guest.wait_for(r"turn 4:")
    h2.set_link(False)  # the game stalls: every turn needs both players
    assert "game over" not in guest.output
    time.sleep(2)  # what is sent meanwhile waits in the sockets' buffers
    h2.set_link(True)
    expect_success([host, guest])


def test_a_peer_gone_for_good_ends_the_game_after_the_wait_timeout_naming_it(
    procs: Procs,
) -> None:
    patience = ["--wait-timeout", "2"]
    host = procs.hanabi("host", "host", "--players", "2", "--no-mdns",
                        *bot_args(interface="127.0.0.1", name="Ann", extra=[*SLOW, *patience]))
    address, port = host.table_address()
    guest = procs.hanabi("guest", "join", "--address", f"{address}:{port}",
                         *bot_args(interface="127.0.0.1", name="Bob", extra=SLOW))
    host.wait_for(r"turn 2:")
    guest.kill()
    assert host.finish() != 0
    reason = host.stderr.strip().splitlines()[-1]
    assert reason.startswith("hanabi-p2p host: game not finished: waited ") and "Bob (" in reason
    assert "unreachable" in reason  # gone is not guilty: nobody is blamed
    verify_log(host.log_path, finished=False)


def test_a_resumed_host_brings_back_the_computer_players_it_ran(procs: Procs) -> None:
    """`host --bots 1`, a person joins, the host dies mid-game and comes back with
    `join --resume`: its computer seat comes back with it and the game finishes."""
    host = procs.hanabi("host", "host", "--players", "3", "--bots", "1", "--no-mdns",
                        *bot_args(interface="127.0.0.1", name="Ann", extra=SLOW))
    address, port = host.table_address()
    guest = procs.hanabi("guest", "join", "--address", f"{address}:{port}",
                         *bot_args(interface="127.0.0.1", name="Bob", extra=SLOW))
    host.wait_for(r"turn 6:")
    host.kill()
    back = procs.hanabi("host-resumed", "join", "--resume", "--bot", *SLOW,
                        "--interface", "127.0.0.1", data_dir=host.data_dir)
    finished = expect_success([guest, back])
    assert "resumed from the saved log" in back.stdout
    assert finished.digest
    bot_logs = list((host.data_dir / "bots" / "bot1").rglob("*.hlog"))
    assert len(bot_logs) == 1
    verify_log(bot_logs[0], finished=True)
