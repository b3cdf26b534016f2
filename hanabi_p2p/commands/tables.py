"""`hanabi-p2p tables`: list the tables advertised on the local network (mDNS).

Every advert is checked against the host that answers at its address (`probe.advert_problem`):
a copied advert - a real table's name and fingerprint, another machine's key - is marked and
explained under the list instead of looking like a second copy of the real table.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from hanabi_p2p.commands.peerargs import check_can_listen
from hanabi_p2p.errors import UserError
from hanabi_p2p.limits import MAX_TABLE_NAME_CHARS
from hanabi_p2p.net.discovery import (
    MAX_BROWSE_S,
    FoundTable,
    browse_tables,
    check_interface,
    default_interface_address,
)
from hanabi_p2p.peer.probe import CheckedTable, check_advert
from hanabi_p2p.safe_text import safe, safe_name

HELP = "list the tables hosted on the local network"
DEFAULT_TIMEOUT_S = 3.0
# PASSWORD: whether the host asks for a table password (--code), from its HELLO
_COLUMNS = ("NAME", "VARIANT", "SEATS", "HOST", "PASSWORD", "ADDRESS", "TABLE")
# Marks before a table's name: its advert does not match its host, or its host did not answer.
MARK_FAKE = "!"
MARK_UNCHECKED = "?"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--interface",
        metavar="IP",
        help="IPv4 address of the network interface to look on "
        "(default: the interface of the default route)",
    )
    parser.add_argument(
        "--timeout",
        metavar="S",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        help=f"seconds to listen for tables (default: {DEFAULT_TIMEOUT_S:g})",
    )


def _mark(checked: CheckedTable) -> str:
    if checked.probe is None:
        return MARK_UNCHECKED
    return MARK_FAKE if checked.problem else ""


def _host(table: FoundTable) -> str:
    ad = table.ad
    fingerprint = safe_name(ad.host_fingerprint)
    return f"{safe_name(ad.host_name)} {fingerprint}" if ad.host_name else fingerprint


def _row(checked: CheckedTable) -> tuple[str, ...]:
    table = checked.table
    ad = table.ad
    variant = ad.variant + "".join(f" +{o}" for o in ad.options)
    if not table.compatible:
        variant += f" (protocol v{ad.version}: cannot join)"
    code = {None: MARK_UNCHECKED, True: "yes", False: "no"}[
        None if checked.probe is None else checked.probe.uses_secret
    ]
    return (
        _mark(checked) + safe(ad.name, MAX_TABLE_NAME_CHARS),  # peer-provided: the one sanitiser
        variant,
        f"{ad.seats_taken}/{ad.seats_total}",
        _host(table),
        code,
        f"{table.address}:{table.port}",
        ad.table_id.hex()[:8],
    )


def format_tables(tables: list[CheckedTable]) -> str:
    """A plain-text table, one line per table, columns aligned; then one note per table whose
    advert does not match its host or whose host did not answer."""
    rows = [_COLUMNS, *(_row(t) for t in tables)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_COLUMNS))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    for checked in tables:
        if checked.problem:
            table = checked.table
            where = f"{safe(table.ad.name, MAX_TABLE_NAME_CHARS)!r} at {table.address}:{table.port}"
            lines.append(f"{_mark(checked)} {where}: {safe(checked.problem)}")
    if any(_mark(t) == MARK_FAKE for t in tables):
        lines.append(f"{MARK_FAKE} join refuses these tables: their advert does not match "
                     "the host that answers")
    return "\n".join(lines)


async def list_tables(interface: str, timeout: float) -> tuple[list[CheckedTable], int]:
    """The tables on the LAN, each checked against its host; and how many adverts were junk."""
    result = await browse_tables(interface, timeout)
    checked = await asyncio.gather(*(check_advert(t) for t in result.tables))
    return list(checked), result.ignored


def run(args: argparse.Namespace) -> int:
    if not 0 < args.timeout <= MAX_BROWSE_S:
        raise UserError(f"--timeout must be more than 0 and at most {MAX_BROWSE_S:g} seconds")
    if args.interface:
        interface = check_interface(args.interface)
        check_can_listen(interface, 0)  # an address of another machine, said as such
    else:
        interface = default_interface_address()
    tables, ignored = asyncio.run(list_tables(interface, args.timeout))
    if ignored:
        plural = "s" if ignored > 1 else ""
        print(f"ignored {ignored} malformed table advert{plural}", file=sys.stderr)
    if not tables:
        print(f"no tables found on {interface} within {args.timeout:g} s")
        return 0
    print(format_tables(tables))
    hint = watch_hint(tables)
    if hint:  # advice for people, apart from the listing scripts read
        print(hint, file=sys.stderr)
    return 0


def watch_hint(tables: list[CheckedTable]) -> str:
    """How to follow a game at a full table, if one is listed."""
    if any(t.table.ad.seats_taken >= t.table.ad.seats_total and not t.problem for t in tables):
        return "a full table is being played: hanabi-p2p watch NAME follows its game"
    return ""
