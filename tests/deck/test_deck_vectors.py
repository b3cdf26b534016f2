"""Known-answer vectors: the code must reproduce protocol/vectors/deck/ byte for byte, and
the vectors must follow the SPEC when recomputed from scratch (hashlib, hmac, libsodium)."""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

import msgpack
import nacl.bindings as sodium
import pytest
import rbcl
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand
from make_deck_vectors import GROUPS, SCENARIOS, VECTOR_DIR, build

from hanabi_p2p.deck import DeckPeer, audit, decode_message
from hanabi_p2p.rules.cards import GameConfig, Variant

# the mental-poker protocol run in full, at every table size: too slow for the fast tier
pytestmark = pytest.mark.slow


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((VECTOR_DIR / name).read_text())
    return data


@pytest.fixture(scope="module", params=sorted(SCENARIOS))
def vector(request: pytest.FixtureRequest) -> dict[str, Any]:
    return load(request.param)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_code_reproduces_the_vectors_exactly(name: str) -> None:
    assert build(*SCENARIOS[name]) == load(name)


def spec_frame(label: str, *parts: bytes | int) -> bytes:
    """SPEC section 1, written again from the text."""
    out = b""
    for part in (label.encode(), *parts):
        raw = part.to_bytes(4, "big") if isinstance(part, int) else part
        out += len(raw).to_bytes(4, "big") + raw
    return out


def test_primitives_follow_the_spec(vector: dict[str, Any]) -> None:
    table_id = bytes.fromhex(vector["table_id"])
    ristretto = vector["group"] == "ristretto255"
    assert vector["group"] in ("ristretto255", "edwards25519")
    assert spec_frame("hanabi-p2p/v1/example", b"ab", 7).hex() == vector["frame_example"]["bytes"]
    for card in vector["card_points"]:
        digest = hashlib.sha512(spec_frame(card["label"])).digest()
        point = (rbcl.crypto_core_ristretto255_from_hash(digest) if ristretto
                 else sodium.crypto_core_ed25519_from_uniform(digest[:32]))
        assert point.hex() == card["point"]
    for seat, expected in enumerate(vector["seats"]):
        peer_id = bytes.fromhex(vector["peer_ids"][seat])
        seed = bytes.fromhex(vector["seeds"][seat])
        prk = hmac.new(spec_frame("hanabi-p2p/v1/deck/seed", table_id, peer_id), seed,
                       hashlib.sha512).digest()
        assert prk.hex() == expected["prk"]

        def scalar(info: bytes, prk: bytes = prk) -> bytes:
            wide = HKDFExpand(hashes.SHA512(), 64, info).derive(prk)
            result: bytes = sodium.crypto_core_ed25519_scalar_reduce(wide)
            return result
        s = scalar(spec_frame("hanabi-p2p/v1/deck/shuffle-scalar", 0))
        assert s.hex() == expected["shuffle_scalar"]
        shuffle_point = (rbcl.crypto_scalarmult_ristretto255_base(s) if ristretto
                         else sodium.crypto_scalarmult_ed25519_base_noclamp(s))
        assert shuffle_point.hex() == expected["shuffle_point"]
        k3 = scalar(spec_frame("hanabi-p2p/v1/deck/lock-scalar", 3, 0))
        assert k3.hex() == expected["lock_scalars"][3]
        x25519_pub = bytes.fromhex(expected["x25519_public"])
        commitment = hashlib.sha512(spec_frame("hanabi-p2p/v1/deck/commit", table_id, peer_id,
                                               seed, x25519_pub)).digest()
        assert commitment.hex() == expected["commitment"]


def test_a_fresh_peer_of_each_seat_replays_its_part(vector: dict[str, Any]) -> None:
    """For every seat, a new DeckPeer with the vector's seed, fed the other seats' messages
    and driven through the scenario, publishes exactly the seat's vector messages and
    decodes exactly the cards it should."""
    config = GameConfig(vector["players"], Variant(vector["variant"]))
    group = GROUPS[vector["group"]]
    table_id = bytes.fromhex(vector["table_id"])
    peer_ids = [bytes.fromhex(p) for p in vector["peer_ids"]]
    messages = [(m["seat"], decode_message(msgpack.unpackb(bytes.fromhex(m["msgpack"])),
                                           f"seat {m['seat']}")) for m in vector["messages"]]
    faces = vector["audit"]["faces"]
    hand = config.hand_size
    public = {0, hand + 1}
    for seat in range(config.players):
        peer = DeckPeer(config, table_id, peer_ids, seat, bytes.fromhex(vector["seeds"][seat]),
                        group=group)
        sent = peer.start()
        for sender, message in messages:
            if sender != seat:
                sent += peer.receive(sender, message)
        assert [p.hex() for p in peer.locked_deck] == vector["locked_deck"]
        for position in range(config.players * hand):
            sent += peer.deal_shares(position, position // hand)
        for position in sorted(public):
            sent += peer.public_share(position)
        sent += peer.seed_reveal()
        assert sent == [m for s, m in messages if s == seat]
        for position in range(config.deck_size):
            dealt_to_other = position < config.players * hand and position // hand != seat
            visible = dealt_to_other or position in public
            known = peer.known_face(position)
            assert (str(known) if known else None) == (faces[position] if visible else None)
    result = audit(config, table_id, peer_ids, messages, group=group)
    assert result.ok
    assert [str(result.faces[i]) for i in range(config.deck_size)] == faces
