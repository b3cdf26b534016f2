"""`hanabi-p2p play`: a game against computer players on this machine (loopback only)."""

from __future__ import annotations

import argparse

from hanabi_p2p.commands.peerargs import add_common, choose_frontend, peer_options, run_game
from hanabi_p2p.frontends.launch import host_table
from hanabi_p2p.i18n import _
from hanabi_p2p.peer.preload import start_loading
from hanabi_p2p.rules.cards import OPTION_NAMES, VARIANT_CHOICES, GameConfig
from hanabi_p2p.session.bodies import TableOption

HELP = "play against computer players on this machine"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, default=3, metavar="N",
                        help="players including you, 2-5 (default: %(default)s)")
    parser.add_argument("--variant", default="standard", choices=VARIANT_CHOICES,
                        help="one of %(choices)s (default: %(default)s; `hanabi-p2p rules` "
                             "describes them; black, hanab.live's name, is multicolor-short)")
    parser.add_argument("--option", action="append", default=[], metavar="O",
                        choices=list(OPTION_NAMES), help="an option; repeat for several: "
                        + ", ".join(OPTION_NAMES))
    add_common(parser, network=False)


def run(args: argparse.Namespace) -> int:
    config = GameConfig.from_names(args.players, args.variant, args.option)
    # every peer on loopback, nothing advertised: no packet leaves the machine
    opts = peer_options(args, interface="127.0.0.1", advertise=False)
    # a practice table is for learning: the coach is always there
    opts.table_options = frozenset({TableOption.HINTS})
    frontend = choose_frontend(args)  # chooses the language too: the table name is in it
    start_loading()  # meanwhile, on a thread (see peer.preload)
    table_name = _("practice table")
    return run_game(
        lambda: host_table(opts, table_name, config, frontend, bots=config.players - 1),
        frontend, args.prog,
    )
