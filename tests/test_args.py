"""Every bad argument of `host`, `join` and `play` is refused before anything is created:
no data directory, key, game log or private file is left behind (issue: a `host --table` of
41 characters used to leave games/*.hlog and private/* that `join --resume` then reopened)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from hanabi_p2p import cli
from hanabi_p2p.commands import host as host_command
from hanabi_p2p.commands import join as join_command
from hanabi_p2p.commands import play as play_command
from hanabi_p2p.commands.host import default_table_name
from hanabi_p2p.limits import MAX_PLAYER_NAME_CHARS, MAX_TABLE_NAME_CHARS

LOOPBACK = ["--interface", "127.0.0.1"]


class Started(Exception):
    """Raised instead of starting a game: the arguments were accepted."""


@pytest.fixture
def no_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Accepted arguments raise `Started` where the game would begin (nothing runs)."""

    def refuse_to_run(main: Callable[[], Awaitable[Any]], frontend: object, prog: str) -> int:
        raise Started

    for module in (host_command, join_command, play_command):
        monkeypatch.setattr(module, "run_game", refuse_to_run)


def left_behind(data: Path) -> list[str]:
    return sorted(str(p.relative_to(data)) for p in data.rglob("*")) if data.exists() else []


BAD_HOST = [
    ["--table", "t" * (MAX_TABLE_NAME_CHARS + 1)],
    ["--table", ""],
    ["--table", "   "],
    ["--table", "bad\x1b[2Jname"],
    ["--table", "tab\there"],
    ["--table", "evil\u202etxt"],
    ["--name", "n" * (MAX_PLAYER_NAME_CHARS + 1)],
    ["--name", "   "],
    ["--name", "line\nbreak"],
    ["--players", "1"],
    ["--players", "6"],
    ["--players", "3", "--bots", "3"],
    ["--bots", "-1"],
    ["--port", "70000"],
    ["--port", "-1"],
    ["--wait-timeout", "0"],
    ["--turn-timer", "0"],
    ["--turn-timer", "86401"],
    ["--bot-delay", "-1"],
    ["--code", "   "],
    ["--code", "x" * 300],
    ["--interface", "nope"],
    ["--interface", "0.0.0.0"],
    ["--interface", "192.0.2.77"],  # documentation-only: no machine of ours has it
]


@pytest.mark.socket
@pytest.mark.parametrize("bad", BAD_HOST, ids=lambda args: " ".join(args)[:30])
def test_refused_host_leaves_nothing_behind(bad: list[str], tmp_path: Path, no_games: None,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    args = ["host", "--bot", "--no-mdns", *LOOPBACK, "--data-dir", str(data), *bad]
    assert cli.main(args) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith("hanabi-p2p host: error: ") and err.count("\n") == 1, err
    assert left_behind(data) == []


BAD_JOIN = [
    ["--browse-seconds", "0"],
    ["--browse-seconds", "61"],
    ["--address", "nowhere"],
    ["--address", "127.0.0.1:0"],
    ["--address", "127.0.0.1:65536"],
    ["t" * (MAX_TABLE_NAME_CHARS + 1)],
    ["--name", "n" * (MAX_PLAYER_NAME_CHARS + 1)],
    ["--code", ""],
    ["--interface", "192.0.2.77"],
]


@pytest.mark.socket
@pytest.mark.parametrize("bad", BAD_JOIN, ids=lambda args: " ".join(args)[:30])
def test_refused_join_leaves_nothing_behind(bad: list[str], tmp_path: Path,
                                            no_games: None) -> None:
    data = tmp_path / "data"
    assert cli.main(["join", "--bot", *LOOPBACK, "--data-dir", str(data), *bad]) == 2
    assert left_behind(data) == []


def test_refused_play_leaves_nothing_behind(tmp_path: Path, no_games: None) -> None:
    data = tmp_path / "data"
    assert cli.main(["play", "--bot", "--data-dir", str(data), "--players", "7"]) == 2
    assert cli.main(["play", "--bot", "--data-dir", str(data), "--bot-delay", "-2"]) == 2
    assert left_behind(data) == []


@pytest.mark.socket
@pytest.mark.parametrize(
    "good",
    [
        [],
        ["--table", "t" * MAX_TABLE_NAME_CHARS],
        ["--table", "Pizza night ☕ Ünïcode"],
        ["--name", "n" * MAX_PLAYER_NAME_CHARS],
        ["--players", "5", "--bots", "4", "--port", "0", "--code", "blue moon"],
    ],
    ids=lambda args: " ".join(args)[:30],
)
def test_good_host_arguments_reach_the_game(good: list[str], tmp_path: Path,
                                            no_games: None) -> None:
    # the other half of the tests above: the checks do not refuse everything
    args = ["host", "--bot", "--no-mdns", *LOOPBACK, "--data-dir", str(tmp_path), *good]
    with pytest.raises(Started):
        cli.main(args)


def test_default_table_name_fits_the_limit() -> None:
    assert default_table_name("Ann") == "Ann's table"
    longest = default_table_name("n" * MAX_PLAYER_NAME_CHARS)
    assert len(longest) <= MAX_TABLE_NAME_CHARS and longest.endswith("'s table")


@pytest.mark.process
def test_host_with_a_41_character_table_name_exits_2_and_leaves_no_game(tmp_path: Path) -> None:
    """The reported case, as a real process: nothing to `join --resume` afterwards."""
    data = tmp_path / "data"
    result = subprocess.run(
        [sys.executable, "-m", "hanabi_p2p", "host", "--table", "x" * 41, "--bot", "--no-mdns",
         *LOOPBACK, "--data-dir", str(data)],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert "--table" in result.stderr and str(MAX_TABLE_NAME_CHARS) in result.stderr
    assert left_behind(data) == []


@pytest.mark.socket
def test_no_terminal_and_no_bot_is_refused_before_the_data_dir_is_touched(
    tmp_path: Path, no_games: None, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o777)
    data.chmod(0o777)  # would be tightened by a command that went on
    for command in (["host", "--no-mdns"], ["join", "--address", "127.0.0.1:4000"]):
        assert cli.main([*command, *LOOPBACK, "--data-dir", str(data)]) == cli.EXIT_USAGE
        assert "cannot show the table: the input is not a terminal" in capsys.readouterr().err
    assert left_behind(data) == [] and data.stat().st_mode & 0o777 == 0o777


@pytest.mark.socket
@pytest.mark.parametrize("command", [["tables", "--timeout"], ["join", "--browse-seconds"],
                                     ["watch", "--browse-seconds"]],
                         ids=lambda args: args[0])
def test_a_zero_browse_time_is_refused_with_the_range_it_accepts(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 0 is refused, so the message must not say "between 0 and 60" (which reads as allowed)
    data = ["--data-dir", str(tmp_path)]
    extra = {"tables": [], "join": ["--bot", *data], "watch": data}[command[0]]
    assert cli.main([*command, "0", *LOOPBACK, *extra]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert f"{command[1]} must be more than 0 and at most 60" in err, err


def test_the_way_back_names_the_data_dir_the_game_is_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`join --resume` without the --data-dir the game was played with finds nothing: the
    screen's "come back with" must name it (absolute, and quoted for the shell)."""
    from hanabi_p2p.commands.peerargs import choose_frontend

    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.chdir(tmp_path)
    parser = cli.build_parser("join")
    given = parser.parse_args(["join", "--data-dir", "my games", "--address", "127.0.0.1:4000"])
    frontend: Any = choose_frontend(given)
    where = tmp_path / "my games"
    assert frontend.resume_command == f"hanabi-p2p join --resume --data-dir '{where}'"
    default: Any = choose_frontend(parser.parse_args(["join"]))
    assert default.resume_command == "hanabi-p2p join --resume"


def test_the_report_names_a_log_file_only_if_one_was_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A lobby the player quit leaves no game file: no `log: PATH` pointing at nothing."""
    from hanabi_p2p.commands.peerargs import report_result
    from hanabi_p2p.peer.result import GameResult

    gone = tmp_path / "games" / "quit.hlog"
    assert report_result(GameResult(gone, failure="you left the table"), "hanabi-p2p join") == 1
    out, err = capsys.readouterr()
    assert "you left the table" in err and "log:" not in out + err
    kept = tmp_path / "kept.hlog"
    kept.write_bytes(b"")
    report_result(GameResult(kept, failure="the game was stopped"), "hanabi-p2p join")
    assert capsys.readouterr().out == f"log: {kept}\n"


@pytest.mark.socket
def test_a_port_in_use_is_refused_in_one_line_before_the_data_dir_is_touched(
    tmp_path: Path, no_games: None, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    data = tmp_path / "data"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        args = ["host", "--bot", "--no-mdns", *LOOPBACK, "--port", str(port), "--data-dir",
                str(data)]
        assert cli.main(args) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert err == (f"hanabi-p2p host: error: port {port} is already in use on 127.0.0.1: choose "
                   "another --port, or leave it out for any free port\n")
    assert left_behind(data) == []


@pytest.mark.socket
def test_tables_on_an_address_of_another_machine_says_so(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["tables", "--interface", "192.0.2.77"]) == cli.EXIT_USAGE
    assert "--interface 192.0.2.77 is not an address of this machine" in capsys.readouterr().err


def test_replay_refuses_an_unknown_language_as_every_command_does(
        capsys: pytest.CaptureFixture[str]) -> None:
    # it used to be accepted (and ignored) unless --interactive was given too
    assert cli.main(["replay", "--lang", "xx"]) == cli.EXIT_USAGE
    out, err = capsys.readouterr()
    assert out == "" and err == (
        "hanabi-p2p replay: error: unknown language 'xx' (known: en, it, ro, nb)\n")


@pytest.mark.socket
@pytest.mark.parametrize(
    ("stdin_tty", "stdout_tty", "term", "reason"),
    [
        (True, False, "xterm", "the output is not a terminal (is it piped or redirected?)"),
        (True, True, "dumb", "this terminal (TERM=dumb) cannot draw it"),
    ],
    ids=["piped", "dumb"],
)
def test_a_table_that_cannot_be_drawn_says_what_is_missing(
    stdin_tty: bool, stdout_tty: bool, term: str, reason: str, tmp_path: Path,
    no_games: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """Typed in a terminal, `play | tee` or TERM=dumb used to say "no terminal"."""
    monkeypatch.setattr(sys.stdin, "isatty", lambda: stdin_tty)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: stdout_tty)
    monkeypatch.setenv("TERM", term)
    data = ["--data-dir", str(tmp_path / "data")]
    for command, instead in ((["play"], "--bot"), (["watch", *LOOPBACK], "--headless")):
        assert cli.main([*command, *data]) == cli.EXIT_USAGE
        assert capsys.readouterr().err == (
            f"hanabi-p2p {command[0]}: error: cannot show the table: {reason}; "
            f"run it in a terminal, or use {instead}\n")
    assert left_behind(tmp_path / "data") == []


@pytest.mark.socket
def test_a_full_table_found_on_the_network_says_how_to_watch_it_or_come_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from hanabi_p2p.identity import fingerprint
    from hanabi_p2p.limits import PEER_ID_BYTES, TABLE_ID_BYTES
    from hanabi_p2p.net.discovery import FoundTable, TableAd
    from hanabi_p2p.peer.probe import ProbeResult

    ad = TableAd(table_id=bytes(TABLE_ID_BYTES), name="Friday night", variant="standard",
                 options=(), seats_taken=3, seats_total=3,
                 host_fingerprint=fingerprint(bytes(PEER_ID_BYTES)))
    found = (FoundTable(ad, "127.0.0.1", 7301),
             ProbeResult(ad.table_id, bytes(PEER_ID_BYTES), ad.version), ad.name)

    async def found_it(*_args: object) -> tuple[FoundTable, ProbeResult, str]:
        return found

    monkeypatch.setattr(join_command, "_find_on", found_it)
    monkeypatch.setattr(join_command, "load_the_game", lambda bot=False: None)
    data = tmp_path / "data"
    assert cli.main(["join", "--bot", *LOOPBACK, "--data-dir", str(data), "Fri"]) == 2
    assert capsys.readouterr().err == (
        "hanabi-p2p join: error: table 'Friday night' is full (3 seats taken): hanabi-p2p watch "
        "'Friday night' follows its game; a player seated there comes back with hanabi-p2p "
        "join --resume\n")
    assert left_behind(data) == []  # refused before the key is made


def test_leaving_on_purpose_is_an_interruption_not_an_error(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Quitting while `join` still looks for the table: said plainly, exit 130 as for
    Ctrl-C, not 'error:' with the usage exit code."""
    from hanabi_p2p.commands import rules
    from hanabi_p2p.errors import UserLeft

    def leave(_args: object) -> int:
        raise UserLeft("you left before sitting down at a table")

    monkeypatch.setattr(rules, "run", leave)
    assert cli.main(["rules"]) == cli.EXIT_INTERRUPTED
    err = capsys.readouterr().err
    assert err == "hanabi-p2p rules: you left before sitting down at a table\n"


@pytest.mark.socket
def test_a_full_disk_says_how_to_come_back_or_that_a_practice_game_cannot(
        tmp_path: Path) -> None:
    """The storage failure names the way back the screen names (with the --data-dir), and
    a practice game (`play`), which cannot be resumed, is not sent to `join --resume`."""
    import errno as errno_module
    from types import SimpleNamespace

    from hanabi_p2p.commands.peerargs import peer_options
    from hanabi_p2p.peer.node import Node

    def failure(command: list[str]) -> str:
        opts = peer_options(cli.build_parser(command[0]).parse_args(command))
        node = Node(SimpleNamespace(), SimpleNamespace(),  # type: ignore[arg-type]
                    SimpleNamespace(path=tmp_path / "game.hlog"),  # type: ignore[arg-type]
                    resume_command=opts.resume_command)
        return str(node._storage_failed(OSError(errno_module.ENOSPC, "No space left")))

    data = tmp_path / "d"
    hosted = failure(["host", *LOOPBACK, "--data-dir", str(data)])
    assert hosted.endswith(f"free space and run hanabi-p2p join --resume --data-dir {data}")
    practice = failure(["play", "--data-dir", str(data)])
    assert "join --resume" not in practice
    assert practice.endswith("start a new game (a practice game cannot be resumed)")




@pytest.mark.parametrize(
    ("args", "typed", "meant"),
    [
        (["host", "--player", "3", "--bot", *LOOPBACK], "--player", "--players"),
        (["play", "--var", "rainbow", "--bot"], "--var", "--variant"),
        (["join", "--addr", "127.0.0.1:9", "--bot", *LOOPBACK], "--addr", "--address"),
        (["log", "list", "--data-di", "x"], "--data-di", "--data-dir"),
        (["log", "show", "--data", "x", "abc"], "--data", "--data-dir"),
    ],
    ids=["host", "play", "join", "log list", "log show"],
)
def test_a_shortened_option_is_refused_and_the_full_one_suggested(
    args: list[str], typed: str, meant: str, tmp_path: Path, no_games: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """argparse's abbreviations took `host --player 3` as `--players 3` without a word;
    a shortened or misspelt option is a one-line usage error naming the option meant."""
    data = tmp_path / "data"
    with pytest.raises(SystemExit) as exit_info:
        cli.main([*args, "--data-dir", str(data)])
    assert exit_info.value.code == cli.EXIT_USAGE
    err = capsys.readouterr().err
    command = " ".join(args[:2] if args[0] == "log" else args[:1])
    assert err.count("\n") == 1 and f"unrecognized arguments: {typed}" in err
    assert err.endswith(f" (did you mean {meant!r}?); see 'hanabi-p2p {command} --help'\n")
    assert left_behind(data) == []


def test_a_table_never_seated_is_reported_as_no_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Removed by the host, or a lobby that timed out: there was no game to finish."""
    from hanabi_p2p import refusals as rf
    from hanabi_p2p.commands.peerargs import report_result
    from hanabi_p2p.peer.result import GameResult

    gone = tmp_path / "gone.hlog"
    removed = rf.RemovedByHost()
    assert report_result(GameResult(gone, failure=str(removed), refusal=removed),
                         "hanabi-p2p join") == 1
    assert capsys.readouterr().err == f"hanabi-p2p join: no game: {removed}\n"
    seated = GameResult(gone, failure="Bob stopped the game", table_code="ABCD-EFGH")
    assert report_result(seated, "hanabi-p2p host") == 1
    assert capsys.readouterr().err == "hanabi-p2p host: game not finished: Bob stopped the game\n"


@pytest.mark.socket
@pytest.mark.parametrize("command", [["play"], ["watch", *LOOPBACK], ["host"], ["join", *LOOPBACK]],
                         ids=lambda c: c[0])
def test_the_language_is_checked_before_the_terminal(
    command: list[str], tmp_path: Path, no_games: None, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # `play --lang fr </dev/null` complained about the terminal, though every argument is
    # checked first (README): the language is the first thing to fix
    monkeypatch.setattr(sys.stdin, "isatty", lambda: False)
    data = ["--data-dir", str(tmp_path / "data")]
    assert cli.main([*command, "--lang", "fr", *data]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert "unknown language 'fr' (known: en, it, ro, nb)" in err and "terminal" not in err
    assert left_behind(tmp_path / "data") == []
