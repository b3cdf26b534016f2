"""The code against protocol/vectors/session/table-open-v1.json (SPEC 5.1, 5.6, 6.4)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hanabi_p2p.log import canonical
from hanabi_p2p.session.bodies import BadBody, TableOpen
from tests.protocol.make_table_open_vectors import VECTOR, text


@pytest.fixture(scope="module")
def vector() -> dict[str, Any]:
    return dict(json.loads(VECTOR.read_text()))


def test_each_valid_body_decodes_and_encodes_to_its_bytes(vector: dict[str, Any]) -> None:
    seen = set()
    for case in vector["valid"]:
        table = TableOpen.from_wire(canonical.unpack(bytes.fromhex(case["encoded"])))
        assert canonical.pack(table.to_wire()).hex() == case["encoded"], case["label"]
        assert table.to_wire() == case["body"]
        seen.add((table.turn_timer, table.total_clock))
    assert (None, None) in seen and (30, None) in seen and (None, 600) in seen


def test_each_invalid_body_is_refused(vector: dict[str, Any]) -> None:
    for case in vector["invalid"]:
        with pytest.raises(BadBody):
            TableOpen.from_wire(case["body"])


def test_the_file_is_what_its_generator_writes() -> None:
    assert VECTOR.read_text() == text()
