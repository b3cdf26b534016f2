"""A table secret (`--code`) and a joiner that crashes in the lobby, over loopback."""

from __future__ import annotations

from e2e_helpers import Procs, bot_args, expect_success, same_valid_logs

LOOPBACK = "127.0.0.1"


def test_only_players_who_know_the_table_code_can_sit(procs: Procs) -> None:
    secret = ["--code", "blue fireworks"]
    host = procs.hanabi("host", "host", "--players", "2", "--no-mdns",
                        *bot_args(interface=LOOPBACK, name="Ann", extra=secret))
    address, port = host.table_address()
    wrong = procs.hanabi("wrong", "join", "--address", f"{address}:{port}",
                         *bot_args(interface=LOOPBACK, name="Eve",
                                   extra=["--code", "red fireworks"]))
    assert wrong.finish() != 0
    assert f"cannot join the table at {address}:{port}" in wrong.stderr
    assert "code" in wrong.stderr  # says the code is what went wrong
    none = procs.hanabi("none", "join", "--address", f"{address}:{port}",
                        *bot_args(interface=LOOPBACK, name="Nat"))
    assert none.finish() != 0
    assert "code" in none.stderr
    right = procs.hanabi("right", "join", "--address", f"{address}:{port}",
                         *bot_args(interface=LOOPBACK, name="Bob", extra=secret))
    expect_success([host, right])
    same_valid_logs([host.log_path, right.log_path])


def test_a_joiner_killed_in_the_lobby_comes_back_with_resume_and_plays(procs: Procs) -> None:
    host = procs.hanabi("host", "host", "--players", "3", "--no-mdns",
                        *bot_args(interface=LOOPBACK, name="Ann"))
    address, port = host.table_address()
    bob = procs.hanabi("bob", "join", "--address", f"{address}:{port}",
                       *bot_args(interface=LOOPBACK, name="Bob"))
    host.wait_for(r"Bob \(.*\) sits down")
    bob.kill()  # still in the lobby: the table waits for a third player
    back = procs.hanabi("bob-again", "join", "--resume",
                        *bot_args(interface=LOOPBACK, name="Bob"), data_dir=bob.data_dir)
    cid = procs.hanabi("cid", "join", "--address", f"{address}:{port}",
                       *bot_args(interface=LOOPBACK, name="Cid"))
    expect_success([host, back, cid])
    same_valid_logs([host.log_path, back.log_path, cid.log_path])
