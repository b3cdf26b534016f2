"""`hanabi-p2p watch`: follow a game at a table on the network, read-only (SPEC 4.8).

The table is found as `join` finds it (mDNS, the name or id given, the advert checked
against its host), or at `--address`. The spectator links to the players, catches up from
any of them and follows every action live; it never sits down and never writes to the log.
It sees the public view (fireworks, discards, clues, actions) unless the host opened the
table with `--spectators`, in which case the players send it their keys and it sees every
hand, as at a real table.
"""

from __future__ import annotations

import argparse
import asyncio

from hanabi_p2p import i18n
from hanabi_p2p.commands.join import (
    add_table_arguments,
    check_table_arguments,
    find_for,
    parse_address,
)
from hanabi_p2p.commands.peerargs import (
    check_common,
    no_screen_error,
    no_screen_reason,
    peer_options,
    report_result,
)
from hanabi_p2p.datadir import add_data_dir_argument
from hanabi_p2p.frontends.headless import Frontend, Headless
from hanabi_p2p.frontends.launch import GameResult, PeerOptions, watch_address, watch_table
from hanabi_p2p.i18n import _

HELP = "watch a game at a table on the network (or at --address HOST:PORT)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_table_arguments(parser, "watch the table of the player at this address (when mDNS "
                                "is blocked)")
    parser.add_argument("--name", metavar="NAME",
                        help="the name the players see you watch under")
    parser.add_argument("--headless", action="store_true",
                        help="no full-screen table: one line per event (for scripts)")
    parser.add_argument("--lang", metavar="LANG",
                        help="language: en, it, ro, nb (default: from the environment)")
    parser.add_argument("--theme", choices=["auto", "dark", "light"], default="auto",
                        help="colours for a dark or a light terminal (default: auto)")
    parser.add_argument("--interface", metavar="IP",
                        help="the local address to use (default: the interface of the "
                             "default route)")
    parser.add_argument("--code", metavar="SECRET", help="the table password, if it has one")
    add_data_dir_argument(parser)


def check_arguments(args: argparse.Namespace) -> None:
    """Refuse a bad argument before anything is created or sent."""
    # the options every peer command shares, with those a spectator has no use for set
    args.bot, args.bot_delay = False, None
    args.wait_timeout, args.lobby_timeout = 600.0, None
    check_common(args)
    check_table_arguments(args)


def choose_frontend(args: argparse.Namespace) -> Frontend:
    """The full-screen table on a terminal (read-only); lines with --headless. A wrong
    --lang is said before a missing terminal, as every argument is."""
    if args.lang:
        i18n.resolve_language(args.lang)
    if args.headless:
        if args.lang:
            i18n.setup(args.lang)
        return Headless()
    if no_screen_reason() is None:
        from hanabi_p2p.frontends.screen import ScreenFrontend
        from hanabi_p2p.ui.symbols import Theme

        return ScreenFrontend(lang=args.lang, resume_command=None, theme=Theme(args.theme))
    raise no_screen_error("--headless")


def _options(args: argparse.Namespace) -> PeerOptions:
    opts = peer_options(args, advertise=False)
    opts.watching = True
    return opts


async def _find_and_watch(opts: PeerOptions, args: argparse.Namespace,
                          frontend: Frontend) -> GameResult:
    table, probe, name = await find_for(opts, args, frontend)
    frontend.status(_("watching {name} at {address}").format(
        name=repr(name), address=f"{table.address}:{table.port}"))
    return await watch_table(opts, table.address, table.port, probe.table_id, probe.host_id,
                             frontend)


def run(args: argparse.Namespace) -> int:
    check_arguments(args)
    frontend = choose_frontend(args)
    opts = _options(args)
    if args.address:
        host, port = parse_address(args.address)
        return _report(asyncio.run(frontend.run(
            lambda: watch_address(opts, host, port, frontend))), args.prog)
    return _report(asyncio.run(frontend.run(lambda: _find_and_watch(opts, args, frontend))),
                   args.prog)


def _report(result: GameResult, prog: str) -> int:
    """As a player's game is reported, except that stopping to watch is no failure."""
    if result.chosen_leave:
        print(_("you stopped watching"))
        print(f"log: {result.log_path}", flush=True)
        return 0
    return report_result(result, prog)
