"""`hanabi-p2p tables`: list the tables advertised on the local network (mDNS).

Every advert is checked against the host that answers at its address (`probe.advert_problem`):
a copied advert - a real table's name and fingerprint, another machine's key - is marked and
explained under the list instead of looking like a second copy of the real table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from hanabi_p2p.commands.peerargs import check_can_listen
from hanabi_p2p.errors import UserError
from hanabi_p2p.identity import FINGERPRINT_CHARS
from hanabi_p2p.limits import MAX_TABLE_NAME_CHARS
from hanabi_p2p.net.discovery import (
    MAX_BROWSE_S,
    FoundTable,
    browse_tables,
    check_interface,
    default_interface_address,
)
from hanabi_p2p.peer.probe import CheckedTable, check_advert
from hanabi_p2p.safe_text import ELLIPSIS, safe, safe_name
from hanabi_p2p.ui.text import fit, get_cwidth, plain

HELP = "list the tables hosted on the local network"
DEFAULT_TIMEOUT_S = 3.0
# PASSWORD: whether the host asks for a table password (--code), from its HELLO
_COLUMNS = ("NAME", "VARIANT", "SEATS", "HOST", "PASSWORD", "ADDRESS", "TABLE")
# Marks before a table's name: its advert does not match its host, or its host did not answer.
MARK_FAKE = "!"
MARK_UNCHECKED = "?"
# The listing fits a classic terminal (a default table name, a host name and a LAN address
# made rows of 81 to 89 columns, which wrapped). The columns it may cut with an ellipsis,
# the widest first, and how narrow each may become: a host keeps its fingerprint whole. The
# seats, password, address and id are never cut: they are what one types or compares.
SCREEN_COLUMNS = 80
GAP = "  "
SHRINKABLE_COLUMNS = {"NAME": 8, "VARIANT": 8, "HOST": FINGERPRINT_CHARS + 1}
# The width when the listing goes to a pipe or a file: wider than any row, so nothing is cut.
UNLIMITED_COLUMNS = 10_000


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
    parser.add_argument("--json", action="store_true",
                        help="print one JSON document instead of the listing (its keys: "
                        "docs/json.md)")


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
    if ad.turn_timer is not None:
        # a timed table: its clock, seen before anyone sits down
        variant += f" timer {ad.turn_timer}s"
    if ad.total_clock is not None:  # and each player's time for all its turns
        variant += f" clock {ad.total_clock}s"
    code = {None: MARK_UNCHECKED, True: "yes", False: "no"}[
        None if checked.probe is None else checked.probe.uses_secret
    ]
    return (
        # peer-provided: the one sanitiser
        _mark(checked) + safe_name(ad.name, MAX_TABLE_NAME_CHARS),
        variant,
        f"{ad.seats_taken}/{ad.seats_total}",
        _host(table),
        code,
        f"{table.address}:{table.port}",
        ad.table_id.hex()[:8],
    )


def _widths(rows: list[tuple[str, ...]], columns: int) -> list[int]:
    """Column widths that fit `columns`, the shrinkable columns cut as far as needed."""
    natural = [max(get_cwidth(row[i]) for row in rows) for i in range(len(_COLUMNS))]
    widths = list(natural)
    excess = sum(widths) + len(GAP) * (len(widths) - 1) - columns
    narrowest = {_COLUMNS.index(heading): least for heading, least in SHRINKABLE_COLUMNS.items()}
    while excess > 0:
        # one column off the widest that may still give one: no name is cut to nothing
        # while another is left long
        room = {i: widths[i] - least for i, least in narrowest.items() if widths[i] > least}
        if not room:
            break  # the fixed columns alone are wider than the screen: nothing more to cut
        widest = max(room, key=lambda i: widths[i])
        widths[widest] -= 1
        excess -= 1
    # a host column too narrow for a letter of a name, an ellipsis and the fingerprint shows
    # the fingerprint alone: the columns it would leave blank go back to the most cut column
    host, least = _COLUMNS.index("HOST"), SHRINKABLE_COLUMNS["HOST"]
    blank = widths[host] - least
    if 0 < blank < len(" x") + get_cwidth(ELLIPSIS) and widths[host] < natural[host]:
        widths[host] = least
        others = [i for i in narrowest if i != host]
        most_cut = max(others, key=lambda i: natural[i] - widths[i])
        widths[most_cut] += min(blank, natural[most_cut] - widths[most_cut])
    return widths


def _cut(heading: str, cell: str, width: int) -> str:
    """`cell` in at most `width` columns; a host keeps its fingerprint whole while it can
    (its name is cut instead: the fingerprint is what one compares)."""
    if get_cwidth(cell) <= width:
        return cell
    name, space, fingerprint = cell.rpartition(" ")
    if heading == "HOST" and space and get_cwidth(fingerprint) <= width:
        room = width - get_cwidth(space + fingerprint)
        if room <= get_cwidth(ELLIPSIS):
            return fingerprint  # no letter of the name would be left
        return _ellipsized(name, room) + space + fingerprint
    return _ellipsized(cell, width)


def _ellipsized(text: str, width: int) -> str:
    """`text` cut to `width` columns with an ellipsis, none of the cut's spaces before it."""
    cut = plain(fit([("", text)], width))
    return cut[:-len(ELLIPSIS)].rstrip() + ELLIPSIS if cut != text else cut


def _line(row: tuple[str, ...], widths: list[int]) -> str:
    cells = [_cut(heading, cell, width)
             for heading, cell, width in zip(_COLUMNS, row, widths, strict=True)]
    return GAP.join(cell + " " * (width - get_cwidth(cell))
                    for cell, width in zip(cells, widths, strict=True)).rstrip()


def format_tables(tables: list[CheckedTable], columns: int = SCREEN_COLUMNS) -> str:
    """A plain-text table, one line per table, columns aligned, at most `columns` wide; then
    one note per table this program cannot join (another protocol version), whose advert
    does not match its host or whose host did not answer."""
    rows = [_COLUMNS, *(_row(t) for t in tables)]
    widths = _widths(rows, columns)
    lines = [_line(row, widths) for row in rows]
    for checked in tables:
        table = checked.table
        name = safe_name(table.ad.name, MAX_TABLE_NAME_CHARS)
        where = f"{name!r} at {table.address}:{table.port}"
        if not table.compatible:  # said here, whole: in its variant cell it could be cut
            lines.append(f"{where}: protocol v{table.ad.version}: cannot join (it needs another "
                         "version of hanabi-p2p)")
        if checked.problem:
            lines.append(f"{_mark(checked)} {where}: {safe(checked.problem)}")
    if any(_mark(t) == MARK_FAKE for t in tables):
        lines.append(f"{MARK_FAKE} join refuses these tables: their advert does not match "
                     "the host that answers")
    return "\n".join(lines)


JSON_FORMAT = 1


def table_json(checked: CheckedTable) -> dict[str, Any]:
    """One table of `tables --json`: every field of its advert as sent (JSON escapes what a
    terminal must not see: the document is printed ASCII only), and what its host said."""
    table, probe = checked.table, checked.probe
    ad = table.ad
    return {
        "name": ad.name,
        "variant": ad.variant,
        "options": list(ad.options),
        "seats_taken": ad.seats_taken,
        "seats_total": ad.seats_total,
        "host_name": ad.host_name,
        "host_fingerprint": ad.host_fingerprint,
        "turn_timer": ad.turn_timer,
        "total_clock": ad.total_clock,
        "address": table.address,
        "port": table.port,
        "table_id": ad.table_id.hex(),
        "protocol_version": ad.version,
        "compatible": table.compatible,
        "answered": probe is not None,
        "password": probe.uses_secret if probe is not None else None,
        "genuine": probe is not None and not checked.problem,
        "problem": checked.problem,
    }


def tables_document(interface: str, tables: list[CheckedTable], ignored: int) -> dict[str, Any]:
    return {"format": JSON_FORMAT, "interface": interface, "ignored_adverts": ignored,
            "tables": [table_json(t) for t in tables]}


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
    if args.json:
        sys.stdout.write(json.dumps(tables_document(interface, tables, ignored), indent=1,
                                    ensure_ascii=True) + "\n")
        return 0
    if ignored:
        plural = "s" if ignored > 1 else ""
        print(f"ignored {ignored} malformed table advert{plural}", file=sys.stderr)
    if not tables:
        print(f"no tables found on {interface} within {args.timeout:g} s")
        return 0
    # cut to fit a terminal only: a script or a file gets every name whole
    print(format_tables(tables, SCREEN_COLUMNS if sys.stdout.isatty() else UNLIMITED_COLUMNS))
    hint = watch_hint(tables)
    if hint:  # advice for people, apart from the listing scripts read
        print(hint, file=sys.stderr)
    return 0


def watch_hint(tables: list[CheckedTable]) -> str:
    """How to follow a game at a full table, if one is listed."""
    if any(t.table.ad.seats_taken >= t.table.ad.seats_total and not t.problem for t in tables):
        return "a full table is being played: hanabi-p2p watch NAME follows its game"
    return ""
