"""Arguments and running shared by `host`, `join` and `play`."""

from __future__ import annotations

import argparse
import asyncio
import errno
import gc
import getpass
import os
import shlex
import socket
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from hanabi_p2p import i18n
from hanabi_p2p.datadir import DataDir, add_data_dir_argument
from hanabi_p2p.errors import HanabiError, UserError
from hanabi_p2p.frontends.headless import BotPlayer, Frontend
from hanabi_p2p.i18n import _
from hanabi_p2p.net.discovery import check_interface, default_interface_address, lan_addresses
from hanabi_p2p.safe_text import safe

# The game's modules (the peer, its node and session) are imported where they are used:
# `join` imports them while it looks for its table (commands/join.py).
if TYPE_CHECKING:
    from hanabi_p2p.frontends.launch import GameResult, PeerOptions

# Upper bounds of the time options: beyond them a value is a typo, not a wish (a day of
# waiting for one player; a minute between a computer player's moves).
MAX_WAIT_TIMEOUT_S = 24 * 3600.0
MAX_BOT_DELAY_S = 60.0
# Only to give a name's validation a well-formed address: the name is what is checked.
_CHECK_HOST, _CHECK_PORT = "127.0.0.1", 1


def add_common(parser: argparse.ArgumentParser, *, network: bool = True) -> None:
    parser.add_argument("--name", metavar="PLAYER", help="your name at the table")
    parser.add_argument("--bot", action="store_true",
                        help="let the computer play your seat, headless (one line per turn)")
    parser.add_argument("--lang", metavar="LANG",
                        help="language: en, it, ro, nb (default: from the environment)")
    parser.add_argument("--theme", choices=["auto", "dark", "light"], default="auto",
                        help="colours for a dark or a light terminal (default: auto, from "
                             "the terminal's COLORFGBG, else dark)")
    if network:
        parser.add_argument("--interface", metavar="IP",
                            help="the local address to listen and advertise on "
                                 "(default: the interface of the default route)")
        parser.add_argument("--code", metavar="SECRET",
                            help="a table password: only players who know it can sit (not "
                                 "the table code, the number everyone compares aloud)")
    parser.add_argument("--wait-timeout", type=float, default=600.0, metavar="S",
                        help="give up on a player who keeps the game waiting this long "
                             "(default: %(default)s s)")
    parser.add_argument("--lobby-timeout", type=float, default=None, metavar="S",
                        help="give up if the table has not filled this long after start "
                             "(default: wait for ever, as people do; for scripts and --bot)")
    parser.add_argument("--bot-delay", type=float, default=None, metavar="S",
                        help="computer players run here pause this long before acting "
                             "(default: 1 s beside a person's screen, 0 for --bot)")
    # (the levels of bots/levels.py, LEVELS: not imported here, the bots load only for a game)
    parser.add_argument("--level", type=int, choices=range(1, 6), default=None, metavar="N",
                        help="the H-group level (1-5) whose conventions computer players run "
                             "here follow and hints explain; none above it is given or read "
                             "(default: every convention they know)")
    add_data_dir_argument(parser)


DEFAULT_PLAYER_NAME = "player"


def default_name() -> str:
    try:
        return getpass.getuser()
    except Exception:
        return DEFAULT_PLAYER_NAME


def player_name(args: argparse.Namespace) -> str:
    """--name, checked; by default the login name, or a plain one if that is not usable."""
    if args.name is not None:
        return check_player_name(args.name)
    try:
        return check_player_name(default_name())
    except UserError:
        return DEFAULT_PLAYER_NAME


def check_player_name(text: str) -> str:
    """`text` as a player name (spaces around it removed), refused with a UserError exactly
    when peers would refuse it in our lobby entry: checked by the same body parser."""
    from hanabi_p2p.session.bodies import Address, LobbyJoin

    name = text.strip()
    if not name:
        raise UserError("--name must not be empty")
    try:
        LobbyJoin.from_wire(LobbyJoin(name, Address(_CHECK_HOST, _CHECK_PORT)).to_wire())
    except HanabiError as exc:
        raise UserError(f"--name {safe(name)!r} cannot be used: {exc}") from None
    return name


def check_common(args: argparse.Namespace) -> None:
    """Refuse a bad common option before anything is created, opened or sent: a refused
    command leaves nothing behind in the data directory."""
    if args.name is not None:
        check_player_name(args.name)
    if not 0 < args.wait_timeout <= MAX_WAIT_TIMEOUT_S:
        raise UserError(f"--wait-timeout must be more than 0 and at most {MAX_WAIT_TIMEOUT_S:g}")
    lobby_timeout = getattr(args, "lobby_timeout", None)
    if lobby_timeout is not None and not 0 < lobby_timeout <= MAX_WAIT_TIMEOUT_S:
        raise UserError(f"--lobby-timeout must be more than 0 and at most "
                        f"{MAX_WAIT_TIMEOUT_S:g}")
    if args.bot_delay is not None and not 0 <= args.bot_delay <= MAX_BOT_DELAY_S:
        raise UserError(f"--bot-delay must be 0 to {MAX_BOT_DELAY_S:g} seconds")
    code = getattr(args, "code", None)
    if code is not None:
        from hanabi_p2p.net.handshake import normalize_secret

        try:
            normalize_secret(code)
        except HanabiError as exc:
            raise UserError(f"--code cannot be used: {exc}") from None
    if getattr(args, "interface", None):
        check_can_listen(check_interface(args.interface), 0)


def peer_options(args: argparse.Namespace, *, interface: str | None = None,
                 port: int = 0, advertise: bool = True) -> PeerOptions:
    """The options of a peer, after every check (`check_common`); the data directory is
    tightened (or warned about) only then, as the first thing this command changes."""
    from hanabi_p2p.frontends.launch import PeerOptions
    from hanabi_p2p.peer.node import Timing

    check_common(args)
    chosen = interface or getattr(args, "interface", None)
    iface = check_interface(chosen) if chosen else default_interface_address()
    check_can_listen(iface, port)
    name = player_name(args)
    data_dir = DataDir.resolve(args.data_dir)
    for warning in data_dir.secure():
        print(f"{getattr(args, 'prog', 'hanabi-p2p')}: warning: {warning}", file=sys.stderr)
    return PeerOptions(
        name=name,
        data_dir=data_dir,
        interface=iface,
        port=port,
        secret=getattr(args, "code", None),
        advertise=advertise,
        timing=Timing(wait_timeout=args.wait_timeout,
                      lobby_timeout=getattr(args, "lobby_timeout", None)),
        # `--bot`: a computer player on this machine, which (as far as the table knows)
        # holds no other player's keys
        runner=b"" if args.bot else None,
        resume_command=way_back(args),
    )


def check_can_listen(interface: str, port: int) -> None:
    """Refuse, in one line and before the data directory is touched, an --interface that is
    not this machine's or a --port already taken: the peer would fail to listen there only
    after creating its key and game file. The socket is bound, never used: nothing is sent."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # as a listener binds: a port left in TIME_WAIT by the last game is no obstacle
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((interface, port))
        except OSError as exc:
            if exc.errno == errno.EADDRNOTAVAIL:
                mine = ", ".join(f"{address} ({name})" for address, name in lan_addresses())
                raise UserError(f"--interface {interface} is not an address of this machine"
                                + (f" (its addresses: {mine})" if mine else "")) from None
            if exc.errno == errno.EADDRINUSE:
                raise UserError(f"port {port} is already in use on {interface}: choose another "
                                "--port, or leave it out for any free port") from None
            raise UserError(f"cannot listen on {interface}:{port}: "
                            f"{(exc.strerror or str(exc)).lower()}") from None


def choose_frontend(args: argparse.Namespace) -> Frontend:
    """The full-screen UI on a terminal; headless lines for --bot or without a terminal.
    Every argument is checked before the terminal is: a wrong --lang is the first thing to
    fix, whatever runs the program."""
    if args.lang:
        i18n.resolve_language(args.lang)  # UserError: unknown language (known: ...)
    if args.bot:
        if args.lang:  # headless lines in the language asked for (default: English)
            i18n.setup(args.lang)
        return BotPlayer(delay=args.bot_delay or 0.0, level=getattr(args, "level", None))
    if no_screen_reason() is None:
        from hanabi_p2p.frontends.screen import HUMAN_TABLE_BOT_DELAY_S, ScreenFrontend
        from hanabi_p2p.ui.symbols import Theme

        delay = HUMAN_TABLE_BOT_DELAY_S if args.bot_delay is None else args.bot_delay
        return ScreenFrontend(lang=args.lang, resume_command=way_back(args),
                              theme=Theme(getattr(args, "theme", "auto")), bot_delay=delay,
                              bot_level=getattr(args, "level", None))
    raise no_screen_error("--bot")


def no_screen_reason() -> str | None:
    """Why the full-screen table cannot be drawn here (None: it can). Said precisely, since
    someone typing in a terminal is puzzled by "no terminal" when only the output is piped."""
    if not sys.stdin.isatty():
        return "the input is not a terminal"
    if not sys.stdout.isatty():
        return "the output is not a terminal (is it piped or redirected?)"
    if os.environ.get("TERM") == "dumb":
        return "this terminal (TERM=dumb) cannot draw it"
    return None


def no_screen_error(instead: str) -> UserError:
    """The one-line refusal of a command that needs the screen; `instead`: its option that
    needs none."""
    return UserError(f"cannot show the table: {no_screen_reason()}; run it in a terminal, "
                     f"or use {instead}")


def way_back(args: argparse.Namespace) -> str | None:
    """The command that resumes this game if the program stops, or None for a practice game
    (`play`): its computer players end with this process, so there is no way back."""
    from hanabi_p2p.peer.result import RESUME_COMMAND

    if getattr(args, "command", None) == "play":
        return None
    return resume_command(args, RESUME_COMMAND)


def resume_command(args: argparse.Namespace, command: str) -> str:
    """The command that brings this player back: with the --data-dir given here, since the
    game and the player's key are there (without it, `join --resume` looks elsewhere and
    finds nothing to resume); made absolute, as it may be typed in another directory."""
    if args.data_dir:
        where = os.path.abspath(os.path.expanduser(args.data_dir))
        return f"{command} --data-dir {shlex.quote(where)}"
    return command


def run_game(main: Callable[[], Awaitable[GameResult]], frontend: Frontend, prog: str) -> int:
    """Run a peer to the end and report like every peer does: score, rating, `log: PATH`
    (`prog`: the command, which starts a line about a game that did not finish)."""
    result = asyncio.run(_with_frontend(main, frontend))
    # The game is over and its log durable; all that is left is two lines and the exit.
    # Frozen objects are left out of the interpreter's final collections: that spares a
    # finished 5-player game about 0.1 s of exit (more on a loaded machine).
    gc.freeze()
    return report_result(result, prog)


def report_result(result: GameResult, prog: str) -> int:
    """Score, rating and audit, or why the game did not finish; then `log: PATH` last (unless
    nothing was kept: a lobby the player quit leaves no game file, so no path to show). A
    game that did not finish is told on a line that starts with the command, as the
    program's other lines about itself do (`hanabi-p2p join: no game: ...`)."""
    if result.failure is None:
        print(f"score {result.score} ({result.rating}); deck audit: "
              + ("valid" if result.audit_ok else f"FAILED ({result.audit_reason})"))
    elif not result.table_code:
        # never seated (the lobby timed out, the host removed us, the table filled): there
        # was no game to finish
        from hanabi_p2p.ui.refusals import translate_refusal

        # (worded from its class when the core gave it typed; its English text otherwise)
        reason = translate_refusal(result.refusal or result.failure)
        print(f"{prog}: " + _("no game: {reason}").format(reason=reason), file=sys.stderr)
    else:
        print(f"{prog}: " + _("game not finished: {reason}").format(reason=result.failure),
              file=sys.stderr)
    if result.log_path.exists():
        print(f"log: {result.log_path}", flush=True)
    return 0 if result.ok else 1


async def _with_frontend(main: Callable[[], Awaitable[GameResult]],
                         frontend: Frontend) -> GameResult:
    return await frontend.run(main)
