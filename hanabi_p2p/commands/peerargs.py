"""Arguments and running shared by `host`, `join` and `play`."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import os
import sys
from collections.abc import Awaitable, Callable

from hanabi_p2p.datadir import DataDir, add_data_dir_argument
from hanabi_p2p.errors import UserError
from hanabi_p2p.net.discovery import check_interface, default_interface_address
from hanabi_p2p.peer.frontends import BotPlayer, Frontend
from hanabi_p2p.peer.launch import GameResult, PeerOptions
from hanabi_p2p.peer.node import Timing


def add_common(parser: argparse.ArgumentParser, *, network: bool = True) -> None:
    parser.add_argument("--name", metavar="PLAYER", help="your name at the table")
    parser.add_argument("--bot", action="store_true",
                        help="let the computer play your seat, headless (one line per turn)")
    parser.add_argument("--lang", metavar="LANG",
                        help="language: en, it, ro, nb (default: from the environment)")
    if network:
        parser.add_argument("--interface", metavar="IP",
                            help="the local address to listen and advertise on "
                                 "(default: the interface of the default route)")
        parser.add_argument("--code", metavar="SECRET",
                            help="a table secret: only players who know it can sit")
    parser.add_argument("--wait-timeout", type=float, default=600.0, metavar="S",
                        help="give up on a player who keeps the game waiting this long "
                             "(default: %(default)s s)")
    parser.add_argument("--bot-delay", type=float, default=0.0, metavar="S",
                        help="computer players pause this long before acting")
    add_data_dir_argument(parser)


def default_name() -> str:
    try:
        return getpass.getuser()
    except Exception:
        return "player"


def peer_options(args: argparse.Namespace, *, interface: str | None = None,
                 port: int = 0, advertise: bool = True) -> PeerOptions:
    chosen = interface or getattr(args, "interface", None)
    iface = check_interface(chosen) if chosen else default_interface_address()
    name = (args.name or default_name()).strip()
    if not name:
        raise UserError("--name must not be empty")
    if args.wait_timeout <= 0:
        raise UserError("--wait-timeout must be positive")
    return PeerOptions(
        name=name,
        data_dir=DataDir.resolve(args.data_dir),
        interface=iface,
        port=port,
        secret=getattr(args, "code", None),
        advertise=advertise,
        timing=Timing(wait_timeout=args.wait_timeout),
    )


def choose_frontend(args: argparse.Namespace) -> Frontend:
    """The full-screen UI on a terminal; headless lines for --bot or without a terminal."""
    if args.bot:
        return BotPlayer(delay=args.bot_delay)
    if sys.stdin.isatty() and sys.stdout.isatty() and os.environ.get("TERM") != "dumb":
        from hanabi_p2p.peer.screen import RESUME_COMMAND, ScreenFrontend

        # a practice game's computer players end with this process: there is no way back
        practice = getattr(args, "command", None) == "play"
        return ScreenFrontend(lang=args.lang, resume_command=None if practice else RESUME_COMMAND)
    raise UserError("no terminal to show the table on: run it in a terminal, or use --bot")


def run_game(main: Callable[[], Awaitable[GameResult]], frontend: Frontend) -> int:
    """Run a peer to the end and report like every peer does: score, rating, `log: PATH`."""
    result = asyncio.run(_with_frontend(main, frontend))
    if result.failure is None:
        print(f"score {result.score} ({result.rating}); deck audit: "
              + ("valid" if result.audit_ok else f"FAILED ({result.audit_reason})"))
    else:
        print(f"game not finished: {result.failure}", file=sys.stderr)
    print(f"log: {result.log_path}", flush=True)
    return 0 if result.ok else 1


async def _with_frontend(main: Callable[[], Awaitable[GameResult]],
                         frontend: Frontend) -> GameResult:
    return await frontend.run(main)
