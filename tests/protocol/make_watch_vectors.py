"""Build the spectator known-answer vector (protocol/vectors/watch/watch-v1.json).

What it pins (SPEC §2.12, §4.8, §5.1):

* ``keys``: a 3-player standard deck of the in-memory deck table (fixed label, so fixed seeds
  and peer ids), locked and with the opening hands dealt: for each seat, the keys it sends a
  spectator at a table with the ``spectators`` option (its k of every card it dealt to
  another seat) and the exact ``watch.keys`` body bytes; then every hand card's face as a
  spectator decodes it from the locks, the owners' published keys and those keys — and, for
  the public view, that without the private keys no hand card decodes;
* ``messages``: the four spectator message bodies, encoded, with what they decode to, and
  bodies a receiver must refuse;
* ``table_open``: ``table.open`` bodies with and without table options, the deck group they
  name (SPEC 5.1 `group`: absent only in a 0.2.0 table, edwards25519), and refused ones.

Run `.venv/bin/python tests/protocol/make_watch_vectors.py` to rewrite the file (only with a
deliberate, versioned protocol change); tests/protocol/test_watch_vectors.py checks the code
against it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgpack

from hanabi_p2p.deck.messages import Lock, OwnerKey
from hanabi_p2p.deck.table import DeckTable
from hanabi_p2p.deck.watch import WatchDeck
from hanabi_p2p.log import canonical
from hanabi_p2p.peer import watchwire as ww
from hanabi_p2p.rules.cards import GameConfig, Variant
from hanabi_p2p.session.bodies import DeckGroupName, TableOpen, TableOption

VECTOR = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "watch" / "watch-v1.json"
LABEL = "watch-vector"


def dealt_table() -> DeckTable:
    table = DeckTable(GameConfig(players=3, variant=Variant.STANDARD), LABEL)
    table.setup()
    table.initial_deal()
    return table


def spectator_faces(table: DeckTable, private: dict[int, dict[int, bytes]] | None
                    ) -> dict[int, str]:
    """What a spectator decodes from the public transcript (and the private keys, if any)."""
    watch = WatchDeck(table.config, table.peer_ids)
    for seat, message in table.sent:
        if isinstance(message, Lock | OwnerKey):
            if isinstance(message, OwnerKey):
                watch.check_public_key(seat, message.position, message.key)
            watch.take(seat, [message])
    for seat, keys in sorted((private or {}).items()):
        assert not watch.add_private_keys(seat, sorted(keys.items()))
    return {position: f"{card.suit.value}{card.rank}"
            for position, card in sorted(watch.faces.items())}


def keys_section() -> dict[str, Any]:
    table = dealt_table()
    sent = {seat: peer.spectator_keys() for seat, peer in enumerate(table.peers)}
    faces = spectator_faces(table, sent)
    hand_positions = range(table.config.hand_size * table.config.players)
    truth = {p: f"{c.suit.value}{c.rank}" for p, c in
             sorted(table.peers[0].pop_decoded() + table.peers[1].pop_decoded())}
    assert set(faces) == set(hand_positions) and all(truth[p] == faces[p] for p in truth)
    return {
        "players": table.config.players,
        "variant": table.config.variant.value,
        "label": LABEL,
        "table_id": table.table_id.hex(),
        "peer_ids": [p.hex() for p in table.peer_ids],
        "sent": [{"seat": seat,
                  "keys": {str(p): k.hex() for p, k in sorted(keys.items())},
                  "body": ww.encode_keys(keys).hex()}
                 for seat, keys in sorted(sent.items())],
        "faces_with_keys": {str(p): f for p, f in faces.items()},
        "faces_public_view": {str(p): f for p, f in spectator_faces(table, None).items()},
    }


def messages_section() -> dict[str, Any]:
    peer = bytes(range(32))
    valid = [
        {"topic": ww.WATCH_TOPIC, "body": ww.encode_watch("Zoë").hex(), "value": "Zoë"},
        {"topic": ww.WATCHERS_TOPIC, "body": ww.encode_watchers({peer: "Zoë"}).hex(),
         "value": [[peer.hex(), "Zoë"]]},
        {"topic": ww.WATCH_REFUSED_TOPIC,
         "body": ww.encode_refusal("this table has 8 spectators already").hex(),
         "value": "this table has 8 spectators already"},
    ]
    invalid = [
        {"topic": ww.WATCH_TOPIC, "body": msgpack.packb("two\nlines").hex(),
         "why": "a name must be printable"},
        {"topic": ww.WATCH_TOPIC, "body": msgpack.packb("").hex(), "why": "a name is not blank"},
        {"topic": ww.WATCH_TOPIC, "body": (msgpack.packb("a") + b"\x00").hex(),
         "why": "one msgpack value, nothing after it"},
        {"topic": ww.WATCH_KEYS_TOPIC, "body": msgpack.packb([[3, bytes(31)]]).hex(),
         "why": "a key is 32 bytes"},
        {"topic": ww.WATCH_KEYS_TOPIC,
         "body": msgpack.packb([[3, bytes(32)], [3, bytes(32)]]).hex(),
         "why": "a position once"},
        {"topic": ww.WATCH_KEYS_TOPIC, "body": msgpack.packb([[60, bytes(32)]]).hex(),
         "why": "positions < 60"},
        {"topic": ww.WATCH_KEYS_TOPIC, "body": msgpack.packb([[True, bytes(32)]]).hex(),
         "why": "a position is an integer, never a boolean"},
        {"topic": ww.WATCHERS_TOPIC,
         "body": msgpack.packb([[bytes([i]) * 32, f"w{i}"] for i in range(9)]).hex(),
         "why": "at most MAX_WATCHERS"},
        {"topic": ww.WATCH_REFUSED_TOPIC, "body": msgpack.packb("x" * 201).hex(),
         "why": "a reason of at most 200 characters"},
    ]
    return {"valid": valid, "invalid": invalid}


def table_open_section() -> dict[str, Any]:
    """table.open bodies as a log holds them: canonical msgpack (SPEC 3.2, sorted keys), the
    invalid ones too (so that only the rule each breaks makes it invalid)."""
    config = GameConfig(players=3)
    both = TableOpen("Ann's table", "Ann", config,
                     frozenset({TableOption.HINTS, TableOption.SPECTATORS}))
    plain = TableOpen("Ann's table", "Ann", config)
    old = TableOpen("Ann's table", "Ann", config, deck_group=DeckGroupName.EDWARDS25519)
    base = plain.to_wire()
    return {
        "valid": [
            {"body": canonical.pack(plain.to_wire()).hex(), "table_options": [],
             "deck_group": "ristretto255"},
            {"body": canonical.pack(both.to_wire()).hex(),
             "table_options": ["hints", "spectators"], "deck_group": "ristretto255"},
            {"body": canonical.pack(old.to_wire()).hex(), "table_options": [],
             "deck_group": "edwards25519"},  # 0.2.0: verified, never played
        ],
        "invalid": [
            {"body": canonical.pack({**base, "table": []}).hex(),
             "why": "absent when empty, never an empty array"},
            {"body": canonical.pack({**base, "table": ["spectators", "hints"]}).hex(),
             "why": "in the protocol's order"},
            {"body": canonical.pack({**base, "table": ["hints", "hints"]}).hex(),
             "why": "each once"},
            {"body": canonical.pack({**base, "table": ["cheats"]}).hex(),
             "why": "an option the protocol names"},
            {"body": canonical.pack({**base, "group": "edwards25519"}).hex(),
             "why": "edwards25519 only by leaving `group` out (one encoding per table)"},
            {"body": canonical.pack({**base, "group": "p256"}).hex(),
             "why": "a group the protocol names"},
            {"body": canonical.pack({**base, "group": b"ristretto255"}).hex(),
             "why": "the group is text"},
        ],
    }


def build() -> dict[str, Any]:
    return {
        "about": "Spectators (SPEC 2.12, 4.8, 5.1): keys a seated peer sends a spectator, "
                 "what the spectator decodes, the spectator messages and table options. "
                 "Built by tests/protocol/make_watch_vectors.py.",
        "keys": keys_section(),
        "messages": messages_section(),
        "table_open": table_open_section(),
    }


if __name__ == "__main__":
    VECTOR.write_text(json.dumps(build(), indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {VECTOR}")
