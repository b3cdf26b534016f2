"""The bodies of the three spectator messages (SPEC §4.8): MSG frames over a link, never log
entries. Each decoder returns a typed value or raises ``BadBody`` and nothing else, whatever
the bytes (tests/peer/test_watchwire.py fuzzes them).

* ``watch`` (spectator -> seated peer): msgpack str, the spectator's name;
* ``watch.keys`` (seated peer -> spectator, at a table with the ``spectators`` option):
  msgpack array of ``[position, k]``, k the sender's 32-byte key for that position;
* ``watchers`` (seated peer -> seated peers): msgpack array of ``[peer_id, name]``, the
  spectators linked to the sender, so every player's screen lists who is watching;
* ``watch.no`` (seated peer -> spectator, before it closes the link): msgpack str, why the
  spectator is not taken (the table has all the spectators it takes).
"""

from __future__ import annotations

from typing import Any

import msgpack

from hanabi_p2p.deck.messages import MAX_DECK_SIZE
from hanabi_p2p.limits import (
    MAX_PLAYER_NAME_CHARS,
    MAX_REASON_CHARS,
    MAX_WATCHERS,
    PEER_ID_BYTES,
)
from hanabi_p2p.peer.wirebody import unpack_body
from hanabi_p2p.session.bodies import BadBody, spectator_name

WATCH_TOPIC = "watch"
WATCH_KEYS_TOPIC = "watch.keys"
WATCHERS_TOPIC = "watchers"
WATCH_REFUSED_TOPIC = "watch.no"
KEY_BYTES = 32
# An encoded body is never longer than this (a full deck of keys is about 2.2 KiB).
MAX_WATCH_BODY_BYTES = 8 * 1024


def _unpack(data: bytes, what: str) -> Any:
    return unpack_body(data, what, max_bytes=MAX_WATCH_BODY_BYTES, max_array_len=MAX_DECK_SIZE,
                       max_str_len=4 * max(MAX_PLAYER_NAME_CHARS, MAX_REASON_CHARS),
                       max_bin_len=PEER_ID_BYTES)


def encode_watch(name: str) -> bytes:
    return msgpack.packb(name)  # type: ignore[no-any-return]


def decode_watch(data: bytes) -> str:
    return spectator_name(_unpack(data, WATCH_TOPIC))


def encode_keys(keys: dict[int, bytes]) -> bytes:
    return msgpack.packb([[position, keys[position]] for position in sorted(keys)])  # type: ignore[no-any-return]


def decode_keys(data: bytes) -> list[tuple[int, bytes]]:
    value = _unpack(data, WATCH_KEYS_TOPIC)
    if not isinstance(value, list):
        raise BadBody("watch.keys: body must be an array")
    out: list[tuple[int, bytes]] = []
    for item in value:
        if (not isinstance(item, list) or len(item) != 2 or type(item[0]) is not int
                or not 0 <= item[0] < MAX_DECK_SIZE or not isinstance(item[1], bytes)
                or len(item[1]) != KEY_BYTES):
            raise BadBody("watch.keys: each item is [position, 32-byte key]")
        out.append((item[0], item[1]))
    if len({p for p, _k in out}) != len(out):
        raise BadBody("watch.keys: a position is listed twice")
    return out


def encode_watchers(watchers: dict[bytes, str]) -> bytes:
    return msgpack.packb([[p, watchers[p]] for p in sorted(watchers)])  # type: ignore[no-any-return]


def decode_watchers(data: bytes) -> dict[bytes, str]:
    value = _unpack(data, WATCHERS_TOPIC)
    if not isinstance(value, list) or len(value) > MAX_WATCHERS:
        raise BadBody(f"watchers: body must be an array of at most {MAX_WATCHERS}")
    out: dict[bytes, str] = {}
    for item in value:
        if (not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], bytes)
                or len(item[0]) != PEER_ID_BYTES):
            raise BadBody("watchers: each item is [32-byte peer id, name]")
        out[item[0]] = spectator_name(item[1])
    return out


def encode_refusal(reason: str) -> bytes:
    return msgpack.packb(reason[:MAX_REASON_CHARS])  # type: ignore[no-any-return]


def decode_refusal(data: bytes) -> str:
    value = _unpack(data, WATCH_REFUSED_TOPIC)
    if not isinstance(value, str) or len(value) > MAX_REASON_CHARS:
        raise BadBody(f"watch.no: body must be a text of at most {MAX_REASON_CHARS} characters")
    return value
