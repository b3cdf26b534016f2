"""The command line imports only the subcommand it runs (issue 13: instant commands)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from hanabi_p2p import cli
from hanabi_p2p.log.entry import decode_entry
from hanabi_p2p.log.storage import GameFile

# Modules that make start-up slow; none of them is needed to print help or a rules summary.
HEAVY = ("zeroconf", "prompt_toolkit", "asyncio", "nacl", "cryptography", "hanabi_p2p.peer",
         "hanabi_p2p.net", "hanabi_p2p.deck")


def imported_modules(*args: str) -> set[str]:
    """Every module the real program imports for `args` (read from -X importtime)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hanabi_p2p", *args],
        capture_output=True, text=True, check=False, timeout=60,
    )
    return {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
            if line.startswith("import time:") and "|" in line}


@pytest.mark.process
@pytest.mark.parametrize("args", [("--version",), ("--help",), ("rules",), ("replay",),
                                  ("replay", "--help"), ("rules", "--help")])
def test_light_commands_import_nothing_heavy(args: tuple[str, ...]) -> None:
    modules = imported_modules(*args)
    assert "hanabi_p2p.cli" in modules  # the probe saw the program start
    heavy = sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))
    assert heavy == []


def test_top_level_help_lists_every_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for command in cli.SUBCOMMANDS:
        assert command.name in out
        assert command.summary in " ".join(out.split())


def test_subcommand_help_shows_its_own_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["replay", "--help"])
    out = capsys.readouterr().out
    assert "--example" in out and "--json" in out


def test_unknown_subcommand_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["nonsense"])
    assert exit_info.value.code == cli.EXIT_USAGE
    assert "invalid choice" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["plya"], "hanabi-p2p: error: argument COMMAND: invalid choice: 'plya' (choose from "
         "'play', 'host', 'join', 'watch', 'tables', 'replay', 'log', 'rules', 'completion') "
         "(did you mean "
         "'play'?); see 'hanabi-p2p --help'"),
        (["join", "--adress=10.0.0.5:7301"], "hanabi-p2p join: error: unrecognized arguments: "
         "--adress=10.0.0.5:7301 (did you mean '--address'?); see 'hanabi-p2p join --help'"),
        (["play", "--players", "x"], "hanabi-p2p play: error: argument --players: invalid int "
         "value: 'x'; see 'hanabi-p2p play --help'"),
        (["host", "--bogus"], "hanabi-p2p host: error: unrecognized arguments: --bogus; see "
         "'hanabi-p2p host --help'"),  # nothing close enough to suggest
    ],
    ids=["subcommand", "option", "value", "far"],
)
def test_a_usage_error_is_one_line_naming_what_was_meant(
    args: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # argparse printed its usage block first: the reason came last of four or five lines
    with pytest.raises(SystemExit) as exit_info:
        cli.main(args)
    assert exit_info.value.code == cli.EXIT_USAGE
    assert capsys.readouterr().err == expected + "\n"


def test_no_subcommand_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([]) == cli.EXIT_USAGE
    assert "COMMAND" in capsys.readouterr().out


@pytest.mark.parametrize("command", cli.SUBCOMMANDS, ids=lambda c: c.name)
def test_summary_matches_the_module(command: cli.Subcommand) -> None:
    module = importlib.import_module(f"hanabi_p2p.commands.{command.module}")
    assert callable(module.add_arguments) and callable(module.run)
    if hasattr(module, "HELP"):
        assert command.summary == module.HELP


@pytest.mark.parametrize(("argv", "expected"), [
    (["--version"], None),
    (["log", "list"], "log"),
    (["--", "host"], None),
    (["-h", "join", "--name", "x"], "join"),
])
def test_chosen_subcommand(argv: list[str], expected: str | None) -> None:
    assert cli.chosen_subcommand(argv) == expected


@pytest.mark.process
def test_the_probe_sees_heavy_imports_where_they_are_needed() -> None:
    assert "zeroconf" in imported_modules("host", "--help")


# What `log verify` of a game never needs (issue 33: a cold check of a friend's game): the
# network, the peer, the terminal, the computer players, the catalogues (it prints English
# only), and a second cryptographic library (libsodium, through PyNaCl and rbcl, does it all).
NOT_FOR_VERIFY = ("zeroconf", "prompt_toolkit", "asyncio", "cryptography", "hanabi_p2p.net",
                  "hanabi_p2p.peer", "hanabi_p2p.ui", "hanabi_p2p.bots", "hanabi_p2p.frontends",
                  "hanabi_p2p.i18n", "hanabi_p2p.commands.log_remove", "concurrent")
GAME_VECTOR = Path(__file__).resolve().parents[1] / "protocol" / "vectors" / "game" / (
    "game-2p-standard.json")


@pytest.mark.process
def test_log_verify_imports_only_what_it_checks_with(tmp_path: Path) -> None:
    vector = json.loads(GAME_VECTOR.read_text())
    entries = [decode_entry(bytes.fromhex(e["bytes"])) for e in vector["entries"]]
    path = tmp_path / "friday.hlog"  # a game copied from a friend: no cached verdict
    with GameFile.create(path, entries[0].table_id, created=0, name="friday") as game:
        for entry in entries:
            game.append(entry)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hanabi_p2p", "log", "verify", str(path)],
        capture_output=True, text=True, check=False, timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr  # valid: the whole check ran
    assert done.stdout.startswith("valid: 2 players")
    modules = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
               if line.startswith("import time:") and "|" in line}
    assert {"hanabi_p2p.session.verify", "hanabi_p2p.deck.audit", "nacl"} <= modules
    needless = sorted(m for m in modules
                      if any(m == n or m.startswith(n + ".") for n in NOT_FOR_VERIFY))
    assert needless == []


# What a join needs only once its table is found: it loads them while it browses (issue 13).
GAME = ("hanabi_p2p.frontends.launch", "hanabi_p2p.peer.core", "hanabi_p2p.deck", "hanabi_p2p.bots",
        "hanabi_p2p.session.table", "hanabi_p2p.net.handshake", "prompt_toolkit", "rbcl")


@pytest.mark.process
def test_join_starts_browsing_before_the_game_is_loaded() -> None:
    modules = imported_modules("join", "--help")
    assert "hanabi_p2p.net.discovery" in modules and "zeroconf" in modules
    early = sorted(m for m in modules if any(m == g or m.startswith(g + ".") for g in GAME))
    assert early == []


def test_what_a_join_loads_while_it_browses_is_what_it_needs() -> None:
    """Everything `load_the_game` names exists and loads (a renamed module would fail the
    join only when it has found its table)."""
    from hanabi_p2p.commands import join

    join.load_the_game(bot=True)
    for module in (*join.GAME_MODULES, *join.BOT_MODULES):
        assert module in sys.modules


LEAVE_PROBE = """
import atexit, sys
atexit.register(lambda: print("teardown ran", flush=True))
if sys.argv[1] == "profiled":
    sys.setprofile(lambda *args: None)
from hanabi_p2p.cli import main
sys.argv = ["hanabi-p2p", "rules"]
main()
"""


@pytest.mark.process
@pytest.mark.parametrize(("mode", "teardown"), [("plain", False), ("profiled", True)])
def test_the_program_ends_without_the_teardown_unless_profiled(mode: str,
                                                                teardown: bool) -> None:
    """Run as the program, `main` flushes its output and ends the process (no exit
    handler runs); under a profiler or tracer it returns, so that their results are
    written at exit."""
    done = subprocess.run([sys.executable, "-c", LEAVE_PROBE, mode], capture_output=True,
                          text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "HANABI: a cooperative game" in done.stdout  # every line written first
    assert ("teardown ran" in done.stdout) is teardown
