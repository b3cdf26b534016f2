"""Frame protection after the handshake (sans-IO): every frame is ChaCha20-Poly1305 sealed
under its direction's key with a counter nonce, so tampering, injection, replay, reordering
and reflection all fail authentication (LinkAuthError, a FrameError) instead of becoming a
frame someone else's words could be read from."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hanabi_p2p.errors import LocalProtocolError, RemoteProtocolError
from hanabi_p2p.limits import MAX_ENTRY_BYTES
from hanabi_p2p.net.errors import FrameError, LinkAuthError
from hanabi_p2p.net.frames import (
    AEAD_TAG_BYTES,
    LENGTH_PREFIX,
    MAX_FRAME_BYTES,
    MAX_PAYLOAD_BYTES,
    Bye,
    Entry,
    Error,
    Frame,
    FrameDecoder,
    FrameProtector,
    Have,
    Ping,
    encode_frame,
    encode_payload,
)

KEY_I2R = bytes(range(32))
KEY_R2I = bytes(range(32, 64))
FRAMES: list[Frame] = [Entry(b"one"), Have({b"\xaa" * 32: 3}), Ping(9), Bye("done")]


def pair() -> tuple[FrameProtector, FrameProtector]:
    """(initiator end, responder end) of one link."""
    return (
        FrameProtector(KEY_I2R, KEY_R2I, initiator=True, peer="bob"),
        FrameProtector(KEY_R2I, KEY_I2R, initiator=False, peer="alice"),
    )


def receiver(protector: FrameProtector) -> FrameDecoder:
    decoder = FrameDecoder(protector.peer)
    decoder.protect(protector)
    return decoder


def read_all(decoder: FrameDecoder, data: bytes) -> list[Frame]:
    decoder.feed(data)
    out: list[Frame] = []
    while (frame := decoder.next_frame()) is not None:
        out.append(frame)
    return out


def test_frames_round_trip_both_ways_whole_and_byte_by_byte() -> None:
    alice, bob = pair()
    at_bob, at_alice = receiver(bob), receiver(alice)
    stream = b"".join(alice.seal(f) for f in FRAMES)
    assert read_all(at_bob, stream[:5]) == []
    got = read_all(at_bob, stream[5:])
    assert got == FRAMES
    back = b"".join(bob.seal(f) for f in FRAMES)
    one_by_one = [f for i in range(len(back)) for f in read_all(at_alice, back[i : i + 1])]
    assert one_by_one == FRAMES
    assert alice.counters == (len(FRAMES), len(FRAMES))


def test_records_are_ciphertext_not_msgpack() -> None:
    alice, _ = pair()
    sealed = alice.seal(Error("secret words"))
    assert b"secret words" not in sealed
    assert len(sealed) == len(encode_frame(Error("secret words"))) + AEAD_TAG_BYTES


@pytest.mark.parametrize("position", [0, 3, 4, 5, -1, -AEAD_TAG_BYTES])
def test_any_flipped_bit_fails_authentication_and_breaks_the_stream(position: int) -> None:
    alice, bob = pair()
    at_bob = receiver(bob)
    record = bytearray(alice.seal(Entry(b"a signed log entry")))
    if position in (0, 3):  # the length prefix: shorten by one byte, the tag is cut
        struct.pack_into(">I", record, 0, len(record) - LENGTH_PREFIX.size - 1)
    else:
        record[position] ^= 0x01
    with pytest.raises(LinkAuthError) as info:
        read_all(at_bob, bytes(record))
    assert str(info.value).startswith("link to alice: ")  # a link problem, not "peer alice"
    with pytest.raises(LocalProtocolError):
        at_bob.next_frame()  # a stream that failed once is never read again


def test_replayed_frame_fails() -> None:
    alice, bob = pair()
    at_bob = receiver(bob)
    record = alice.seal(Entry(b"pay me once"))
    assert read_all(at_bob, record) == [Entry(b"pay me once")]
    with pytest.raises(LinkAuthError, match="frame 1 failed authentication"):
        read_all(at_bob, record)


def test_reordered_frames_fail() -> None:
    alice, bob = pair()
    first, second = alice.seal(Entry(b"1")), alice.seal(Entry(b"2"))
    with pytest.raises(LinkAuthError):
        read_all(receiver(bob), second + first)


def test_dropped_frame_makes_the_next_one_fail() -> None:
    alice, bob = pair()
    alice.seal(Entry(b"lost on the way"))
    with pytest.raises(LinkAuthError):
        read_all(receiver(bob), alice.seal(Entry(b"next")))


@pytest.mark.parametrize("frame", [Error("Bob here: your client is cheating"), Bye("gone")])
def test_injected_clear_error_or_bye_is_never_read_as_the_peers(frame: Frame) -> None:
    alice, bob = pair()
    at_bob = receiver(bob)
    stream = alice.seal(Entry(b"real")) + encode_frame(frame)
    with pytest.raises(LinkAuthError) as info:
        read_all(at_bob, stream)
    assert "cheating" not in str(info.value)


def test_injected_frame_sealed_with_a_wrong_key_fails() -> None:
    _, bob = pair()
    stranger = FrameProtector(b"\x01" * 32, b"\x02" * 32, initiator=True, peer="x")
    with pytest.raises(LinkAuthError):
        read_all(receiver(bob), stranger.seal(Error("made up")))


def test_reflected_frame_fails() -> None:
    """Our own record sent back to us: other key, other direction byte."""
    alice, _ = pair()
    with pytest.raises(LinkAuthError):
        read_all(receiver(alice), alice.seal(Ping(1)))


def test_same_keys_wrong_role_fails() -> None:
    """Even a (buggy) peer using our key for its direction fails on the role byte."""
    alice, _ = pair()
    mirror = FrameProtector(KEY_R2I, KEY_I2R, initiator=True, peer="alice")
    with pytest.raises(LinkAuthError):
        read_all(receiver(alice), mirror.seal(Ping(1)))


def test_record_shorter_than_a_tag_fails() -> None:
    _, bob = pair()
    with pytest.raises(LinkAuthError, match="too short"):
        read_all(receiver(bob), LENGTH_PREFIX.pack(3) + b"abc")


def test_largest_entry_fits_a_sealed_frame_and_larger_payloads_are_refused_locally() -> None:
    """MAX_ENTRY_BYTES (limits) and MAX_FRAME_BYTES (frames) kept in step: the largest
    ENTRY, sealed, is within the frame limit every receiver enforces."""
    alice, bob = pair()
    big = Entry(b"\x00" * MAX_ENTRY_BYTES)
    sealed = alice.seal(big)
    assert len(sealed) - LENGTH_PREFIX.size <= MAX_FRAME_BYTES
    assert read_all(receiver(bob), sealed) == [big]
    assert MAX_PAYLOAD_BYTES + AEAD_TAG_BYTES == MAX_FRAME_BYTES
    with pytest.raises(LocalProtocolError):
        alice.seal_payload(b"\x00" * (MAX_PAYLOAD_BYTES + 1))


def test_encode_payload_refuses_what_could_not_be_sealed() -> None:
    from hanabi_p2p.net.frames import Message

    with pytest.raises(LocalProtocolError):
        encode_payload(Message("t", b"\x00" * MAX_PAYLOAD_BYTES))


def test_keys_must_be_32_bytes() -> None:
    with pytest.raises(LocalProtocolError):
        FrameProtector(b"short", KEY_R2I, initiator=True, peer="x")


def test_protect_twice_is_a_local_error() -> None:
    alice, bob = pair()
    decoder = receiver(bob)
    with pytest.raises(LocalProtocolError):
        decoder.protect(alice)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_fuzz_random_bytes_on_a_protected_link(data: bytes) -> None:
    """h11's invariant: any bytes either wait for more or raise FrameError (here almost
    always LinkAuthError); never a frame, never another exception."""
    _, bob = pair()
    try:
        assert read_all(receiver(bob), data) == []
    except RemoteProtocolError as exc:
        assert isinstance(exc, FrameError)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.integers(0, 3), st.integers(0, 400), st.integers(0, 7))
def test_fuzz_one_bit_flip_in_a_stream_of_frames(nth: int, where: int, bit: int) -> None:
    """The frames before the flipped one arrive intact; the flipped one and everything after
    it never do."""
    alice, bob = pair()
    records = [bytearray(alice.seal(f)) for f in FRAMES]
    target = records[nth]
    target[where % len(target)] ^= 1 << bit
    decoder = receiver(bob)
    got: list[Frame] = []
    try:
        for record in records:
            got += read_all(decoder, bytes(record))
    except FrameError:
        pass
    assert got == FRAMES[: len(got)]
    assert len(got) <= nth
