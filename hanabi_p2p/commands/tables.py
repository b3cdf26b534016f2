"""`hanabi-p2p tables`: list the tables advertised on the local network (mDNS)."""

from __future__ import annotations

import argparse
import asyncio
import sys

from hanabi_p2p.errors import UserError
from hanabi_p2p.net.discovery import FoundTable, browse_tables, default_interface_address
from hanabi_p2p.safe_text import safe_name

HELP = "list the tables hosted on the local network"
DEFAULT_TIMEOUT_S = 3.0
_COLUMNS = ("NAME", "VARIANT", "SEATS", "HOST", "ADDRESS", "TABLE")


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


def _row(table: FoundTable) -> tuple[str, ...]:
    ad = table.ad
    variant = ad.variant + "".join(f" +{o}" for o in ad.options)
    if not table.compatible:
        variant += f" (protocol v{ad.version}: cannot join)"
    return (
        safe_name(ad.name),  # peer-provided: the one sanitiser
        variant,
        f"{ad.seats_taken}/{ad.seats_total}",
        safe_name(ad.host_fingerprint),
        f"{table.address}:{table.port}",
        ad.table_id.hex()[:8],
    )


def format_tables(tables: list[FoundTable]) -> str:
    """A plain-text table, one line per table, columns aligned."""
    rows = [_COLUMNS, *(_row(t) for t in tables)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_COLUMNS))]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )


def run(args: argparse.Namespace) -> int:
    interface = args.interface or default_interface_address()
    if not 0 < args.timeout <= 60:
        raise UserError("--timeout must be between 0 and 60 seconds")
    result = asyncio.run(browse_tables(interface, args.timeout))
    if result.ignored:
        plural = "s" if result.ignored > 1 else ""
        print(f"ignored {result.ignored} malformed table advert{plural}", file=sys.stderr)
    if not result.tables:
        print(f"no tables found on {interface} within {args.timeout:g} s")
        return 0
    print(format_tables(result.tables))
    return 0
