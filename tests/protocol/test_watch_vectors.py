"""The code against protocol/vectors/watch/watch-v1.json (SPEC §2.12, §4.8, §5.1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hanabi_p2p.log import canonical
from hanabi_p2p.peer import watchwire as ww
from hanabi_p2p.session.bodies import BadBody, TableOpen
from tests.protocol.make_watch_vectors import VECTOR, dealt_table, spectator_faces

DECODERS = {
    ww.WATCH_TOPIC: ww.decode_watch,
    ww.WATCH_KEYS_TOPIC: ww.decode_keys,
    ww.WATCHERS_TOPIC: ww.decode_watchers,
    ww.WATCH_REFUSED_TOPIC: ww.decode_refusal,
}


@pytest.fixture(scope="module")
def vector() -> dict[str, Any]:
    return dict(json.loads(Path(VECTOR).read_text()))


def test_each_seat_sends_a_spectator_exactly_its_keys_of_the_others_cards(
        vector: dict[str, Any]) -> None:
    keys = vector["keys"]
    table = dealt_table()
    assert table.table_id.hex() == keys["table_id"]
    assert [p.hex() for p in table.peer_ids] == keys["peer_ids"]
    hand = table.config.hand_size
    for seat, (peer, expected) in enumerate(zip(table.peers, keys["sent"], strict=True)):
        sent = peer.spectator_keys()
        assert {str(p): k.hex() for p, k in sent.items()} == expected["keys"]
        assert ww.encode_keys(sent).hex() == expected["body"]
        assert ww.decode_keys(bytes.fromhex(expected["body"])) == sorted(sent.items())
        # never a key of a card in the sender's own hand
        assert not set(sent) & set(range(seat * hand, (seat + 1) * hand))


def test_a_spectator_decodes_every_hand_with_the_keys_and_none_without(
        vector: dict[str, Any]) -> None:
    keys = vector["keys"]
    table = dealt_table()
    private = {entry["seat"]: {int(p): bytes.fromhex(k) for p, k in entry["keys"].items()}
               for entry in keys["sent"]}
    faces = spectator_faces(table, private)
    assert {str(p): f for p, f in faces.items()} == keys["faces_with_keys"]
    assert spectator_faces(table, None) == {} == keys["faces_public_view"]
    # one seat's keys missing: the cards it dealt stay locked (every key is needed)
    without_one = {seat: k for seat, k in private.items() if seat != 1}
    decoded = spectator_faces(table, without_one)
    hand = table.config.hand_size
    assert set(decoded) == set(range(hand, 2 * hand))  # only seat 1's own hand


def test_spectator_messages_decode_as_the_vector_says(vector: dict[str, Any]) -> None:
    for case in vector["messages"]["valid"]:
        value = DECODERS[case["topic"]](bytes.fromhex(case["body"]))
        if case["topic"] == ww.WATCHERS_TOPIC:
            assert isinstance(value, dict)
            value = [[p.hex(), n] for p, n in sorted(value.items())]
        assert value == case["value"]
    for case in vector["messages"]["invalid"]:
        with pytest.raises(BadBody):
            DECODERS[case["topic"]](bytes.fromhex(case["body"]))


def test_table_options_parse_as_the_vector_says(vector: dict[str, Any]) -> None:
    for case in vector["table_open"]["valid"]:
        body = canonical.unpack(bytes.fromhex(case["body"]))  # as a log holds it (SPEC 3.2)
        parsed = TableOpen.from_wire(body)
        assert sorted(o.value for o in parsed.table_options) == case["table_options"]
        assert parsed.deck_group.value == case["deck_group"]
        assert parsed.to_wire() == body  # one encoding per table
    for case in vector["table_open"]["invalid"]:
        with pytest.raises(BadBody):
            TableOpen.from_wire(canonical.unpack(bytes.fromhex(case["body"])))
