"""Proof that an author signed two different entries with the same sequence number.

Honest software never does this (it would fork the author's hash chain), so such a pair is
self-contained evidence anyone can check without trusting whoever relays it.
"""

from __future__ import annotations

from dataclasses import dataclass

from hanabi_p2p.identity import verify_signature
from hanabi_p2p.log.entry import Entry, signing_input


@dataclass(frozen=True, slots=True)
class Equivocation:
    """``first`` is the entry seen first, ``second`` the conflicting one."""

    first: Entry
    second: Entry

    @property
    def author(self) -> bytes:
        return self.first.author

    @property
    def seq(self) -> int:
        return self.first.seq

    def is_valid(self) -> bool:
        """True if this really proves equivocation: same table, author and seq, different
        bytes, and both signatures verify."""
        a, b = self.first, self.second
        return (
            a.author == b.author
            and a.seq == b.seq
            and a.table_id == b.table_id
            and a.encoded != b.encoded
            and all(
                verify_signature(e.author, e.signature, signing_input(e.signed_fields()))
                for e in (a, b)
            )
        )
