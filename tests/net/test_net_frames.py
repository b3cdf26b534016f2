"""Frames: round trips, every limit, and the fuzz invariant (parse or FrameError, nothing else)."""

from __future__ import annotations

import struct

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hanabi_p2p.errors import LocalProtocolError, RemoteProtocolError
from hanabi_p2p.limits import MAX_ENTRY_BYTES, MAX_REASON_CHARS
from hanabi_p2p.net.errors import FrameError
from hanabi_p2p.net.frames import (
    MAX_AUTHORS,
    MAX_FRAME_BYTES,
    Auth,
    Bye,
    Confirm,
    Entry,
    Error,
    Frame,
    FrameDecoder,
    Have,
    Hello,
    Message,
    Pake,
    Ping,
    Pong,
    Want,
    clip_reason,
    encode_frame,
)

PEER = "10.0.0.9:4242"
A = b"\xaa" * 32
B = b"\xbb" * 32

SAMPLES: list[Frame] = [
    Hello(1, b"\x01" * 16, A, b"\x02" * 32, False),
    Hello(65535, b"\x01" * 16, B, b"\x03" * 32, True),
    Pake(b"\x04" * 32),
    Confirm(b"\x05" * 32),
    Auth(b"\x06" * 64),
    Entry(b""),
    Entry(b"x" * 1000),
    Have({}),
    Have({A: 0, B: 2**32 - 1}),
    Have({A: 3, B: 1}, {A: b"\x01" * 32, B: b"\x02" * 32}),
    Want({A: 7}),
    Message("lobby", b"\x00\x01"),
    Ping(0),
    Pong(2**32 - 1),
    Bye(""),
    Error("you sent junk"),
]


def frames_from(stream: bytes, chunk: int | None = None) -> list[Frame]:
    decoder = FrameDecoder(PEER)
    out: list[Frame] = []
    pieces = (
        [stream] if chunk is None else [stream[i : i + chunk] for i in range(0, len(stream), chunk)]
    )
    for piece in pieces:
        decoder.feed(piece)
        while (frame := decoder.next_frame()) is not None:
            out.append(frame)
    return out


def raw_frame(value: object) -> bytes:
    payload: bytes = msgpack.packb(value, use_bin_type=True)
    return struct.pack(">I", len(payload)) + payload


def test_every_frame_type_round_trips_whole_and_byte_by_byte() -> None:
    stream = b"".join(encode_frame(f) for f in SAMPLES)
    assert frames_from(stream) == SAMPLES
    assert frames_from(stream, chunk=1) == SAMPLES
    assert frames_from(stream, chunk=7) == SAMPLES


def test_partial_frame_waits_for_more_bytes() -> None:
    data = encode_frame(Entry(b"hello"))
    decoder = FrameDecoder(PEER)
    decoder.feed(data[:-1])
    assert decoder.next_frame() is None
    decoder.feed(data[-1:])
    assert decoder.next_frame() == Entry(b"hello")
    assert decoder.next_frame() is None


def test_oversize_length_refused_from_prefix_alone() -> None:
    decoder = FrameDecoder(PEER)
    decoder.feed(struct.pack(">I", MAX_FRAME_BYTES + 1))
    with pytest.raises(FrameError) as info:
        decoder.next_frame()
    assert info.value.peer == PEER
    assert "limit" in info.value.reason


def test_every_log_entry_fits_in_an_entry_frame() -> None:
    from hanabi_p2p.log import MAX_ENTRY_BYTES as LOG_MAX_ENTRY_BYTES

    assert LOG_MAX_ENTRY_BYTES <= MAX_ENTRY_BYTES


def test_largest_entry_fits_and_larger_is_refused_locally() -> None:
    big = Entry(b"\x00" * MAX_ENTRY_BYTES)
    assert frames_from(encode_frame(big)) == [big]
    with pytest.raises(LocalProtocolError):
        Entry(b"\x00" * (MAX_ENTRY_BYTES + 1))


@pytest.mark.parametrize(
    ("value", "why"),
    [
        (["NOPE"], "unknown frame type"),
        ([], "non-empty"),
        ({"a": 1}, "non-empty msgpack array"),
        ([1, 2], "not a string"),
        (["PING"], "fields"),
        (["PING", 1, 2], "fields"),
        (["PING", -1], "0.."),
        (["PING", True], "integer"),
        (["PING", 2**32], "0.."),
        (["PAKE", b"\x00" * 31], "32 bytes"),
        (["PAKE", "x" * 32], "bytes"),
        (["HELLO", 1, b"\x00" * 16, A, b"\x00" * 32, 1], "boolean"),
        (["HAVE", [A, 1], {}], "map"),
        (["HAVE", {A: -1}, {}], "0.."),
        (["HAVE", {b"short": 1}, {}], "32 bytes"),
        (["HAVE", {A: 1}], "fields"),  # protocol 3's HAVE, without heads
        (["HAVE", {A: 1}, [A]], "map"),
        (["HAVE", {A: 1}, {A: b"short"}], "32 bytes"),
        (["HAVE", {A: 0}, {A: b"\x00" * 32}], "holds nothing"),
        (["WANT", {"text-key": 1}], "bytes"),
        (["BYE", "\x1b[2J"], "control"),
        (["MSG", "", b""], "empty"),
        (["ERROR", "x" * 201], "limit"),
    ],
)
def test_invalid_frames_raise_frame_error_naming_peer(value: object, why: str) -> None:
    with pytest.raises(FrameError) as info:
        frames_from(raw_frame(value))
    assert info.value.peer == PEER
    assert why in info.value.reason


def test_too_many_authors_refused() -> None:
    authors = {bytes([i]) * 32: i for i in range(MAX_AUTHORS + 1)}
    with pytest.raises(FrameError):
        frames_from(raw_frame(["HAVE", authors]))
    with pytest.raises(LocalProtocolError):
        Have(authors)


def test_empty_frame_and_trailing_msgpack_refused() -> None:
    with pytest.raises(FrameError, match="empty frame"):
        frames_from(b"\x00\x00\x00\x00")
    payload = msgpack.packb(["PING", 1]) + b"\xc0"
    with pytest.raises(FrameError, match="msgpack"):
        frames_from(struct.pack(">I", len(payload)) + payload)


def test_decoder_refuses_use_after_error() -> None:
    decoder = FrameDecoder(PEER)
    decoder.feed(b"\x00\x00\x00\x00")
    with pytest.raises(FrameError):
        decoder.next_frame()
    with pytest.raises(LocalProtocolError):
        decoder.next_frame()
    with pytest.raises(LocalProtocolError):
        decoder.feed(b"more")


def test_have_is_immutable_after_construction() -> None:
    source = {A: 1}
    have = Have(source)
    source[B] = 2
    assert dict(have.next_seq) == {A: 1}
    with pytest.raises(TypeError):
        have.next_seq[B] = 3  # type: ignore[index]


def test_clip_reason_makes_any_text_sendable() -> None:
    reason = clip_reason("bad\x1b[31m" + "y" * 500)
    assert len(encode_frame(Bye(reason))) > 0
    assert "\x1b" not in reason
    assert len(reason) == MAX_REASON_CHARS and reason.endswith("…")  # a cut shows
    assert clip_reason("no\u00a0break\u2028line") == "no break?line"


def _parse_all(data: bytes, chunk: int | None) -> None:
    try:
        frames_from(data, chunk)
    except RemoteProtocolError as exc:
        assert isinstance(exc, FrameError)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_fuzz_random_bytes_parse_or_frame_error(data: bytes) -> None:
    _parse_all(data, None)
    _parse_all(data, 1)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=120), st.sampled_from(SAMPLES), st.binary(max_size=40))
def test_fuzz_framed_payload_and_trailing_junk(payload: bytes, good: Frame, junk: bytes) -> None:
    # A correct length prefix around random msgpack-ish bytes reaches the payload parser.
    framed = struct.pack(">I", len(payload)) + payload
    _parse_all(framed, None)
    _parse_all(framed, 1)
    # A valid frame followed by junk: the frame comes out first, junk raises or waits.
    stream = encode_frame(good) + junk
    for chunk in (None, 1):
        decoder = FrameDecoder(PEER)
        decoder.feed(stream if chunk is None else stream[:1])
        rest = b"" if chunk is None else stream[1:]
        got: list[Frame] = []
        try:
            while True:
                frame = decoder.next_frame()
                if frame is not None:
                    got.append(frame)
                elif rest:
                    decoder.feed(rest[:1])
                    rest = rest[1:]
                else:
                    break
        except FrameError:
            pass
        assert got[:1] == [good]


msgpack_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.binary(max_size=40)
    | st.text(max_size=20)
    | st.floats(allow_nan=False),
    lambda children: (
        st.lists(children, max_size=6)
        | st.dictionaries(st.binary(max_size=33) | st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=12,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["HELLO", "PAKE", "AUTH", "HAVE", "WANT", "MSG", "PING", "BYE", "X"]),
    st.lists(msgpack_values, max_size=6),
)
def test_fuzz_structured_values_parse_or_frame_error(tag: str, values: list[object]) -> None:
    _parse_all(raw_frame([tag, *values]), None)
