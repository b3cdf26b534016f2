"""Structural verification of a whole log, and its digest.

``verify_entries`` checks what any third party can check without game knowledge: every
signature, one table id, each author's chain (seq 0.. without holes, each ``prev`` the hash
of the author's previous entry) and equivocation. The session layer adds game legality and
the deck audit on top.

``digest`` names a log's content independently of order and duplicates, so peers can compare
copies by reading out one string. Given the game's authors (the seated players, which only the
session layer can read from the seating), it names only their entries: a copy's entries of
anyone else (a joiner removed or never seated) depend on arrival order (SPEC 3.7).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from hanabi_p2p.identity import fingerprint, verify_signature
from hanabi_p2p.log.entry import ZERO_HASH, Entry, signing_input
from hanabi_p2p.log.equivocation import Equivocation

DIGEST_DOMAIN = b"hanabi-p2p/v1/log-digest"


@dataclass(slots=True)
class StructuralReport:
    entry_count: int = 0  # distinct entries
    table_id: bytes | None = None
    authors: dict[bytes, int] = field(default_factory=dict)  # author -> entries
    problems: list[str] = field(default_factory=list)  # each names the author and seq
    equivocations: list[Equivocation] = field(default_factory=list)
    digest: str = ""  # of every entry: the game's digest for a log that seated nobody

    @property
    def ok(self) -> bool:
        return not self.problems and not self.equivocations


def digest(entries: Iterable[Entry], authors: Collection[bytes] | None = None) -> str:
    """Hex SHA-256 of DIGEST_DOMAIN || the sorted distinct entry hashes; of ``authors``'
    entries only, when given (a seated game: its seated players, SPEC 3.7)."""
    hashes = sorted({entry.hash for entry in entries
                     if authors is None or entry.author in authors})
    return hashlib.sha256(DIGEST_DOMAIN + b"".join(hashes)).hexdigest()


def verify_entries(entries: Iterable[Entry]) -> StructuralReport:
    distinct: dict[bytes, Entry] = {}
    for entry in entries:
        distinct.setdefault(entry.hash, entry)
    report = StructuralReport(entry_count=len(distinct), digest=digest(distinct.values()))

    table_ids = sorted({entry.table_id for entry in distinct.values()})
    if table_ids:
        report.table_id = table_ids[0]
    if len(table_ids) > 1:
        report.problems.append(
            "entries from several tables: " + ", ".join(t.hex() for t in table_ids)
        )

    by_author: dict[bytes, dict[int, list[Entry]]] = {}
    for entry in sorted(distinct.values(), key=lambda e: (e.author, e.seq, e.hash)):
        who = f"{fingerprint(entry.author)} seq {entry.seq}"
        if not verify_signature(
            entry.author, entry.signature, signing_input(entry.signed_fields())
        ):
            report.problems.append(f"{who}: bad signature")
            continue
        variants = by_author.setdefault(entry.author, {}).setdefault(entry.seq, [])
        if variants:
            report.equivocations.append(Equivocation(variants[0], entry))
        variants.append(entry)

    for author, chain in sorted(by_author.items()):
        report.authors[author] = sum(len(v) for v in chain.values())
        name = fingerprint(author)
        # Hashes the next entry may link to; with equivocation, any of the variants.
        expected: set[bytes] | None = {ZERO_HASH}
        for seq in range(max(chain) + 1):
            variants = chain.get(seq, [])
            if not variants:
                report.problems.append(f"{name}: entry seq {seq} is missing")
                expected = None  # unknown: skip the next link check
                continue
            for entry in variants:
                if expected is not None and entry.prev not in expected:
                    report.problems.append(
                        f"{name} seq {seq}: prev does not match the hash of entry {seq - 1}"
                    )
            expected = {entry.hash for entry in variants}
    return report
