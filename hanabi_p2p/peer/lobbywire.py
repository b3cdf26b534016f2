"""The body of the host's `lobby.out` message (SPEC §4.7): a MSG frame over a link, never a
log entry. The decoder returns the peer ids or raises ``BadBody`` and nothing else, whatever
the bytes (tests/peer/test_lobbywire.py fuzzes it).

* ``lobby.out`` (host -> each joiner linked to it, before the seating): msgpack array of the
  32-byte peer ids of the joiners the host will not seat (removed, banned, gone), sorted, so
  that every joiner's screen lists the lobby as the host's does.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgpack

from hanabi_p2p.limits import MAX_LOBBY_OUT, PEER_ID_BYTES
from hanabi_p2p.peer.wirebody import unpack_body
from hanabi_p2p.session.bodies import BadBody

OUT_TOPIC = "lobby.out"
# An encoded body is never longer than this: an array header, then each id as bin 8.
MAX_OUT_BODY_BYTES = 3 + MAX_LOBBY_OUT * (2 + PEER_ID_BYTES)


def encode_out(peer_ids: Iterable[bytes]) -> bytes:
    """The body naming ``peer_ids`` (sorted, at most MAX_LOBBY_OUT: the first ones)."""
    return msgpack.packb(sorted(peer_ids)[:MAX_LOBBY_OUT])  # type: ignore[no-any-return]


def decode_out(data: bytes) -> frozenset[bytes]:
    value = unpack_body(data, OUT_TOPIC, max_bytes=MAX_OUT_BODY_BYTES,
                        max_array_len=MAX_LOBBY_OUT, max_str_len=0, max_bin_len=PEER_ID_BYTES)
    if not isinstance(value, list) or len(value) > MAX_LOBBY_OUT:
        raise BadBody(f"{OUT_TOPIC}: body must be an array of at most {MAX_LOBBY_OUT}")
    if any(not isinstance(p, bytes) or len(p) != PEER_ID_BYTES for p in value):
        raise BadBody(f"{OUT_TOPIC}: each item is a {PEER_ID_BYTES}-byte peer id")
    if value != sorted(set(value)):
        raise BadBody(f"{OUT_TOPIC}: peer ids sorted, each once")
    return frozenset(value)
