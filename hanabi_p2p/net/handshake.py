"""The link handshake (sans-IO): who is on the other end, at which table, with which code,
and the keys that protect every frame after it.

Both ends run the same machine; `initiator` says who dialled (it orders the transcript and the
role byte in every MAC, signature and key label, so nothing can be reflected back at its
sender). The flow, SIGMA-like (identities first, then the optional code)::

    both:  HELLO {version, table_id, peer_id, ephemeral X25519 key, uses_secret}
    both:  AUTH  {Ed25519 signature over both HELLOs: identity bound to the ephemeral keys}
    with a table code, once the peer's AUTH verified:
           PAKE {Y}                       (CPace over edwards25519, both)
           CONFIRM {mac}  initiator first; the responder answers only a correct one
    link keys = HKDF(transcript, X25519 result || CPace ISK), one per direction

Identity before the code: a connection must prove the key it claims before any code exchange,
so nobody can guess codes under a seated player's id, and a failed guess is only ever the
failure of a key that proved itself. The responder checks the initiator's CONFIRM before it
sends its own, so a guesser learns nothing without the host seeing (and counting) the guess.

`start()` gives the first frames to send; `receive(frame)` checks one frame from the peer and
gives the frames to send next; once `done`, `result` names the verified peer and carries the
link keys (`result.protector()` protects the frames after the handshake). Every failure
raises a typed `HandshakeError` naming the peer by address (with the id it claims, never as
if proven) and the machine is then dead: further calls raise `LocalProtocolError`.

The allowed transitions are one table, `_TRANSITIONS`, at the bottom of the class: a frame
that is not in it for the current state is a protocol error, never a silently ignored one.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import os
import re
import struct
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Protocol

import nacl.bindings as sodium
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from hanabi_p2p.errors import LocalProtocolError
from hanabi_p2p.limits import PEER_ID_BYTES, TABLE_ID_BYTES
from hanabi_p2p.net.errors import (
    BadSignatureError,
    HandshakeError,
    PeerRefusedError,
    RetryLaterError,
    UnexpectedPeerError,
    VersionMismatchError,
    WrongCodeGuessError,
    WrongSecretError,
    WrongTableError,
)
from hanabi_p2p.net.frames import (
    EPHEMERAL_KEY_BYTES,
    LINK_KEY_BYTES,
    ROLE_INITIATOR,
    ROLE_RESPONDER,
    Auth,
    Confirm,
    Error,
    Frame,
    FrameProtector,
    Hello,
    Pake,
)
from hanabi_p2p.net.version import PROTOCOL_VERSION

MAX_SECRET_BYTES = 256
# Bytes of randomness a CPace scalar is reduced from (64: no modulo bias).
_SCALAR_SEED_BYTES = 64

# Every hash, MAC, key and signature input starts with its own label, so that no value
# computed for one purpose can ever be replayed as another (or as a log-entry signature).
_DOMAIN = b"hanabi-p2p/v2/"
_LABEL_TRANSCRIPT = _DOMAIN + b"handshake-transcript"
_LABEL_AUTH = _DOMAIN + b"handshake-auth"
_LABEL_GENERATOR = _DOMAIN + b"cpace-generator"
_LABEL_ISK = _DOMAIN + b"cpace-isk"
_LABEL_PAKE_TRANSCRIPT = _DOMAIN + b"handshake-pake-transcript"
_LABEL_CONFIRM_KEY = _DOMAIN + b"confirm-key"
_LABEL_CONFIRM = _DOMAIN + b"cpace-confirm"
_LABEL_LINK_KEY = _DOMAIN + b"link-key"
# The code players compare aloud depends only on the table and its keys, not on the link
# protocol, so it keeps its version-1 label (and value).
_LABEL_TABLE_CODE = b"hanabi-p2p/v1/table-code"

RandomBytes = Callable[[int], bytes]


class Signer(Protocol):
    """What the handshake needs of an identity (hanabi_p2p.identity.Identity fits)."""

    @property
    def peer_id(self) -> bytes: ...

    def sign(self, message: bytes) -> bytes: ...


@dataclass(frozen=True, slots=True)
class HandshakeResult:
    """A finished handshake: the peer proved it holds `peer_id` and is at our table."""

    peer_id: bytes
    initiator: bool  # True if we dialled
    transcript_hash: bytes  # binds both HELLOs (ephemeral keys) and PAKE shares; per link
    # 32 bytes both ends share when a table code was used (CPace ISK), else None.
    session_key: bytes | None
    send_key: bytes  # ChaCha20-Poly1305 key of frames we send
    recv_key: bytes  # ... and of frames the peer sends

    def protector(self, peer_label: str) -> FrameProtector:
        """A fresh protector for the frames after the handshake (counters at 0)."""
        return FrameProtector(
            self.send_key, self.recv_key, initiator=self.initiator, peer=peer_label
        )


class State(enum.Enum):
    START = "start"
    AWAIT_HELLO = "awaiting HELLO"
    AWAIT_AUTH = "awaiting AUTH"
    AWAIT_PAKE = "awaiting PAKE"
    AWAIT_CONFIRM = "awaiting CONFIRM"
    DONE = "done"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class LinkSecrets:
    """Everything the key schedule derived (the known-answer vectors print it)."""

    transcript_hash: bytes
    prk: bytes
    confirm_key: bytes
    key_initiator_to_responder: bytes
    key_responder_to_initiator: bytes


def load_key_exchange() -> None:
    """Load what a first key exchange loads (cryptography imports its OpenSSL backend on the
    first X25519 key made, 10-20 ms): a peer does it on a thread while it waits, so that its
    first handshake does not stall the event loop for it."""
    X25519PrivateKey.from_private_bytes(bytes(EPHEMERAL_KEY_BYTES))


def backoff_reason(source: str, seconds: int) -> str:
    """The ERROR reason a listener gives a source it refuses after wrong table passwords;
    `retry_after` reads it back (both ends share this one wording, SPEC 4.4)."""
    return f"too many wrong table passwords (--code) from {source}: try again in {seconds} s"


# The ADDRESS of a table-wide refusal: many wrong passwords from all addresses together.
TABLE_WIDE_SOURCE = "anywhere"


def retry_after(reason: str) -> tuple[float, bool] | None:
    """The seconds a refusal made by `backoff_reason` asks to wait, and whether it is the
    table-wide one; None for any other refusal."""
    found = _RETRY_AFTER.search(reason)
    if found is None:
        return None
    return float(found.group(2)), found.group(1) == TABLE_WIDE_SOURCE


_RETRY_AFTER = re.compile(r"wrong table passwords \(--code\) from (\S+): try again in (\d+) s$")


def fingerprint_hex(peer_id: bytes) -> str:
    """Short hex label of an identity key for error messages."""
    return peer_id[:6].hex()


def normalize_secret(code: str) -> bytes:
    """The bytes of a table code as typed: NFKC, case-folded, inner whitespace collapsed.

    People read codes aloud and retype them, so "Blue  Moon" and "blue moon" must agree.
    """
    text = " ".join(unicodedata.normalize("NFKC", code).casefold().split())
    if not text:
        raise LocalProtocolError("the table password is empty")
    data = text.encode("utf-8")
    if len(data) > MAX_SECRET_BYTES:
        raise LocalProtocolError(f"the table password is longer than {MAX_SECRET_BYTES} bytes")
    return data


def _lv(data: bytes) -> bytes:
    """Length-prefixed bytes: concatenations of these can never be ambiguous."""
    return struct.pack(">I", len(data)) + data


def hello_bytes(hello: Hello) -> bytes:
    """A HELLO's transcript bytes. Fixed-width fields, so two of them parse one way only."""
    return (
        struct.pack(">H", hello.version)
        + hello.table_id
        + hello.peer_id
        + hello.ephemeral
        + (b"\x01" if hello.uses_secret else b"\x00")
    )


def derive_link_secrets(transcript_hash: bytes, dh: bytes, isk: bytes | None) -> LinkSecrets:
    """The key schedule: HKDF-SHA256 with the transcript as salt, DH (|| ISK) as input."""
    prk = hmac.new(transcript_hash, dh + (isk or b""), hashlib.sha256).digest()

    def expand(info: bytes) -> bytes:
        return HKDFExpand(hashes.SHA256(), LINK_KEY_BYTES, info).derive(prk)

    return LinkSecrets(
        transcript_hash=transcript_hash,
        prk=prk,
        confirm_key=expand(_lv(_LABEL_CONFIRM_KEY)),
        key_initiator_to_responder=expand(_lv(_LABEL_LINK_KEY) + ROLE_INITIATOR),
        key_responder_to_initiator=expand(_lv(_LABEL_LINK_KEY) + ROLE_RESPONDER),
    )


def table_code(table_id: bytes, peer_ids: list[bytes] | tuple[bytes, ...] | set[bytes]) -> str:
    """Twelve digits ("482 019 337 605") all seated players read aloud and compare.

    Derived from the table id and every seated identity key, in any order. A man in the
    middle has to substitute its own key on at least one side, so the two sides compute the
    code over different key sets and the codes differ (chance of a collision: 1 in 10^12).
    """
    if len(table_id) != TABLE_ID_BYTES:
        raise LocalProtocolError(f"table_id must be {TABLE_ID_BYTES} bytes")
    keys = sorted(set(peer_ids))
    if any(len(k) != PEER_ID_BYTES for k in keys):
        raise LocalProtocolError(f"every peer_id must be {PEER_ID_BYTES} bytes")
    digest = hashlib.sha256(_lv(_LABEL_TABLE_CODE) + table_id + b"".join(keys)).digest()
    number = int.from_bytes(digest[:8], "big") % 10**12
    digits = f"{number:012d}"
    return " ".join(digits[i : i + 3] for i in range(0, 12, 3))


class Handshake:
    """One end of one link's handshake. See the module docstring for the message flow."""

    def __init__(
        self,
        identity: Signer,
        table_id: bytes,
        *,
        initiator: bool,
        peer_label: str,
        secret: bytes | None = None,
        expected_peer: bytes | None = None,
        allow_peer: Callable[[bytes], bool] | None = None,
        random_bytes: RandomBytes = os.urandom,
        version: int = PROTOCOL_VERSION,
    ) -> None:
        if len(table_id) != TABLE_ID_BYTES:
            raise LocalProtocolError(f"table_id must be {TABLE_ID_BYTES} bytes")
        if secret is not None and not 0 < len(secret) <= MAX_SECRET_BYTES:
            raise LocalProtocolError(f"the table password must be 1..{MAX_SECRET_BYTES} bytes")
        self._identity = identity
        self._table_id = table_id
        self._initiator = initiator
        self._secret = secret
        self._expected_peer = expected_peer
        self._allow_peer = allow_peer
        self._random_bytes = random_bytes
        self._version = version
        self.address = peer_label
        # Until the peer's AUTH verifies, errors name it by address only ("claims" an id).
        self.peer_label = peer_label
        self.state = State.START
        self._my_hello: Hello | None = None
        self._ephemeral: X25519PrivateKey | None = None
        self._peer_id = b""
        self._dh = b""
        self._transcript = b""
        self._scalar = b""
        self._my_point = b""
        self._isk: bytes | None = None
        self._secrets: LinkSecrets | None = None
        self._result: HandshakeResult | None = None

    # -- public API -----------------------------------------------------------------------

    @property
    def done(self) -> bool:
        return self.state is State.DONE

    @property
    def result(self) -> HandshakeResult:
        if self._result is None:
            raise LocalProtocolError("the handshake has not finished")
        return self._result

    @property
    def claimed_peer(self) -> bytes | None:
        """The id the peer's HELLO claims (proven only once `done`)."""
        return self._peer_id or None

    @property
    def secrets(self) -> LinkSecrets:
        """The derived keys (for the known-answer vectors)."""
        if self._secrets is None:
            raise LocalProtocolError("no link keys yet")
        return self._secrets

    def start(self) -> list[Frame]:
        """The frames to send first (our HELLO)."""
        if self.state is not State.START:
            raise LocalProtocolError(f"handshake already started (state: {self.state.value})")
        self._ephemeral = X25519PrivateKey.from_private_bytes(
            self._random_bytes(EPHEMERAL_KEY_BYTES)
        )
        self._my_hello = Hello(
            version=self._version,
            table_id=self._table_id,
            peer_id=self._identity.peer_id,
            ephemeral=self._ephemeral.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw),
            uses_secret=self._secret is not None,
        )
        self.state = State.AWAIT_HELLO
        return [self._my_hello]

    def receive(self, frame: Frame) -> list[Frame]:
        """Check one frame from the peer; returns the frames to send in answer."""
        if self.state in (State.START, State.DONE, State.FAILED):
            raise LocalProtocolError(f"handshake cannot receive in state {self.state.value}")
        try:
            if isinstance(frame, Error):
                later = retry_after(frame.reason)
                if later is not None:
                    raise RetryLaterError(self.peer_label, f"refused: {frame.reason}", *later)
                raise PeerRefusedError(self.peer_label, f"refused: {frame.reason}")
            handler = self._TRANSITIONS.get((self.state, type(frame)))
            if handler is None:
                raise HandshakeError(
                    self.peer_label, f"unexpected {frame.TAG} frame while {self.state.value}"
                )
            return handler(self, frame)
        except HandshakeError:
            self.state = State.FAILED
            self._scalar = b""
            self._ephemeral = None
            raise

    # -- transitions ----------------------------------------------------------------------

    def _on_hello(self, frame: Frame) -> list[Frame]:
        assert isinstance(frame, Hello) and self._my_hello is not None
        self._check_hello(frame)
        self._peer_id = frame.peer_id
        self.peer_label = f"{self.address} (claims id {fingerprint_hex(frame.peer_id)})"
        first, second = (self._my_hello, frame) if self._initiator else (frame, self._my_hello)
        self._transcript = hashlib.sha256(
            _lv(_LABEL_TRANSCRIPT) + hello_bytes(first) + hello_bytes(second)
        ).digest()
        assert self._ephemeral is not None
        try:
            self._dh = self._ephemeral.exchange(X25519PublicKey.from_public_bytes(frame.ephemeral))
        except ValueError as exc:  # a low-order point gives the all-zero result
            raise HandshakeError(self.peer_label, "ephemeral key gives a degenerate key") from exc
        self._ephemeral = None  # one use only
        if not any(self._dh):
            raise HandshakeError(self.peer_label, "ephemeral key gives a degenerate key")
        self.state = State.AWAIT_AUTH
        return [self._auth()]

    def _on_auth(self, frame: Frame) -> list[Frame]:
        assert isinstance(frame, Auth)
        key = Ed25519PublicKey.from_public_bytes(self._peer_id)  # checked in _check_hello
        try:
            key.verify(frame.signature, self._auth_message(self._peer_role))
        except InvalidSignature as exc:
            raise BadSignatureError(
                self.peer_label, "could not prove the identity key it claims"
            ) from exc
        # Proven: from here on the peer is named by its key.
        self.peer_label = f"{fingerprint_hex(self._peer_id)}@{self.address}"
        if self._secret is None:
            self._finish()
            return []
        self._scalar = _random_scalar(self._random_bytes)
        generator = _cpace_generator(self._secret, self._table_id, self._transcript)
        self._my_point = sodium.crypto_scalarmult_ed25519_noclamp(self._scalar, generator)
        self.state = State.AWAIT_PAKE
        return [Pake(self._my_point)]

    def _on_pake(self, frame: Frame) -> list[Frame]:
        assert isinstance(frame, Pake) and self._secret is not None
        peer_point = frame.point
        if not sodium.crypto_core_ed25519_is_valid_point(peer_point):
            raise HandshakeError(self.peer_label, "PAKE share is not a valid group element")
        if peer_point == self._my_point:
            raise HandshakeError(self.peer_label, "PAKE share is a reflection of ours")
        try:
            shared = sodium.crypto_scalarmult_ed25519_noclamp(self._scalar, peer_point)
        except Exception as exc:  # libsodium refuses a result at the identity element
            raise HandshakeError(self.peer_label, "PAKE share gives a degenerate key") from exc
        self._scalar = b""  # one use only
        point_i, point_r = (
            (self._my_point, peer_point) if self._initiator else (peer_point, self._my_point)
        )
        self._isk = hashlib.sha512(
            _lv(_LABEL_ISK) + _lv(self._transcript) + _lv(shared) + _lv(point_i) + _lv(point_r)
        ).digest()[:32]
        # From here on the MACs and the link keys cover the PAKE shares too.
        self._transcript = hashlib.sha256(
            _lv(_LABEL_PAKE_TRANSCRIPT) + self._transcript + point_i + point_r
        ).digest()
        self._secrets = derive_link_secrets(self._transcript, self._dh, self._isk)
        self.state = State.AWAIT_CONFIRM
        # The initiator confirms first; the responder answers only a correct CONFIRM, so a
        # wrong guess never learns anything the host did not see (and count).
        return [Confirm(self._confirm_mac(ROLE_INITIATOR))] if self._initiator else []

    def _on_confirm(self, frame: Frame) -> list[Frame]:
        assert isinstance(frame, Confirm)
        if not hmac.compare_digest(frame.mac, self._confirm_mac(self._peer_role)):
            raise WrongCodeGuessError(
                self.peer_label,
                "key confirmation failed: the peer uses a different table password (--code)",
            )
        answer: list[Frame] = [] if self._initiator else [Confirm(self._confirm_mac(self._my_role))]
        self._finish()
        return answer

    _TRANSITIONS: ClassVar[dict[tuple[State, type], Callable[[Handshake, Frame], list[Frame]]]] = {
        (State.AWAIT_HELLO, Hello): _on_hello,
        (State.AWAIT_AUTH, Auth): _on_auth,
        (State.AWAIT_PAKE, Pake): _on_pake,
        (State.AWAIT_CONFIRM, Confirm): _on_confirm,
    }

    # -- helpers --------------------------------------------------------------------------

    def _finish(self) -> None:
        if self._secrets is None:  # no code: the keys come from the DH alone
            self._secrets = derive_link_secrets(self._transcript, self._dh, None)
        self._dh = b""
        keys = self._secrets
        i_to_r, r_to_i = keys.key_initiator_to_responder, keys.key_responder_to_initiator
        self.state = State.DONE
        self._result = HandshakeResult(
            peer_id=self._peer_id,
            initiator=self._initiator,
            transcript_hash=self._transcript,
            session_key=self._isk,
            send_key=i_to_r if self._initiator else r_to_i,
            recv_key=r_to_i if self._initiator else i_to_r,
        )

    def _check_hello(self, hello: Hello) -> None:
        label = self.address
        claims = f"claimed id {fingerprint_hex(hello.peer_id)}"
        if hello.version != self._version:
            raise VersionMismatchError(
                label,
                f"peer speaks network protocol version {hello.version}, we speak "
                f"{self._version}: players need hanabi-p2p releases that speak the same "
                "version to play together",
            )
        if hello.table_id != self._table_id:
            raise WrongTableError(
                label,
                f"peer is at table {hello.table_id.hex()}, not at ours ({self._table_id.hex()})",
            )
        if hello.peer_id == self._identity.peer_id:
            raise UnexpectedPeerError(label, "peer claims our own identity key")
        if self._expected_peer is not None and hello.peer_id != self._expected_peer:
            raise UnexpectedPeerError(
                label,
                f"expected player {fingerprint_hex(self._expected_peer)} but "
                f"one claiming {fingerprint_hex(hello.peer_id)} answered",
            )
        if self._allow_peer is not None and not self._allow_peer(hello.peer_id):
            raise UnexpectedPeerError(
                label,
                f"{claims} has no seat at this table (it is full or its game has begun)",
            )
        # Advice only for the side that dialled (a joiner, a player coming back): the side
        # that was dialled (a host) can do nothing about a caller's password but refuse it
        if hello.uses_secret and self._secret is None:
            raise WrongSecretError(label, (
                "the table has a password and we were given none: give it with --code "
                "(a game saved before the password was kept: join --resume --code SECRET)")
                if self._initiator else
                "the caller uses a table password but this table has none: refused")
        if self._secret is not None and not hello.uses_secret:
            raise WrongSecretError(label, (
                "the table has no password but we were given one (--code): leave --code out")
                if self._initiator else
                "the caller did not give the table password (--code): refused")
        try:
            Ed25519PublicKey.from_public_bytes(hello.peer_id)
        except ValueError as exc:
            raise BadSignatureError(label, f"{claims} is not an Ed25519 public key") from exc

    @property
    def _my_role(self) -> bytes:
        return ROLE_INITIATOR if self._initiator else ROLE_RESPONDER

    @property
    def _peer_role(self) -> bytes:
        return ROLE_RESPONDER if self._initiator else ROLE_INITIATOR

    def _auth_message(self, role: bytes) -> bytes:
        # The transcript holds both HELLOs: both identity keys, both ephemeral keys and the
        # table id, so the signature binds this identity to this very key exchange.
        return _lv(_LABEL_AUTH) + role + self._transcript

    def _auth(self) -> Auth:
        return Auth(self._identity.sign(self._auth_message(self._my_role)))

    def _confirm_mac(self, role: bytes) -> bytes:
        assert self._secrets is not None
        return hmac.new(
            self._secrets.confirm_key, _lv(_LABEL_CONFIRM) + role + self._transcript, hashlib.sha256
        ).digest()


def _random_scalar(random_bytes: RandomBytes) -> bytes:
    """A uniformly random non-zero scalar mod the group order (64 bytes reduced: no bias)."""
    while True:
        scalar: bytes = sodium.crypto_core_ed25519_scalar_reduce(random_bytes(_SCALAR_SEED_BYTES))
        if any(scalar):
            return scalar


def _cpace_generator(secret: bytes, table_id: bytes, transcript: bytes) -> bytes:
    """CPace generator: a point nobody knows the discrete log of, fixed by code and session.

    Hashing the code together with this link's transcript (both ephemeral keys, both
    identities) makes every connection's generator fresh, so a share can't be replayed into
    another session.
    """
    uniform = hashlib.sha256(
        _lv(_LABEL_GENERATOR) + _lv(secret) + _lv(table_id) + _lv(transcript)
    ).digest()
    point: bytes = sodium.crypto_core_ed25519_from_uniform(uniform)
    return point
