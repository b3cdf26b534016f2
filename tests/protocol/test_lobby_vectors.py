"""The code against protocol/vectors/lobby/lobby-v1.json (SPEC §4.7)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hanabi_p2p.peer import lobbywire as lw
from hanabi_p2p.session.bodies import BadBody
from tests.protocol.make_lobby_vectors import VECTOR, build


@pytest.fixture(scope="module")
def vector() -> dict[str, Any]:
    return dict(json.loads(VECTOR.read_text()))


def test_the_file_is_what_the_generator_builds(vector: dict[str, Any]) -> None:
    assert vector == json.loads(json.dumps(build()))


def test_valid_bodies_encode_and_decode_as_pinned(vector: dict[str, Any]) -> None:
    assert vector["topic"] == lw.OUT_TOPIC
    for case in vector["valid"]:
        peer_ids = [bytes.fromhex(p) for p in case["peer_ids"]]
        assert lw.encode_out(reversed(peer_ids)).hex() == case["body"]
        assert lw.decode_out(bytes.fromhex(case["body"])) == frozenset(peer_ids)


def test_invalid_bodies_are_refused(vector: dict[str, Any]) -> None:
    assert len(vector["invalid"]) >= 5
    for case in vector["invalid"]:
        with pytest.raises(BadBody):
            lw.decode_out(bytes.fromhex(case["body"]))
