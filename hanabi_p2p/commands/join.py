"""`hanabi-p2p join`: find a table on the network (or at an address) and sit down."""

from __future__ import annotations

import argparse

from hanabi_p2p.commands.peerargs import add_common, choose_frontend, peer_options, run_game
from hanabi_p2p.errors import UserError
from hanabi_p2p.net.discovery import browse_tables
from hanabi_p2p.peer.frontends import Frontend
from hanabi_p2p.peer.launch import GameResult, PeerOptions, join_address, pick_table, resume

HELP = "join a table found on the network, or at --address HOST:PORT"
BROWSE_SECONDS = 3.0
# replaced by the interface saved with the game being resumed
RESUME_PLACEHOLDER_INTERFACE = "127.0.0.1"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table", nargs="?", metavar="TABLE",
                        help="the table's name (or id prefix); needed when several are open")
    parser.add_argument("--address", metavar="HOST:PORT",
                        help="join the host at this address directly (when mDNS is blocked)")
    parser.add_argument("--resume", action="store_true",
                        help="come back to an unfinished game of this installation")
    parser.add_argument("--browse-seconds", type=float, default=BROWSE_SECONDS, metavar="S",
                        help="how long to look for tables (default: %(default)s)")
    add_common(parser)


def parse_address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UserError(f"--address must be HOST:PORT, not {text!r}")
    return host, int(port)


def run(args: argparse.Namespace) -> int:
    frontend = choose_frontend(args)
    if args.resume:
        # a resumed game listens where it did before (saved with the game), so a network
        # without a default route is no obstacle; an --interface given is checked anyway
        opts = peer_options(args, interface=args.interface or RESUME_PLACEHOLDER_INTERFACE)
        return run_game(lambda: resume(opts, frontend, args.table), frontend)
    opts = peer_options(args)
    if args.address:
        host, port = parse_address(args.address)
        return run_game(lambda: join_address(opts, host, port, frontend), frontend)
    return run_game(lambda: _find_and_join(opts, args, frontend), frontend)


async def _find_and_join(opts: PeerOptions, args: argparse.Namespace,
                         frontend: Frontend) -> GameResult:
    frontend.status(f"looking for tables on {opts.interface} ...")
    found = await browse_tables(opts.interface, args.browse_seconds)
    table = pick_table(found.tables, args.table)
    if table.ad.seats_taken >= table.ad.seats_total:
        raise UserError(f"table {table.ad.name!r} is full ({table.ad.seats_total} seats taken)")
    frontend.status(f"joining {table.ad.name!r} at {table.address}:{table.port}")
    return await join_address(opts, table.address, table.port, frontend,
                              expect_table=table.ad.table_id)
