"""The body of ``MSG complete`` (protocol 4, SPEC §4.6): a player's own signed word that it
holds the whole game, relayed by anyone.

After the game a peer stays until every seated player holds every entry it holds. Each
player says so itself, signed, so that the word can travel through others to a peer whose
own link to it is cut — and so that nobody can speak for anyone else: in protocol 3 a
``complete`` listed the players its *sender* believed complete, and a cheater could name an
honest player who still lacked the end of the game, so that the others left without it.

Body: canonical msgpack (SPEC §3.2) ``[table_id, signer, holds, signature]``; ``holds`` is
``[[author, n], ...]`` sorted by author (what the signer stores of each author from seq 0
without a hole, its HAVE), ``signature`` Ed25519 by ``signer`` over
``COMPLETE_LABEL || canonical([table_id, signer, holds])``. `decode` returns a checked
value or raises `BadComplete`, whatever the bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hanabi_p2p.errors import RemoteProtocolError
from hanabi_p2p.identity import verify_signature
from hanabi_p2p.limits import MAX_PLAYERS, MAX_SEQ, PEER_ID_BYTES, SIGNATURE_BYTES, TABLE_ID_BYTES
from hanabi_p2p.log import canonical
from hanabi_p2p.net.handshake import Signer

COMPLETE_TOPIC = "complete"
COMPLETE_LABEL = b"hanabi-p2p/v4/complete"
# A body is never longer than this (five authors: about 330 bytes).
MAX_COMPLETE_BYTES = 1024


class BadComplete(RemoteProtocolError):
    """A ``complete`` body that does not decode, or whose signature does not verify: bytes
    that are nobody's word (a link problem, never a blame)."""

    def __init__(self, reason: str) -> None:
        super().__init__("unknown sender", reason)
        self.args = (reason,)


@dataclass(frozen=True, slots=True)
class Complete:
    table_id: bytes
    signer: bytes
    holds: Mapping[bytes, int]
    body: bytes  # as received: relayed unchanged

    def covers(self, ours: Mapping[bytes, int]) -> bool:
        """Whether the signer holds every entry of ``ours``."""
        return all(self.holds.get(author, 0) >= n for author, n in ours.items())


def _signed_part(table_id: bytes, signer: bytes, holds: list[list[Any]]) -> bytes:
    return COMPLETE_LABEL + canonical.pack([table_id, signer, holds])


def encode(identity: Signer, table_id: bytes, holds: Mapping[bytes, int]) -> bytes:
    items = [[author, holds[author]] for author in sorted(holds)]
    signature = identity.sign(_signed_part(table_id, identity.peer_id, items))
    return canonical.pack([table_id, identity.peer_id, items, signature])


def decode(data: bytes) -> Complete:
    if len(data) > MAX_COMPLETE_BYTES:
        raise BadComplete(f"complete: body of {len(data)} bytes is over the limit")
    try:
        value = canonical.unpack(data, "complete")
    except canonical.CanonicalError as exc:
        raise BadComplete(f"complete: {exc}") from None
    if not isinstance(value, list) or len(value) != 4:
        raise BadComplete("complete: body must be [table, signer, holds, signature]")
    table_id, signer, items, signature = value
    if not (isinstance(table_id, bytes) and len(table_id) == TABLE_ID_BYTES
            and isinstance(signer, bytes) and len(signer) == PEER_ID_BYTES
            and isinstance(signature, bytes) and len(signature) == SIGNATURE_BYTES
            and isinstance(items, list) and len(items) <= MAX_PLAYERS):
        raise BadComplete("complete: a field has the wrong type or size")
    holds: dict[bytes, int] = {}
    for item in items:
        if (not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], bytes)
                or len(item[0]) != PEER_ID_BYTES or type(item[1]) is not int
                or not 0 <= item[1] <= MAX_SEQ):
            raise BadComplete("complete: each holding is [32-byte author, count]")
        holds[item[0]] = item[1]
    if list(holds) != sorted(holds) or len(holds) != len(items):
        raise BadComplete("complete: holdings must be sorted by author, each once")
    if not verify_signature(signer, signature, _signed_part(table_id, signer, items)):
        raise BadComplete("complete: the signature does not verify")
    return Complete(table_id, signer, holds, data)
