"""Handshake (sans-IO): two machines wired in memory, h11's ConnectionPair idea.

The byte-exact known-answer vector is protocol/vectors/net/handshake-v4.json
(tests/net/test_net_handshake_vectors.py).
"""

from __future__ import annotations

import re

import nacl.bindings as sodium
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from net_helpers import CountingRandom, TestIdentity

from hanabi_p2p.errors import LocalProtocolError, RemoteProtocolError
from hanabi_p2p.net.errors import (
    BadSignatureError,
    FrameError,
    HandshakeError,
    PeerRefusedError,
    UnexpectedPeerError,
    VersionMismatchError,
    WrongCodeGuessError,
    WrongSecretError,
    WrongTableError,
)
from hanabi_p2p.net.frames import (
    Auth,
    Confirm,
    Error,
    Frame,
    FrameDecoder,
    Hello,
    Pake,
    encode_frame,
)
from hanabi_p2p.net.handshake import (
    PROTOCOL_VERSION,
    Handshake,
    normalize_secret,
    table_code,
)

TABLE = bytes(range(16))
ALICE = TestIdentity(b"alice")
BOB = TestIdentity(b"bob")
MALLORY = TestIdentity(b"mallory")


def make(identity: TestIdentity, *, initiator: bool, **kw: object) -> Handshake:
    kw.setdefault("table_id", TABLE)
    kw.setdefault("random_bytes", CountingRandom(identity.peer_id + bytes([initiator])))
    return Handshake(identity, initiator=initiator, peer_label="addr", **kw)  # type: ignore[arg-type]


def wire(frames: list[Frame]) -> list[Frame]:
    """Send frames through real bytes, so the handshake sees exactly what a peer would."""
    decoder = FrameDecoder("wire")
    decoder.feed(b"".join(encode_frame(f) for f in frames))
    out = []
    while (frame := decoder.next_frame()) is not None:
        out.append(frame)
    return out


def run_pair(a: Handshake, b: Handshake, log: list[Frame] | None = None) -> list[Frame]:
    """Deliver frames both ways until both are done or one raises; returns all frames sent."""
    log = [] if log is None else log
    to_b, to_a = a.start(), b.start()
    while to_a or to_b:
        log += to_b + to_a
        next_b = [f for frame in wire(to_b) for f in b.receive(frame)]
        next_a = [f for frame in wire(to_a) for f in a.receive(frame)]
        to_a, to_b = next_b, next_a
    return log


@pytest.mark.parametrize("secret", [None, b"blue moon"])
def test_good_handshake_verifies_both_identities(secret: bytes | None) -> None:
    a = make(ALICE, initiator=True, secret=secret, expected_peer=BOB.peer_id)
    b = make(BOB, initiator=False, secret=secret)
    log = run_pair(a, b)
    assert a.done and b.done
    assert a.result.peer_id == BOB.peer_id
    assert b.result.peer_id == ALICE.peer_id
    assert a.result.transcript_hash == b.result.transcript_hash
    assert a.result.session_key == b.result.session_key
    assert (a.result.session_key is None) == (secret is None)
    # One key per direction: what Alice seals, Bob opens, and the two directions differ.
    assert a.result.send_key == b.result.recv_key
    assert a.result.recv_key == b.result.send_key
    assert a.result.send_key != a.result.recv_key
    kinds = {type(f) for f in log}
    assert (Pake in kinds) == (secret is not None)
    assert (Confirm in kinds) == (secret is not None)


def test_ephemeral_keys_make_each_link_unique() -> None:
    a1 = make(ALICE, initiator=True, random_bytes=CountingRandom(b"one"))
    b1 = make(BOB, initiator=False)
    run_pair(a1, b1)
    a2 = make(ALICE, initiator=True, random_bytes=CountingRandom(b"two"))
    b2 = make(BOB, initiator=False)
    run_pair(a2, b2)
    assert a1.result.transcript_hash != a2.result.transcript_hash
    assert a1.result.send_key != a2.result.send_key


def test_wrong_table_refused() -> None:
    a = make(ALICE, initiator=True)
    b = make(BOB, initiator=False, table_id=b"\xff" * 16)
    with pytest.raises(WrongTableError) as info:
        run_pair(a, b)
    assert "table" in info.value.reason


# 2: 0.2.0, whose deck is edwards25519; 3: whose HAVE names no heads and whose `complete`
# speaks for others
@pytest.mark.parametrize("old", [1, 2, 3])
def test_wrong_version_refused(old: int) -> None:
    assert PROTOCOL_VERSION == 4
    a = make(ALICE, initiator=True, version=old)
    b = make(BOB, initiator=False)
    with pytest.raises(VersionMismatchError, match=f"version {old}, we speak 4") as info:
        run_pair(a, b)
    assert "releases that speak the same version" in str(info.value)


def test_dialer_refuses_unexpected_peer() -> None:
    a = make(ALICE, initiator=True, expected_peer=BOB.peer_id)
    m = make(MALLORY, initiator=False)
    with pytest.raises(UnexpectedPeerError) as info:
        run_pair(a, m)
    assert MALLORY.peer_id[:6].hex() in info.value.reason


def test_listener_refuses_peer_not_seated() -> None:
    a = make(ALICE, initiator=True)
    b = make(BOB, initiator=False, allow_peer=lambda p: p == MALLORY.peer_id)
    with pytest.raises(UnexpectedPeerError, match="no seat at this table"):
        run_pair(a, b)


def test_self_connection_refused() -> None:
    a = make(ALICE, initiator=True)
    a2 = make(ALICE, initiator=False)
    with pytest.raises(UnexpectedPeerError, match="own identity"):
        run_pair(a, a2)


class ForgingIdentity:
    """Claims someone else's key but signs with its own."""

    def __init__(self, claimed: TestIdentity, real: TestIdentity) -> None:
        self.peer_id = claimed.peer_id
        self._real = real

    def sign(self, message: bytes) -> bytes:
        return self._real.sign(message)


def test_bad_signature_refused() -> None:
    a = make(ALICE, initiator=True, expected_peer=BOB.peer_id)
    forger = Handshake(ForgingIdentity(BOB, MALLORY), TABLE, initiator=False, peer_label="m")
    with pytest.raises(BadSignatureError, match="could not prove"):
        run_pair(a, forger)


@pytest.mark.parametrize("secret", [None, b"blue moon"])
def test_claimed_seated_id_must_prove_its_key_before_any_code_exchange(
    secret: bytes | None,
) -> None:
    """A stranger claiming seated Bob's id is refused on its AUTH, before PAKE or CONFIRM,
    and the error names its address with the id it only claims (never as Bob's fault)."""
    host = make(ALICE, initiator=False, secret=secret, allow_peer=lambda p: p == BOB.peer_id)
    host.peer_label = host.address = "10.0.0.66:5000"
    forger = Handshake(
        ForgingIdentity(BOB, MALLORY), TABLE, initiator=True, peer_label="h", secret=secret
    )
    sent: list[Frame] = []
    with pytest.raises(BadSignatureError) as info:
        run_pair(forger, host, sent)
    assert not any(isinstance(f, Pake | Confirm) for f in sent)
    assert info.value.peer == f"10.0.0.66:5000 (claims id {BOB.peer_id[:6].hex()})"
    assert str(info.value).startswith("peer 10.0.0.66:5000 (claims id")


def test_errors_before_auth_name_the_address_only() -> None:
    a = make(ALICE, initiator=True)
    b = make(BOB, initiator=False, table_id=b"\xff" * 16)
    b.peer_label = b.address = "192.0.2.7:1234"
    with pytest.raises(WrongTableError) as info:
        run_pair(a, b)
    assert info.value.peer == "192.0.2.7:1234"
    assert ALICE.peer_id[:6].hex() not in str(info.value)


def test_after_auth_the_peer_is_named_by_its_key() -> None:
    a = make(ALICE, initiator=True)
    b = make(BOB, initiator=False)
    run_pair(a, b)
    assert b.peer_label == f"{ALICE.peer_id[:6].hex()}@addr"


def test_replayed_signature_from_other_role_refused() -> None:
    """The role byte stops a peer reflecting our own AUTH back at us."""
    a = make(ALICE, initiator=True)
    b = make(BOB, initiator=False)
    a_hello = a.start()[0]
    b.start()
    b_frames = b.receive(a_hello)
    assert isinstance(b_frames[0], Auth)
    # Give Alice a HELLO from Bob, then Alice's own AUTH instead of Bob's.
    assert isinstance(a_hello, Hello)
    own = a.receive(Hello(PROTOCOL_VERSION, TABLE, BOB.peer_id, b"\x09" * 32, False))
    with pytest.raises(BadSignatureError):
        a.receive(own[0])


@pytest.mark.parametrize(
    ("sa", "sb"), [(b"blue moon", b"red sun"), (b"code", None), (None, b"code")]
)
def test_wrong_or_missing_secret_refused(sa: bytes | None, sb: bytes | None) -> None:
    a = make(ALICE, initiator=True, secret=sa)
    b = make(BOB, initiator=False, secret=sb)
    with pytest.raises(WrongSecretError):
        run_pair(a, b)


@pytest.mark.parametrize(("sa", "says"), [
    (b"code", "the table has no password but we were given one (--code): leave --code out"),
    (None, "the table has a password and we were given none: give it with --code"),
])
def test_a_missing_password_is_named_from_the_side_that_reads_it(
        sa: bytes | None, says: str) -> None:
    """A joiner with --code at a table without one is told to leave it out (it was told
    that its table needed one); a joiner without one at a table with one, to give it."""
    a = make(ALICE, initiator=True, secret=sa)
    b = make(BOB, initiator=False, secret=None if sa else b"code")
    a.start()
    with pytest.raises(WrongSecretError, match=re.escape(says)):
        a.receive(b.start()[0])


@pytest.mark.parametrize(("sb", "says"), [
    (b"code", "the caller did not give the table password (--code): refused"),
    (None, "the caller uses a table password but this table has none: refused"),
])
def test_the_dialled_side_is_told_what_the_caller_lacked_not_advice_for_it(
        sb: bytes | None, says: str) -> None:
    """Issue 30: a host whose table has a password was told "leave --code out, or give the
    same one on both sides" when a stranger without one knocked: advice for the joiner."""
    a = make(ALICE, initiator=True, secret=None if sb else b"code")
    b = make(BOB, initiator=False, secret=sb)
    b.start()
    with pytest.raises(WrongSecretError, match=re.escape(says)) as raised:
        b.receive(a.start()[0])
    assert "leave --code out" not in str(raised.value)
    assert "give it with --code" not in str(raised.value)


def test_wrong_code_is_caught_by_the_responder_which_never_confirms() -> None:
    """The guesser (initiator) must CONFIRM first; the host answers only a correct one, so a
    guess tells the guesser nothing unless the host saw (and counted) it."""
    guesser = make(ALICE, initiator=True, secret=b"red sun")
    host = make(BOB, initiator=False, secret=b"blue moon")
    to_host, to_guesser = guesser.start(), host.start()
    host_sent: list[Frame] = []
    with pytest.raises(WrongCodeGuessError):
        while True:
            answers = [f for frame in wire(to_host) for f in host.receive(frame)]
            host_sent += answers
            to_host = [f for frame in wire(to_guesser + answers) for f in guesser.receive(frame)]
            to_guesser = []
    assert any(isinstance(f, Pake) for f in host_sent)
    assert not any(isinstance(f, Confirm) for f in host_sent)
    assert isinstance(host.claimed_peer, bytes)


def pair_at_pake(secret: bytes) -> tuple[Handshake, Handshake, Pake, Pake]:
    """Run two handshakes up to the PAKE shares (not yet delivered)."""
    a = make(ALICE, initiator=True, secret=secret)
    b = make(BOB, initiator=False, secret=secret)
    hello_a, hello_b = a.start()[0], b.start()[0]
    auth_a, auth_b = a.receive(hello_b)[0], b.receive(hello_a)[0]
    pake_a, pake_b = a.receive(auth_b)[0], b.receive(auth_a)[0]
    assert isinstance(pake_a, Pake) and isinstance(pake_b, Pake)
    return a, b, pake_a, pake_b


def test_invalid_pake_point_refused() -> None:
    a, _, _, _ = pair_at_pake(b"s")
    identity_point = b"\x01" + b"\x00" * 31  # the neutral element: small order
    with pytest.raises(HandshakeError, match="not a valid group element"):
        a.receive(Pake(identity_point))


def test_reflected_pake_point_refused() -> None:
    a, _, pake_a, _ = pair_at_pake(b"s")
    assert sodium.crypto_core_ed25519_is_valid_point(pake_a.point)
    with pytest.raises(HandshakeError, match="reflection"):
        a.receive(pake_a)


@pytest.mark.parametrize("point", [bytes(32), b"\x01" + bytes(31)])
def test_low_order_ephemeral_key_refused(point: bytes) -> None:
    a = make(ALICE, initiator=True)
    a.start()
    with pytest.raises(HandshakeError, match="degenerate"):
        a.receive(Hello(PROTOCOL_VERSION, TABLE, BOB.peer_id, point, False))


def test_out_of_order_frame_is_an_error_and_machine_dies() -> None:
    a = make(ALICE, initiator=True)
    a.start()
    with pytest.raises(HandshakeError, match="unexpected AUTH frame while awaiting HELLO"):
        a.receive(Auth(b"\x00" * 64))
    with pytest.raises(LocalProtocolError):
        a.receive(Auth(b"\x00" * 64))


def test_error_frame_becomes_peer_refused() -> None:
    a = make(ALICE, initiator=True)
    a.start()
    with pytest.raises(PeerRefusedError, match="table is full"):
        a.receive(Error("table is full"))


def test_result_before_done_is_local_error() -> None:
    with pytest.raises(LocalProtocolError):
        _ = make(ALICE, initiator=True).result


def test_result_protects_frames_between_the_two_ends() -> None:
    a = make(ALICE, initiator=True, secret=b"blue moon")
    b = make(BOB, initiator=False, secret=b"blue moon")
    run_pair(a, b)
    sealer, opener = a.result.protector("bob"), b.result.protector("alice")
    decoder = FrameDecoder("alice")
    decoder.protect(opener)
    decoder.feed(sealer.seal(Error("hello")))
    assert decoder.next_frame() == Error("hello")


def test_normalize_secret() -> None:
    assert normalize_secret("  Blue   MOON ") == normalize_secret("blue moon") == b"blue moon"
    assert normalize_secret("ｂｌｕｅ") == b"blue"  # full-width letters: NFKC
    with pytest.raises(LocalProtocolError):
        normalize_secret("   ")


def test_table_code_is_order_independent_and_formatted() -> None:
    ids = [ALICE.peer_id, BOB.peer_id, MALLORY.peer_id]
    code = table_code(TABLE, ids)
    assert code == table_code(TABLE, list(reversed(ids)))
    groups = code.split(" ")
    assert len(groups) == 4 and all(len(g) == 3 and g.isdigit() for g in groups)
    assert code != table_code(b"\x00" * 16, ids)
    assert code == KAT_TABLE_CODE


KAT_TABLE_CODE = "860 420 206 820"


def test_mitm_shows_different_table_codes() -> None:
    """Mallory relays between Alice and Bob with her own key on each side; handshakes pass."""
    m_to_alice = TestIdentity(b"mallory-as-bob")
    m_to_bob = TestIdentity(b"mallory-as-alice")
    a = make(ALICE, initiator=True)
    ma = make(m_to_alice, initiator=False)
    run_pair(a, ma)
    mb = make(m_to_bob, initiator=True)
    b = make(BOB, initiator=False)
    run_pair(mb, b)
    alice_view = table_code(TABLE, [ALICE.peer_id, a.result.peer_id])
    bob_view = table_code(TABLE, [BOB.peer_id, b.result.peer_id])
    assert alice_view != bob_view
    # Without Mallory both views are the same code.
    assert table_code(TABLE, [ALICE.peer_id, BOB.peer_id]) == table_code(
        TABLE, [BOB.peer_id, ALICE.peer_id]
    )


# -- fuzz: whatever a peer sends, the handshake either goes on or raises RemoteProtocolError --


def _feed_bytes(hs: Handshake, data: bytes) -> None:
    decoder = FrameDecoder("fuzz")
    decoder.feed(data)
    try:
        while (frame := decoder.next_frame()) is not None:
            hs.receive(frame)
            if hs.done:
                return
    except RemoteProtocolError as exc:
        assert isinstance(exc, FrameError | HandshakeError), type(exc)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300), st.booleans(), st.booleans())
def test_fuzz_random_bytes_into_a_handshake(data: bytes, initiator: bool, code: bool) -> None:
    hs = make(ALICE, initiator=initiator, secret=b"s" if code else None)
    hs.start()
    _feed_bytes(hs, data)


def _frames() -> st.SearchStrategy[Frame]:
    b32 = st.binary(min_size=32, max_size=32)
    return st.one_of(
        st.builds(
            Hello,
            st.sampled_from([PROTOCOL_VERSION, 1, 65535]),
            st.sampled_from([TABLE, b"\x00" * 16]),
            st.sampled_from([BOB.peer_id, ALICE.peer_id, b"\x00" * 32]) | b32,
            b32,
            st.booleans(),
        ),
        st.builds(Auth, st.binary(min_size=64, max_size=64)),
        st.builds(Pake, b32),
        st.builds(Confirm, b32),
        st.builds(Error, st.sampled_from(["no", ""])),
    )


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(_frames(), max_size=5), st.booleans(), st.booleans())
def test_fuzz_frame_sequences_into_a_handshake(
    frames: list[Frame], initiator: bool, code: bool
) -> None:
    hs = make(ALICE, initiator=initiator, secret=b"s" if code else None)
    hs.start()
    _feed_bytes(hs, b"".join(encode_frame(f) for f in frames))


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.integers(0, 9), st.integers(0, 200), st.integers(0, 7), st.booleans())
def test_fuzz_bit_flip_in_a_real_handshake(nth: int, where: int, bit: int, code: bool) -> None:
    """One bit flipped in one frame of a real exchange: the two ends never finish with
    different keys; a failure is only ever a typed remote error (or a wait for more bytes)."""
    secret = b"s" if code else None
    a = make(ALICE, initiator=True, secret=secret)
    b = make(BOB, initiator=False, secret=secret)
    count = 0

    def deliver(hs: Handshake, frames: list[Frame]) -> list[Frame]:
        nonlocal count
        decoder = FrameDecoder("wire")
        for sent in frames:
            data = bytearray(encode_frame(sent))
            if count == nth:
                data[where % len(data)] ^= 1 << bit
            count += 1
            decoder.feed(bytes(data))
        out: list[Frame] = []
        while not hs.done and (got := decoder.next_frame()) is not None:
            out += hs.receive(got)
        return out

    to_b, to_a = a.start(), b.start()
    try:
        while to_a or to_b:
            to_a, to_b = deliver(b, to_b), deliver(a, to_a)
    except RemoteProtocolError as exc:
        assert isinstance(exc, FrameError | HandshakeError), type(exc)
    if a.done and b.done:
        assert a.result.send_key == b.result.recv_key
        assert a.result.transcript_hash == b.result.transcript_hash


@pytest.mark.parametrize("secret", [None, b"blue moon"])
def test_mitm_swapping_only_ephemeral_keys_fails_auth(secret: bytes | None) -> None:
    """Mallory relays Alice's and Bob's HELLOs with her own ephemeral keys put in (so she
    could read the link): their signatures cover the ephemeral keys they sent, so each side
    refuses the other's AUTH and no link comes up."""
    a = make(ALICE, initiator=True, secret=secret)
    b = make(BOB, initiator=False, secret=secret)
    hello_a, hello_b = a.start()[0], b.start()[0]
    assert isinstance(hello_a, Hello) and isinstance(hello_b, Hello)
    mallory_key = bytes.fromhex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
    forged_a = Hello(PROTOCOL_VERSION, TABLE, ALICE.peer_id, mallory_key, secret is not None)
    forged_b = Hello(PROTOCOL_VERSION, TABLE, BOB.peer_id, mallory_key, secret is not None)
    auth_b = b.receive(forged_a)[0]
    auth_a = a.receive(forged_b)[0]
    with pytest.raises(BadSignatureError):
        b.receive(auth_a)
    with pytest.raises(BadSignatureError):
        a.receive(auth_b)


def test_a_backoff_refusal_reads_back_as_the_wait_it_asks_for() -> None:
    from hanabi_p2p.net.handshake import TABLE_WIDE_SOURCE, backoff_reason, retry_after

    assert retry_after(backoff_reason("10.0.0.7", 4)) == (4.0, False)
    assert retry_after(backoff_reason(TABLE_WIDE_SOURCE, 16)) == (16.0, True)
    assert retry_after("refused: the table is full") is None
