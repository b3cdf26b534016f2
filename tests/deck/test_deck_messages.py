"""Wire forms: round trips, and hostile input either parses or raises RemoteProtocolError."""

from __future__ import annotations

import contextlib
from typing import Any

import msgpack
import pytest
from deck_helpers import ready_table
from hypothesis import given, settings
from hypothesis import strategies as st

from hanabi_p2p.deck import decode_message
from hanabi_p2p.deck.messages import MAX_DECK_SIZE, DeckMessage
from hanabi_p2p.errors import RemoteProtocolError


@pytest.fixture(scope="module")
def published() -> list[DeckMessage]:
    table = ready_table(3, label="wire")
    table.deal(0, owner=1)
    table.reveal_all(0)
    table.reveal_seeds()
    return [message for _, message in table.sent]


def test_every_kind_round_trips_through_msgpack(published: list[DeckMessage]) -> None:
    kinds = set()
    for message in published:
        wire = msgpack.unpackb(msgpack.packb(message.to_wire()), raw=False)
        assert decode_message(wire, "peer") == message
        kinds.add(message.KIND)
    assert kinds == {"deck.commit", "deck.shuffle", "deck.lock", "deck.owner-key",
                     "deck.shared-keys", "deck.public-key", "deck.seed"}


BAD_WIRE: list[tuple[Any, str]] = [
    ({"kind": "deck.seed"}, "expected a list"),
    ([], "expected a list"),
    ([b"deck.seed", bytes(32)], "expected a list"),
    (["deck.nope", 1], "unknown kind"),
    (["deck.seed"], "takes 1 fields"),
    (["deck.seed", bytes(32), 0], "takes 1 fields"),
    (["deck.seed", bytes(31)], "seed must be 32 bytes"),
    (["deck.seed", "x" * 32], "seed must be 32 bytes"),
    (["deck.commit", bytes(64), bytearray(32)], "x25519_pub"),
    (["deck.shuffle", bytes(32), bytes(33), bytes(64)], "points must be"),
    (["deck.shuffle", bytes(32), b"", bytes(64)], "points must be"),
    (["deck.shuffle", bytes(32), bytes(32 * (MAX_DECK_SIZE + 1)), bytes(64)], "points must be"),
    (["deck.lock", bytes(64), bytes(64), bytes(64)], "differ in length"),
    (["deck.owner-key", True, bytes(32)], "position"),
    (["deck.owner-key", -1, bytes(32)], "position"),
    (["deck.owner-key", MAX_DECK_SIZE, bytes(32)], "position"),
    (["deck.public-key", 1.0, bytes(32)], "position"),
    (["deck.shared-keys", 0, 0, [[2, bytes(48)], [1, bytes(48)]]], "ascending"),
    (["deck.shared-keys", 0, 0, [[1, bytes(48)], [1, bytes(48)]]], "ascending"),
    (["deck.shared-keys", 0, 0, [[1, bytes(47)]]], "ciphertext"),
    (["deck.shared-keys", 0, 0, [[1]]], "each share"),
    (["deck.shared-keys", 0, 0, [[1, bytes(48)]] * 6], "at most"),
    (["deck.shared-keys", 0, 5, []], "owner"),
]


@pytest.mark.parametrize(("wire", "reason"), BAD_WIRE)
def test_malformed_messages_are_rejected_naming_the_peer(wire: Any, reason: str) -> None:
    with pytest.raises(RemoteProtocolError, match=reason) as error:
        decode_message(wire, "seat 2 (abcd)")
    assert error.value.peer == "seat 2 (abcd)"


msgpack_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**64, 2**64) | st.binary(max_size=80)
    | st.text(max_size=20) | st.sampled_from(["deck.seed", "deck.lock", "deck.shared-keys",
                                             "deck.owner-key", "deck.shuffle"]),
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=12)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(msgpack_values)
def test_fuzz_any_input_parses_or_raises_remote_protocol_error(value: Any) -> None:
    try:
        message = decode_message(value, "fuzz")
    except RemoteProtocolError:
        return
    assert decode_message(message.to_wire(), "fuzz") == message


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.data())
def test_fuzz_mutated_real_messages(published: list[DeckMessage], data: st.DataObject) -> None:
    wire = list(data.draw(st.sampled_from(published)).to_wire())
    index = data.draw(st.integers(1, len(wire) - 1))
    wire[index] = data.draw(msgpack_values)
    with contextlib.suppress(RemoteProtocolError):
        decode_message(wire, "fuzz")


def test_from_wire_of_a_kind_rejects_other_kinds(published: list[DeckMessage]) -> None:
    for message in published:
        assert type(message).from_wire(message.to_wire(), "peer") == message
    seed = next(m for m in published if m.KIND == "deck.seed")
    commit_type = type(next(m for m in published if m.KIND == "deck.commit"))
    with pytest.raises(RemoteProtocolError, match=r"expected deck\.commit"):
        commit_type.from_wire(seed.to_wire(), "peer")
