"""The host's `lobby.out` parser holds the h11 fuzz invariant: any bytes either parse or
raise BadBody, nothing else (SPEC §4.7)."""

from __future__ import annotations

import contextlib

import msgpack
from hypothesis import given, settings
from hypothesis import strategies as st

from hanabi_p2p.limits import PEER_ID_BYTES
from hanabi_p2p.peer import lobbywire as lw
from hanabi_p2p.session.bodies import BadBody

values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.text(max_size=40)
    | st.binary(min_size=PEER_ID_BYTES - 1, max_size=PEER_ID_BYTES + 1),
    lambda inner: st.lists(inner, max_size=12),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=lw.MAX_OUT_BODY_BYTES + 8))
def test_any_bytes_parse_or_raise_bad_body(data: bytes) -> None:
    with contextlib.suppress(BadBody):
        lw.decode_out(data)


@settings(max_examples=300, deadline=None)
@given(values)
def test_any_msgpack_value_parses_or_raises_bad_body(value: object) -> None:
    with contextlib.suppress(BadBody):
        lw.decode_out(msgpack.packb(value))


@given(st.sets(st.binary(min_size=PEER_ID_BYTES, max_size=PEER_ID_BYTES), max_size=20))
def test_what_we_encode_we_decode(peer_ids: set[bytes]) -> None:
    assert lw.decode_out(lw.encode_out(peer_ids)) == peer_ids
