"""Whole games on a test LAN of network namespaces: each player its own network stack, the
table found by real mDNS, every seat a separate `hanabi-p2p` process (a computer player)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import pytest
from e2e_helpers import Proc, Procs, bot_args, expect_success, log_authors, table_config
from netlab import Host, NetLab

from hanabi_p2p.rules.cards import GameConfig

BROWSE = ["--browse-seconds", "3"]  # the default: robust on a busy machine

pytestmark = pytest.mark.netns


@dataclass(frozen=True)
class Game:
    players: int
    variant: str
    options: tuple[str, ...] = ()

    @property
    def config(self) -> GameConfig:
        return GameConfig.from_names(self.players, self.variant, self.options)

    def host_args(self) -> list[str]:
        args = ["--players", str(self.players), "--variant", self.variant]
        for option in self.options:
            args += ["--option", option]
        return args


# 2, 3 and 5 players; every variant and every option at least once
MATRIX = (
    Game(2, "standard"),
    Game(3, "multicolor", ("all_or_nothing",)),
    Game(5, "rainbow", ("empty_clues",)),
    Game(2, "multicolor-short", ("choreography",)),
)


def open_table(procs: Procs, host: Host, game: Game, table: str, prefix: str,
               extra: Sequence[str] = ()) -> Proc:
    """A host process; its table is advertised once it prints where it listens."""
    return procs.hanabi(f"{prefix}0", "host", "--table", table, *game.host_args(),
                        *bot_args(interface=host.address, name=f"{prefix}0", extra=extra),
                        ns=host)


def join_table(procs: Procs, host: Host, table: str | None, name: str,
               extra: Sequence[str] = ()) -> Proc:
    named = [table] if table else []
    return procs.hanabi(name, "join", *named, *BROWSE,
                        *bot_args(interface=host.address, name=name, extra=extra), ns=host)


@pytest.mark.slow
def test_bot_games_found_by_mdns_finish_with_one_valid_log_for_every_size_variant_option(
    netlab: NetLab, procs: Procs
) -> None:
    # one LAN per game, all games at once (mDNS waits dominate; the CPU is mostly idle)
    with contextlib.ExitStack() as labs:
        lans = [netlab.lan(MATRIX[0].players)]
        lans += [labs.enter_context(NetLab()).lan(g.players) for g in MATRIX[1:]]
        tables = []
        for index, (game, lan) in enumerate(zip(MATRIX, lans, strict=True)):
            prefix = "abcd"[index]
            host = open_table(procs, lan[0], game, f"table {prefix}", prefix)
            tables.append((game, host, lan, prefix))
        games = []
        for game, host, lan, prefix in tables:
            host.table_address()
            guests = [join_table(procs, h, None, f"{prefix}{i}") for i, h in enumerate(lan[1:], 1)]
            games.append((game, [host, *guests]))
        for game, peers in games:
            finished = expect_success(peers)
            log = peers[0].log_path
            assert table_config(log) == game.config
            assert len(log_authors(log)) == game.players
            assert finished.score <= game.config.max_score


@pytest.mark.slow
def test_two_tables_on_one_lan_never_mix_and_a_full_table_refuses_a_late_joiner(
    netlab: NetLab, procs: Procs
) -> None:
    h1, h2, h3, h4, h5 = netlab.lan(5)
    game = Game(2, "standard")
    # both games outlast the listing and the late joiner's look: a join now takes well under
    # a second, and a finished table says goodbye on the LAN
    slow = ["--bot-delay", "0.1"]
    red = open_table(procs, h1, game, "red", "r", extra=slow)
    blue = open_table(procs, h2, game, "blue", "b", extra=slow)
    red.table_address(), blue.table_address()
    undecided = join_table(procs, h5, None, "undecided")
    listing = procs.start("tables", [sys.executable, "-m", "hanabi_p2p", "tables",
                                     "--interface", h5.address, "--timeout", "2"], ns=h5)
    red_guest = join_table(procs, h3, "red", "r1", extra=slow)
    blue_guest = join_table(procs, h4, "blue", "b1", extra=slow)

    red.wait_for("seated: ")
    late = join_table(procs, h5, "red", "late")

    assert undecided.finish() != 0
    assert "several tables are open" in undecided.stderr
    assert "'red'" in undecided.stderr and "'blue'" in undecided.stderr
    assert late.finish() != 0
    assert listing.finish() == 0
    listed = {line.split()[0] for line in listing.stdout.splitlines()[1:]}
    assert listed == {"red", "blue"}, listing.stdout
    assert "table 'red' is full (2 seats taken)" in late.stderr

    red_game, blue_game = expect_success([red, red_guest]), expect_success([blue, blue_guest])
    assert red_game.digest != blue_game.digest
    red_authors, blue_authors = log_authors(red.log_path), log_authors(blue.log_path)
    assert len(red_authors) == len(blue_authors) == 2
    assert not red_authors & blue_authors
    assert "Table 'red' is open" in red_guest.stdout
    assert "Table 'blue' is open" in blue_guest.stdout
