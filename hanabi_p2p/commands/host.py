"""`hanabi-p2p host`: open a table on the network and play when every seat is taken."""

from __future__ import annotations

import argparse

from hanabi_p2p.commands.peerargs import add_common, choose_frontend, peer_options, run_game
from hanabi_p2p.errors import UserError
from hanabi_p2p.peer.launch import host_table
from hanabi_p2p.rules.cards import OPTION_NAMES, GameConfig, Variant

HELP = "open a table on the network and wait for players"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--table", metavar="NAME", help="the table's name (default: NAME's table)")
    parser.add_argument("--players", type=int, default=2, metavar="N",
                        help="seats at the table, 2-5 (default: %(default)s)")
    parser.add_argument("--variant", default="standard", choices=[v.value for v in Variant],
                        help="default: %(default)s")
    parser.add_argument("--option", action="append", default=[], metavar="O",
                        choices=list(OPTION_NAMES), help="an option; repeat for several: "
                        + ", ".join(OPTION_NAMES))
    parser.add_argument("--bots", type=int, default=0, metavar="K",
                        help="seat K computer players, each a real peer with its own key")
    parser.add_argument("--port", type=int, default=0, metavar="P",
                        help="TCP port to listen on (default: any free port)")
    parser.add_argument("--no-mdns", action="store_true",
                        help="do not advertise the table (players join with --address)")
    add_common(parser)


def run(args: argparse.Namespace) -> int:
    config = GameConfig.from_names(args.players, args.variant, args.option)
    if not 0 <= args.bots < config.players:
        raise UserError(f"--bots must be 0 to {config.players - 1} for {config.players} players")
    if not 0 <= args.port <= 65535:
        raise UserError("--port must be 0 to 65535")
    opts = peer_options(args, port=args.port, advertise=not args.no_mdns)
    table_name = args.table or f"{opts.name}'s table"
    frontend = choose_frontend(args)
    return run_game(lambda: host_table(opts, table_name, config, frontend, bots=args.bots),
                    frontend)
