"""`hanabi-p2p host`: open a table on the network and play when every seat is taken."""

from __future__ import annotations

import argparse

from hanabi_p2p.commands.peerargs import (
    add_common,
    check_common,
    choose_frontend,
    peer_options,
    player_name,
    run_game,
)
from hanabi_p2p.errors import HanabiError, UserError
from hanabi_p2p.frontends.launch import host_table
from hanabi_p2p.identity import fingerprint
from hanabi_p2p.limits import (
    MAX_PLAYERS,
    MAX_PORT,
    MAX_TABLE_NAME_CHARS,
    MIN_PLAYERS,
    PEER_ID_BYTES,
    TABLE_ID_BYTES,
)
from hanabi_p2p.net.discovery import TableAd
from hanabi_p2p.peer.preload import start_loading
from hanabi_p2p.rules.cards import OPTION_NAMES, VARIANT_CHOICES, GameConfig
from hanabi_p2p.safe_text import safe
from hanabi_p2p.session.bodies import (
    MAX_TOTAL_CLOCK_S,
    MAX_TURN_TIMER_S,
    TableOpen,
    TableOption,
)

HELP = "open a table on the network and wait for players"
TABLE_NAME_SUFFIX = "'s table"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--table", metavar="NAME",
                        help=f"the table's name, at most {MAX_TABLE_NAME_CHARS} characters "
                             f"(default: NAME{TABLE_NAME_SUFFIX})")
    parser.add_argument("--players", type=int, default=2, metavar="N",
                        help=f"seats at the table, {MIN_PLAYERS}-{MAX_PLAYERS} "
                             "(default: %(default)s)")
    parser.add_argument("--variant", default="standard", choices=VARIANT_CHOICES,
                        help="default: %(default)s (black, hanab.live's name, is "
                             "multicolor-short)")
    parser.add_argument("--option", action="append", default=[], metavar="O",
                        choices=[*OPTION_NAMES, TableOption.HINTS.value],
                        help="an option; repeat for several: " + ", ".join(OPTION_NAMES)
                        + f"; or {TableOption.HINTS.value}: `hint` shows every player what a "
                          "computer player would do in their seat (everyone sees this in "
                          "the lobby)")
    parser.add_argument("--spectators", action="store_true",
                        help="let spectators (hanabi-p2p watch) see every hand, as at a real "
                             "table; without it they see only what is on the table. A "
                             "spectator who sees the hands could tell a player their cards: "
                             "only use it among people you trust")
    parser.add_argument("--turn-timer", type=int, default=None, metavar="SECONDS",
                        help="end the game 'timed out', nobody blamed, when a player's turn "
                             "lasts longer than this (for tables of computer players: a "
                             "person thinking is otherwise never timed out; everyone sees "
                             f"it in the lobby); 1-{MAX_TURN_TIMER_S}")
    parser.add_argument("--total-clock", type=int, default=None, metavar="SECONDS",
                        help="a timed game: each player has this long for all its turns "
                             "together, and the game ends 'timed out', nobody blamed, when "
                             "one player's turns have lasted longer (everyone sees it in the "
                             f"lobby and on the status line); 1-{MAX_TOTAL_CLOCK_S}")
    parser.add_argument("--bots", type=int, default=0, metavar="K",
                        help="seat K computer players, each a real peer with its own key")
    parser.add_argument("--port", type=int, default=0, metavar="P",
                        help="TCP port to listen on (default: any free port)")
    parser.add_argument("--no-mdns", action="store_true",
                        help="do not advertise the table (players join with --address)")
    parser.add_argument("--auto-start", action="store_true",
                        help="deal as soon as every seat is taken (default for --bot and "
                             "for tables of your own computer players; otherwise you see "
                             "who sat down and type start, or kick NAME)")
    add_common(parser)


def default_table_name(player: str) -> str:
    """"NAME's table", with NAME shortened so that the whole fits the table-name limit."""
    room = MAX_TABLE_NAME_CHARS - len(TABLE_NAME_SUFFIX)
    return player[:room].rstrip() + TABLE_NAME_SUFFIX


def table_options(args: argparse.Namespace) -> frozenset[TableOption]:
    """How the table is run beyond the rules, from `--option hints` and `--spectators`."""
    options = {TableOption.HINTS} if TableOption.HINTS.value in args.option else set()
    if args.spectators:
        options.add(TableOption.SPECTATORS)
    return frozenset(options)


def check_table(table_name: str, host_name: str, config: GameConfig,
                options: frozenset[TableOption] = frozenset(),
                turn_timer: int | None = None, total_clock: int | None = None) -> None:
    """Refuse a table that peers or the mDNS advert would refuse, before anything exists:
    the same body parser the joiners run, and the advert's own checks."""
    shown = safe(table_name, MAX_TABLE_NAME_CHARS + 1)
    try:
        TableOpen.from_wire(TableOpen(table_name, host_name, config, options,
                                      turn_timer=turn_timer,
                                      total_clock=total_clock).to_wire())
        TableAd(table_id=bytes(TABLE_ID_BYTES), name=table_name, variant=config.variant.value,
                options=config.options, seats_taken=1, seats_total=config.players,
                host_fingerprint=fingerprint(bytes(PEER_ID_BYTES)), host_name=host_name)
    except HanabiError as exc:
        reason = str(exc).removeprefix("cannot advertise this table: ")
        raise UserError(f"--table {shown!r} cannot be used: {reason}") from None


def run(args: argparse.Namespace) -> int:
    # every argument is checked before the first side effect (data directory, key, game file)
    check_common(args)
    if not MIN_PLAYERS <= args.players <= MAX_PLAYERS:
        raise UserError(f"--players must be {MIN_PLAYERS} to {MAX_PLAYERS}")
    rules_options = [o for o in args.option if o in OPTION_NAMES]
    config = GameConfig.from_names(args.players, args.variant, rules_options)
    options = table_options(args)
    if not 0 <= args.bots < config.players:
        raise UserError(f"--bots must be 0 to {config.players - 1} for {config.players} players")
    if not 0 <= args.port <= MAX_PORT:
        raise UserError(f"--port must be 0 to {MAX_PORT}")
    if args.turn_timer is not None and not 1 <= args.turn_timer <= MAX_TURN_TIMER_S:
        raise UserError(f"--turn-timer must be 1 to {MAX_TURN_TIMER_S} seconds")
    if args.total_clock is not None and not 1 <= args.total_clock <= MAX_TOTAL_CLOCK_S:
        raise UserError(f"--total-clock must be 1 to {MAX_TOTAL_CLOCK_S} seconds")
    host_name = player_name(args)
    table_name = args.table if args.table is not None else default_table_name(host_name)
    check_table(table_name, host_name, config, options, args.turn_timer, args.total_clock)
    frontend = choose_frontend(args)  # no terminal and no --bot: refused before any change
    start_loading()  # meanwhile, on a thread (see peer.preload)
    opts = peer_options(args, port=args.port, advertise=not args.no_mdns)
    opts.table_options = options
    opts.turn_timer = args.turn_timer
    opts.total_clock = args.total_clock
    # a person hosting strangers decides who plays; a computer table starts by itself
    opts.auto_start = args.auto_start or args.bot or args.bots == config.players - 1
    return run_game(lambda: host_table(opts, table_name, config, frontend, bots=args.bots),
                    frontend, args.prog)
