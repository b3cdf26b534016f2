"""The spectator message parsers hold the h11 fuzz invariant: any bytes either parse or
raise BadBody, nothing else (SPEC §4.8)."""

from __future__ import annotations

import contextlib

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hanabi_p2p.peer import watchwire as ww
from hanabi_p2p.session.bodies import BadBody

DECODERS = (ww.decode_watch, ww.decode_keys, ww.decode_watchers, ww.decode_refusal)

# msgpack values of the shapes the bodies use, often nearly right
values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.text(max_size=40)
    | st.binary(max_size=40) | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=12),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=ww.MAX_WATCH_BODY_BYTES + 8))
def test_any_bytes_parse_or_raise_bad_body(data: bytes) -> None:
    for decode in DECODERS:
        with contextlib.suppress(BadBody):
            decode(data)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(values)
def test_any_msgpack_value_parses_or_raises_bad_body(value: object) -> None:
    data = msgpack.packb(value)
    for decode in DECODERS:
        with contextlib.suppress(BadBody):
            decode(data)


def test_what_we_encode_we_decode() -> None:
    peer = bytes(range(32))
    assert ww.decode_watch(ww.encode_watch("Zoë 2")) == "Zoë 2"
    assert ww.decode_keys(ww.encode_keys({5: b"k" * 32, 1: b"j" * 32})) == [
        (1, b"j" * 32), (5, b"k" * 32)]
    assert ww.decode_watchers(ww.encode_watchers({peer: "Zoë"})) == {peer: "Zoë"}
    assert ww.decode_refusal(ww.encode_refusal("full")) == "full"
