"""`hanabi-p2p join`: find a table on the network (or at an address) and sit down."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import shlex
from typing import TYPE_CHECKING

from hanabi_p2p.commands.peerargs import (
    add_common,
    check_common,
    choose_frontend,
    peer_options,
    run_game,
)
from hanabi_p2p.errors import HanabiError, UserError
from hanabi_p2p.i18n import _
from hanabi_p2p.limits import MAX_PORT, MAX_TABLE_NAME_CHARS
from hanabi_p2p.net.discovery import (
    MAX_BROWSE_S,
    AmbiguousTable,
    FoundTable,
    browse_tables,
    check_interface,
    default_interface_address,
    describe_table,
    pick_table,
    settled,
    table_key,
)
from hanabi_p2p.peer.preload import start_loading
from hanabi_p2p.peer.result import RESUME_COMMAND
from hanabi_p2p.safe_text import safe_name

if TYPE_CHECKING:
    from hanabi_p2p.frontends.headless import Frontend
    from hanabi_p2p.frontends.launch import GameResult, PeerOptions
    from hanabi_p2p.peer.probe import CheckedTable, ProbeResult

HELP = "join a table found on the network, or at --address HOST:PORT"
# How long a join looks for tables (longer while tables are still being found, see
# discovery.STILL_FINDING_S); it stops as soon as the answer is clear (see settled).
BROWSE_SECONDS = 3.0
# replaced by the interface saved with the game being resumed
RESUME_PLACEHOLDER_INTERFACE = "127.0.0.1"
# A browse that goes on after a refused advert looks at least this long (a fresh browser
# needs a query and its answers).
MIN_BROWSE_S = 0.5
# What a join needs once it has found its table: imported on a thread while it looks, since
# the browse mostly waits (for the answers, then for late ones), and nothing here is needed
# before the table is found. Importing them first made a person wait for both in turn.
GAME_MODULES = ("hanabi_p2p.peer.probe", "hanabi_p2p.frontends.launch",
                "hanabi_p2p.narration.narrator", "hanabi_p2p.ui.live")
# ... and a computer player's (`--bot`), which a person's join never needs
BOT_MODULES = ("hanabi_p2p.bots.hgroup",)


def load_the_game(*, bot: bool = False) -> None:
    """Import the game's modules (`GAME_MODULES`, and `BOT_MODULES` for a computer player) and
    load the libraries it needs first."""
    for module in (*GAME_MODULES, *BOT_MODULES) if bot else GAME_MODULES:
        importlib.import_module(module)
    start_loading().result()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_table_arguments(parser, "join the host at this address directly (when mDNS is blocked)")
    parser.add_argument("--resume", action="store_true",
                        help="come back to an unfinished game of this installation")
    add_common(parser)


def add_table_arguments(parser: argparse.ArgumentParser, address_help: str) -> None:
    """How `join` and `watch` name the table: TABLE, --address, --browse-seconds."""
    parser.add_argument("table", nargs="?", metavar="TABLE",
                        help="the table's name, the start of its name, or its id; "
                             "needed when several are open")
    parser.add_argument("--address", metavar="HOST:PORT", help=address_help)
    parser.add_argument("--browse-seconds", type=float, default=BROWSE_SECONDS, metavar="S",
                        help="look for the table this long, or longer while more tables are "
                             "still being found (at most 4 times as long; default: "
                             "%(default)s)")


def parse_address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) <= MAX_PORT:
        raise UserError(f"--address must be HOST:PORT, not {text!r}")
    return host, int(port)


def check_arguments(args: argparse.Namespace) -> None:
    """Refuse a bad argument before anything is created or sent."""
    check_common(args)
    check_table_arguments(args)


def check_table_arguments(args: argparse.Namespace) -> None:
    """The checks of `add_table_arguments`' arguments."""
    if not 0 < args.browse_seconds <= MAX_BROWSE_S:
        raise UserError(f"--browse-seconds must be more than 0 and at most {MAX_BROWSE_S:g}")
    if args.table is not None and not 0 < len(args.table) <= MAX_TABLE_NAME_CHARS:
        raise UserError(f"TABLE must be 1 to {MAX_TABLE_NAME_CHARS} characters")
    if args.address:
        parse_address(args.address)


def run(args: argparse.Namespace) -> int:
    check_arguments(args)
    frontend = choose_frontend(args)  # no terminal and no --bot: refused before any change
    start_loading()  # meanwhile, on a thread (see peer.preload)
    if args.resume:
        from hanabi_p2p.frontends.launch import resume

        # a resumed game listens where it did before (saved with the game), so a network
        # without a default route is no obstacle; an --interface given is checked anyway
        opts = peer_options(args, interface=args.interface or RESUME_PLACEHOLDER_INTERFACE)
        return run_game(lambda: resume(opts, frontend, args.table), frontend, args.prog)
    if args.address:
        from hanabi_p2p.frontends.launch import join_address

        opts = peer_options(args)
        host, port = parse_address(args.address)
        return run_game(lambda: join_address(opts, host, port, frontend), frontend,
                        args.prog)
    return run_game(lambda: _find_and_join(args, frontend), frontend, args.prog)


class AdvertRefused(UserError):
    """Every table that fits answers otherwise than its advert says; `refused` are those."""

    def __init__(self, message: str, refused: list[CheckedTable]) -> None:
        super().__init__(message)
        self.refused = refused


async def choose_table(tables: list[FoundTable], wanted: str | None) -> CheckedTable:
    """The table to join among those found, checked against its host.

    When several fit (look-alikes), each host is asked for its key and the adverts that do
    not match their host - copies made by someone else - are set aside: if exactly one
    genuine table is left, it is the one. `AdvertRefused` says why when none is genuine.
    """
    from hanabi_p2p.peer.probe import PROBE_ATTEMPTS, PROBE_TIMEOUT_S, check_advert

    try:
        table = pick_table(tables, wanted)
    except AmbiguousTable as ambiguous:
        checked = list(await asyncio.gather(*(check_advert(t) for t in ambiguous.candidates)))
        genuine = [c for c in checked if c.genuine]
        if len(genuine) > 1:
            raise UserError(str(ambiguous)) from None
        if not genuine:
            reasons = "; ".join(f"{describe_table(c.table)}: {c.problem}" for c in checked)
            raise AdvertRefused(f"not joining: no table that fits answers as advertised "
                                f"({reasons})", checked) from None
        return genuine[0]
    checked_one = await check_advert(table, PROBE_TIMEOUT_S, PROBE_ATTEMPTS)
    if not checked_one.genuine:
        name = safe_name(table.ad.name, MAX_TABLE_NAME_CHARS)
        raise AdvertRefused(f"not joining {name!r}: {checked_one.problem}", [checked_one])
    return checked_one


async def find_table(interface: str, wanted: str | None, seconds: float) -> CheckedTable:
    """Browse until the table `wanted` is found and its host answers as its advert says.

    An advert refused (a copy) is left out and the browse goes on for the real table until
    `seconds` have passed; then the last refusal is the answer.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    refused: set[tuple[bytes, str, int]] = set()

    def fresh(tables: list[FoundTable]) -> list[FoundTable]:
        return [t for t in tables if table_key(t) not in refused]

    last: AdvertRefused | None = None
    while True:
        found = await browse_tables(interface, max(deadline - loop.time(), MIN_BROWSE_S),
                                    until=lambda tables: settled(fresh(tables), wanted))
        try:
            return await choose_table(fresh(found.tables), wanted)
        except AdvertRefused as exc:
            last = exc
            refused.update(table_key(c.table) for c in exc.refused)
        except UserError:
            if last is None:
                raise
            raise last from None  # nothing else fits: the refusal is what the player needs
        if loop.time() >= deadline:
            raise last


async def find_for(opts: PeerOptions, args: argparse.Namespace,
                   frontend: Frontend) -> tuple[FoundTable, ProbeResult, str]:
    """`join` and `watch`: the table the arguments name, found and checked against its
    host, with what its host said and its name fit for the terminal."""
    return await _find_on(opts.interface, args, frontend)


async def _find_on(interface: str, args: argparse.Namespace,
                   frontend: Frontend) -> tuple[FoundTable, ProbeResult, str]:
    frontend.status(_("looking for tables on {interface} ...").format(interface=interface))
    checked = await find_table(interface, args.table, args.browse_seconds)
    assert checked.probe is not None  # a genuine table answered
    return checked.table, checked.probe, safe_name(checked.table.ad.name, MAX_TABLE_NAME_CHARS)


async def _find_and_join(args: argparse.Namespace, frontend: Frontend) -> GameResult:
    interface = check_interface(args.interface) if args.interface else (
        default_interface_address())
    try:
        async with asyncio.TaskGroup() as group:
            group.create_task(asyncio.to_thread(load_the_game, bot=args.bot), name="load the game")
            table, probe, name = await _find_on(interface, args, frontend)
    except* HanabiError as errors:  # (the loading cannot fail so: the browse's own error)
        raise errors.exceptions[0] from None
    from hanabi_p2p.frontends.launch import join_known

    opts = peer_options(args, interface=interface)
    if table.ad.seats_taken >= table.ad.seats_total:
        # what the person can do next: follow the game, or come back to a seat of theirs
        raise UserError(f"table {name!r} is full ({table.ad.seats_total} seats taken): "
                        f"hanabi-p2p watch {shlex.quote(name)} follows its game; a player "
                        f"seated there comes back with {RESUME_COMMAND}")
    frontend.status(_("joining {name} at {address}").format(
        name=repr(name), address=f"{table.address}:{table.port}"))
    # the handshake proves the host holds the key the advert names (dialled as expected)
    return await join_known(opts, table.address, table.port, probe.table_id, probe.host_id,
                            frontend)
