"""Known-answer vectors: protocol/vectors/net/messages-v4.json must match this code, and a
decoder written from the SPEC alone must accept its bodies and refuse the forged one."""

from __future__ import annotations

import json

import pytest
from make_message_vectors import VECTORS, build

from hanabi_p2p.net.frames import Have, decode_payload
from hanabi_p2p.peer import completewire as cw


def test_the_code_still_produces_the_vectors() -> None:
    assert json.loads(VECTORS.read_text()) == build()


def test_the_vectors_decode_as_the_spec_says() -> None:
    doc = json.loads(VECTORS.read_text())
    have = decode_payload(bytes.fromhex(doc["have"]["payload"]), "vector")
    assert isinstance(have, Have)
    assert {a.hex(): n for a, n in have.next_seq.items()} == doc["have"]["next_seq"]
    assert {a.hex(): h.hex() for a, h in have.heads.items()} == doc["have"]["heads"]
    claim = cw.decode(bytes.fromhex(doc["complete"]["body"]))
    assert claim.signer.hex() == doc["identities"]["alice"]["peer_id"]
    assert {a.hex(): n for a, n in claim.holds.items()} == doc["complete"]["holds"]
    with pytest.raises(cw.BadComplete, match="signature"):
        cw.decode(bytes.fromhex(doc["complete"]["forged_signer_body"]))
