"""The signed `complete` body (SPEC §4.6): the h11 fuzz invariant (any bytes decode or raise
BadComplete), a round trip, and every way a word can fail to be its signer's."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hanabi_p2p.identity import Identity
from hanabi_p2p.log import canonical
from hanabi_p2p.peer import completewire as cw

TABLE = bytes(range(16))
ALICE = Identity.from_seed(b"\x01" * 32)
BOB = Identity.from_seed(b"\x02" * 32)
HOLDS = {ALICE.peer_id: 40, BOB.peer_id: 38}

values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.binary(max_size=70),
    lambda inner: st.lists(inner, max_size=6), max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=cw.MAX_COMPLETE_BYTES + 8))
def test_any_bytes_decode_or_raise_bad_complete(data: bytes) -> None:
    with contextlib.suppress(cw.BadComplete):
        cw.decode(data)


@settings(max_examples=300, deadline=None)
@given(values)
def test_any_canonical_value_decodes_or_raises_bad_complete(value: object) -> None:
    with contextlib.suppress(cw.BadComplete, canonical.CanonicalError):
        cw.decode(canonical.pack(value))


def test_a_word_round_trips_and_covers_what_its_signer_holds() -> None:
    claim = cw.decode(cw.encode(ALICE, TABLE, HOLDS))
    assert (claim.table_id, claim.signer, dict(claim.holds)) == (TABLE, ALICE.peer_id, HOLDS)
    assert claim.covers({ALICE.peer_id: 40, BOB.peer_id: 1})
    assert not claim.covers({ALICE.peer_id: 41})


@pytest.mark.parametrize("forge", ["signer", "holds", "signature", "table"])
def test_a_word_changed_by_anyone_but_its_signer_does_not_verify(forge: str) -> None:
    table, signer, items, signature = canonical.unpack(cw.encode(ALICE, TABLE, HOLDS))
    if forge == "signer":
        signer = BOB.peer_id  # "Bob holds all this", in Alice's signature
    elif forge == "holds":
        items[0][1] += 1
    elif forge == "signature":
        signature = bytes(64)
    else:
        table = bytes(16)
    with pytest.raises(cw.BadComplete, match="signature does not verify"):
        cw.decode(canonical.pack([table, signer, items, signature]))


def test_holdings_out_of_order_or_twice_are_refused() -> None:
    table, signer, items, signature = canonical.unpack(cw.encode(ALICE, TABLE, HOLDS))
    with pytest.raises(cw.BadComplete, match="sorted"):
        cw.decode(canonical.pack([table, signer, items[::-1], signature]))
