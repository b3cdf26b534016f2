"""Handshake (sans-IO): two machines wired in memory, h11's ConnectionPair idea."""

from __future__ import annotations

import hashlib

import nacl.bindings as sodium
import pytest
from net_helpers import CountingRandom, TestIdentity

from hanabi_p2p.errors import LocalProtocolError
from hanabi_p2p.net.errors import (
    BadSignatureError,
    HandshakeError,
    PeerRefusedError,
    UnexpectedPeerError,
    VersionMismatchError,
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
from hanabi_p2p.net.handshake import Handshake, normalize_secret, table_code

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
    kinds = {type(f) for f in log}
    assert (Pake in kinds) == (secret is not None)
    assert (Confirm in kinds) == (secret is not None)


def test_known_answer_vector() -> None:
    """Fixed keys and RNG -> exact handshake bytes (catches any silent change to the wire)."""
    a = make(ALICE, initiator=True, secret=b"blue moon")
    b = make(BOB, initiator=False, secret=b"blue moon")
    transcript = b"".join(encode_frame(f) for f in run_pair(a, b))
    assert hashlib.sha256(transcript).hexdigest() == KAT_HANDSHAKE_SHA256
    assert a.result.session_key is not None
    assert a.result.session_key.hex() == KAT_SESSION_KEY


KAT_HANDSHAKE_SHA256 = "488cc5c06c946c0c635923f970e9aa2c9036591c8613b91b0f1de5ba3a3d1e0c"
KAT_SESSION_KEY = "dbc6def716546106201392458eff798e831a3c05027539c0a5bdef292e2e142a"


def test_nonces_make_each_link_unique() -> None:
    a1 = make(ALICE, initiator=True, random_bytes=CountingRandom(b"one"))
    b1 = make(BOB, initiator=False)
    run_pair(a1, b1)
    a2 = make(ALICE, initiator=True, random_bytes=CountingRandom(b"two"))
    b2 = make(BOB, initiator=False)
    run_pair(a2, b2)
    assert a1.result.transcript_hash != a2.result.transcript_hash


def test_wrong_table_refused() -> None:
    a = make(ALICE, initiator=True)
    b = make(BOB, initiator=False, table_id=b"\xff" * 16)
    with pytest.raises(WrongTableError) as info:
        run_pair(a, b)
    assert "table" in info.value.reason


def test_wrong_version_refused() -> None:
    a = make(ALICE, initiator=True, version=2)
    b = make(BOB, initiator=False)
    with pytest.raises(VersionMismatchError, match="version 2"):
        run_pair(a, b)


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
    with pytest.raises(BadSignatureError, match="does not verify"):
        run_pair(a, forger)


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
    own = a.receive(Hello(1, TABLE, BOB.peer_id, b"\x09" * 32, False))
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


def test_wrong_secret_caught_before_any_signature_is_sent() -> None:
    a = make(ALICE, initiator=True, secret=b"blue moon")
    b = make(BOB, initiator=False, secret=b"red sun")
    sent: list[Frame] = []
    with pytest.raises(WrongSecretError):
        run_pair(a, b, sent)
    assert any(isinstance(f, Confirm) for f in sent)
    assert not any(isinstance(f, Auth) for f in sent)


def test_invalid_pake_point_refused() -> None:
    a = make(ALICE, initiator=True, secret=b"s")
    b = make(BOB, initiator=False, secret=b"s")
    hello_a, hello_b = a.start()[0], b.start()[0]
    a.receive(hello_b)
    b.receive(hello_a)
    identity_point = b"\x01" + b"\x00" * 31  # the neutral element: small order
    with pytest.raises(HandshakeError, match="not a valid group element"):
        a.receive(Pake(identity_point))


def test_reflected_pake_point_refused() -> None:
    a = make(ALICE, initiator=True, secret=b"s")
    hello_a = a.start()[0]
    pake_a = a.receive(Hello(1, TABLE, BOB.peer_id, b"\x07" * 32, True))[0]
    assert isinstance(pake_a, Pake) and isinstance(hello_a, Hello)
    assert sodium.crypto_core_ed25519_is_valid_point(pake_a.point)
    with pytest.raises(HandshakeError, match="reflection"):
        a.receive(pake_a)


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
