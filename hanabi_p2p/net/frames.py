"""Length-prefixed msgpack frames: the only thing that ever crosses a link (sans-IO).

Wire format of one frame::

    u32 big-endian length N (1 <= N <= MAX_FRAME_BYTES) || N bytes of record

During the handshake the record is the frame's msgpack payload in clear. After it, the
record is the ChaCha20-Poly1305 ciphertext (with its 16-byte tag) of that payload, sealed by
`FrameProtector` under the link key of its direction with a per-direction counter as nonce
(see `FrameProtector`); `FrameDecoder.protect` switches a decoder over.

The msgpack value is an array ``[type: str, *fields]``. Every frame type is a small frozen
dataclass that validates its own fields on construction, h11-style; `encode_frame` turns one
into bytes and `FrameDecoder` turns a byte stream back into frames. A frame built locally with
bad fields raises `LocalProtocolError` (our bug); the same problem in bytes from a peer raises
`FrameError` naming the peer (`LinkAuthError`, a `FrameError`, when a protected record fails
authentication). After a `FrameError` the decoder refuses further use: a stream that went bad
once cannot be resynchronised.

The handshake frames (HELLO, PAKE, CONFIRM, AUTH) are described in `handshake.py`; the rest
are for the layers above (log sync, lobby/session messages) and for keepalive.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import ClassVar

import msgpack
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from hanabi_p2p.errors import LocalProtocolError
from hanabi_p2p.limits import (
    ENTRY_HASH_BYTES,
    MAX_ENTRY_BYTES,
    MAX_REASON_CHARS,
    MAX_SEQ,
    PEER_ID_BYTES,
    SIGNATURE_BYTES,
    TABLE_ID_BYTES,
)
from hanabi_p2p.net.errors import FrameError, LinkAuthError
from hanabi_p2p.safe_text import safe

# A frame's record (its msgpack payload; after the handshake the payload's ciphertext with
# its AEAD tag) is at most this long: four times the log's largest entry (MAX_ENTRY_BYTES,
# from hanabi_p2p.limits, is what an ENTRY frame may carry; a test checks the largest ENTRY
# still fits once sealed), small enough that a hostile peer cannot make us buffer much (one
# partial frame per link).
MAX_FRAME_BYTES = 256 * 1024
LENGTH_PREFIX = struct.Struct(">I")
# ChaCha20-Poly1305 adds this tag to every protected record.
AEAD_TAG_BYTES = 16
# The msgpack payload of any frame, so that it still fits MAX_FRAME_BYTES once sealed.
MAX_PAYLOAD_BYTES = MAX_FRAME_BYTES - AEAD_TAG_BYTES
MAX_MESSAGE_BODY_BYTES = MAX_ENTRY_BYTES
MAX_TOPIC_CHARS = 32
# HAVE/WANT map one entry per log author: players (<= 5) plus room for a later spectator role.
MAX_AUTHORS = 16
MAX_PING_NONCE = 2**32 - 1

# X25519 public key of the handshake's ephemeral Diffie-Hellman (fresh per connection)
EPHEMERAL_KEY_BYTES = 32
LINK_KEY_BYTES = 32
# Per-direction frame counter: the AEAD nonce is 4 zero bytes || u64be(counter).
MAX_FRAME_COUNTER = 2**64 - 1
POINT_BYTES = 32
MAC_BYTES = 32
MAX_VERSION = 2**16 - 1

# The widest frame has this many fields after the tag; msgpack arrays longer than that are
# refused by the parser before Python objects are built for them.
_MAX_ARRAY_LEN = 8
# Strings on the wire are tags, topics and reasons: all short.
_MAX_STR_BYTES = 1024


# -- field checks: raise LocalProtocolError; the decoder turns that into FrameError ---------


def _check_bytes(name: str, value: object, *, exact: int | None = None, most: int = 0) -> None:
    if not isinstance(value, bytes):
        raise LocalProtocolError(f"{name} must be bytes, not {type(value).__name__}")
    if exact is not None and len(value) != exact:
        raise LocalProtocolError(f"{name} must be {exact} bytes, not {len(value)}")
    if exact is None and len(value) > most:
        raise LocalProtocolError(f"{name} is {len(value)} bytes; the limit is {most}")


def _check_int(name: str, value: object, most: int) -> None:
    # bool is an int subclass in Python, but msgpack has a separate boolean type: refuse it.
    if not isinstance(value, int) or isinstance(value, bool):
        raise LocalProtocolError(f"{name} must be an integer, not {type(value).__name__}")
    if not 0 <= value <= most:
        raise LocalProtocolError(f"{name} must be in 0..{most}, not {value}")


def _check_text(name: str, value: object, most: int, *, allow_empty: bool = True) -> None:
    if not isinstance(value, str):
        raise LocalProtocolError(f"{name} must be a string, not {type(value).__name__}")
    if len(value) > most:
        raise LocalProtocolError(f"{name} is {len(value)} characters; the limit is {most}")
    if not allow_empty and not value:
        raise LocalProtocolError(f"{name} must not be empty")
    # Reasons and topics end up on a terminal: no escape sequences or other control chars.
    if not value.isprintable():
        raise LocalProtocolError(f"{name} contains control characters")


def _check_seq_map(name: str, value: object) -> None:
    if not isinstance(value, Mapping):
        raise LocalProtocolError(f"{name} must be a map, not {type(value).__name__}")
    if len(value) > MAX_AUTHORS:
        raise LocalProtocolError(f"{name} names {len(value)} authors; the limit is {MAX_AUTHORS}")
    for author, seq in value.items():
        _check_bytes(f"{name} author", author, exact=PEER_ID_BYTES)
        _check_int(f"{name} seq", seq, MAX_SEQ)


# -- the frame types ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello:
    """First frame both ways: who I am, which table, my ephemeral X25519 key (fresh for this
    connection, so it is also the link's nonce), whether I use a code."""

    TAG: ClassVar[str] = "HELLO"
    version: int
    table_id: bytes
    peer_id: bytes
    ephemeral: bytes
    uses_secret: bool

    def __post_init__(self) -> None:
        _check_int("version", self.version, MAX_VERSION)
        _check_bytes("table_id", self.table_id, exact=TABLE_ID_BYTES)
        _check_bytes("peer_id", self.peer_id, exact=PEER_ID_BYTES)
        _check_bytes("ephemeral", self.ephemeral, exact=EPHEMERAL_KEY_BYTES)
        if not isinstance(self.uses_secret, bool):
            raise LocalProtocolError("uses_secret must be a boolean")


@dataclass(frozen=True, slots=True)
class Pake:
    """CPace share: an edwards25519 point (only when the table has a code)."""

    TAG: ClassVar[str] = "PAKE"
    point: bytes

    def __post_init__(self) -> None:
        _check_bytes("point", self.point, exact=POINT_BYTES)


@dataclass(frozen=True, slots=True)
class Confirm:
    """CPace key confirmation: a MAC under the shared key over the transcript."""

    TAG: ClassVar[str] = "CONFIRM"
    mac: bytes

    def __post_init__(self) -> None:
        _check_bytes("mac", self.mac, exact=MAC_BYTES)


@dataclass(frozen=True, slots=True)
class Auth:
    """Ed25519 signature by the sender's identity key over the handshake transcript."""

    TAG: ClassVar[str] = "AUTH"
    signature: bytes

    def __post_init__(self) -> None:
        _check_bytes("signature", self.signature, exact=SIGNATURE_BYTES)


@dataclass(frozen=True, slots=True)
class Entry:
    """One log entry, opaque to the network layer (the log module validates it)."""

    TAG: ClassVar[str] = "ENTRY"
    data: bytes

    def __post_init__(self) -> None:
        _check_bytes("entry", self.data, most=MAX_ENTRY_BYTES)


@dataclass(frozen=True, slots=True)
class Have:
    """What of the log I hold: author peer_id -> the next seq I lack from that author, and
    (protocol 4) author -> the hash of my entry just before it, so that two peers holding
    different entries under one number notice it at once (SPEC §4.6, forks)."""

    TAG: ClassVar[str] = "HAVE"
    next_seq: Mapping[bytes, int]
    heads: Mapping[bytes, bytes] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check_seq_map("HAVE", self.next_seq)
        if not isinstance(self.heads, Mapping):
            raise LocalProtocolError(f"HAVE heads must be a map, not {type(self.heads).__name__}")
        for author, head in self.heads.items():
            _check_bytes("HAVE head author", author, exact=PEER_ID_BYTES)
            _check_bytes("HAVE head", head, exact=ENTRY_HASH_BYTES)
            if not self.next_seq.get(author):
                raise LocalProtocolError("HAVE names a head for an author it holds nothing of")
        # Frozen means frozen: copy into a read-only view so the caller cannot mutate it later.
        object.__setattr__(self, "next_seq", MappingProxyType(dict(self.next_seq)))
        object.__setattr__(self, "heads", MappingProxyType(dict(self.heads)))


@dataclass(frozen=True, slots=True)
class Want:
    """Please send entries: author peer_id -> the first seq I want from that author."""

    TAG: ClassVar[str] = "WANT"
    from_seq: Mapping[bytes, int]

    def __post_init__(self) -> None:
        _check_seq_map("WANT", self.from_seq)
        object.__setattr__(self, "from_seq", MappingProxyType(dict(self.from_seq)))


@dataclass(frozen=True, slots=True)
class Message:
    """A message for the layers above that is not a log entry (lobby chatter, for example)."""

    TAG: ClassVar[str] = "MSG"
    topic: str
    body: bytes

    def __post_init__(self) -> None:
        _check_text("topic", self.topic, MAX_TOPIC_CHARS, allow_empty=False)
        _check_bytes("body", self.body, most=MAX_MESSAGE_BODY_BYTES)


@dataclass(frozen=True, slots=True)
class Ping:
    """Keepalive probe; the peer answers with a PONG carrying the same nonce."""

    TAG: ClassVar[str] = "PING"
    nonce: int

    def __post_init__(self) -> None:
        _check_int("nonce", self.nonce, MAX_PING_NONCE)


@dataclass(frozen=True, slots=True)
class Pong:
    """Keepalive answer."""

    TAG: ClassVar[str] = "PONG"
    nonce: int

    def __post_init__(self) -> None:
        _check_int("nonce", self.nonce, MAX_PING_NONCE)


@dataclass(frozen=True, slots=True)
class Bye:
    """I am closing this link on purpose; the reason is for the log/UI."""

    TAG: ClassVar[str] = "BYE"
    reason: str

    def __post_init__(self) -> None:
        _check_text("reason", self.reason, MAX_REASON_CHARS)


@dataclass(frozen=True, slots=True)
class Error:
    """I am closing this link because of something you sent; the reason says what."""

    TAG: ClassVar[str] = "ERROR"
    reason: str

    def __post_init__(self) -> None:
        _check_text("reason", self.reason, MAX_REASON_CHARS)


Frame = Hello | Pake | Confirm | Auth | Entry | Have | Want | Message | Ping | Pong | Bye | Error

FRAME_TYPES: dict[str, type[Frame]] = {
    cls.TAG: cls
    for cls in (Hello, Pake, Confirm, Auth, Entry, Have, Want, Message, Ping, Pong, Bye, Error)
}


def clip_reason(reason: str) -> str:
    """Make any text fit a BYE/ERROR reason (printable, short) so sending it cannot fail: the
    one sanitiser's rules (whatever it leaves is printable), cut to the wire's limit."""
    return safe(reason, MAX_REASON_CHARS)


# -- encoding -------------------------------------------------------------------------------


def _wire_value(value: object) -> object:
    # Mappings are stored as read-only views; msgpack only packs real dicts.
    return dict(value) if isinstance(value, Mapping) else value


def encode_payload(frame: Frame) -> bytes:
    """The msgpack bytes of a frame, without the length prefix (at most MAX_PAYLOAD_BYTES:
    a larger frame raises LocalProtocolError, it could not be sent protected)."""
    values = [_wire_value(getattr(frame, f.name)) for f in fields(frame)]
    payload: bytes = msgpack.packb([frame.TAG, *values], use_bin_type=True)
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise LocalProtocolError(
            f"{frame.TAG} frame is {len(payload)} bytes; the limit is {MAX_PAYLOAD_BYTES}"
        )
    return payload


def encode_frame(frame: Frame) -> bytes:
    """Length prefix + msgpack in clear: the bytes of a handshake frame on the stream."""
    payload = encode_payload(frame)
    return LENGTH_PREFIX.pack(len(payload)) + payload


# -- protection after the handshake ---------------------------------------------------------

# Associated data of every protected record: this label and the sender's role byte. The keys
# already differ per direction; the role in the AD makes a reflected record fail twice over.
_AAD_LABEL = b"hanabi-p2p/v2/frame"
ROLE_INITIATOR = b"I"
ROLE_RESPONDER = b"R"


def _nonce(counter: int) -> bytes:
    return bytes(4) + counter.to_bytes(8, "big")


class FrameProtector:
    """ChaCha20-Poly1305 for one link after its handshake (sans-IO): `seal` what we send,
    `open` what we receive.

    One key per direction and one 64-bit counter per direction, starting at 0 and never sent:
    the receiver knows which counter the next record must carry, so a record that was altered,
    injected, replayed, dropped before a later one or reordered fails authentication
    (`LinkAuthError`) and the link must close. A protector that failed refuses further use.
    """

    def __init__(self, send_key: bytes, recv_key: bytes, *, initiator: bool, peer: str) -> None:
        _check_bytes("send_key", send_key, exact=LINK_KEY_BYTES)
        _check_bytes("recv_key", recv_key, exact=LINK_KEY_BYTES)
        self.peer = peer
        self._sealer = ChaCha20Poly1305(send_key)
        self._opener = ChaCha20Poly1305(recv_key)
        mine, theirs = (
            (ROLE_INITIATOR, ROLE_RESPONDER) if initiator else (ROLE_RESPONDER, ROLE_INITIATOR)
        )
        self._send_aad = _AAD_LABEL + mine
        self._recv_aad = _AAD_LABEL + theirs
        self._send_counter = 0
        self._recv_counter = 0
        self._broken = False

    def seal_payload(self, payload: bytes) -> bytes:
        """The wire bytes (length prefix + ciphertext) of one frame's msgpack payload.

        Records must be written in the order they were sealed (the counter is the nonce).
        """
        if len(payload) > MAX_PAYLOAD_BYTES:
            raise LocalProtocolError(
                f"frame payload is {len(payload)} bytes; the limit is {MAX_PAYLOAD_BYTES}"
            )
        if self._send_counter > MAX_FRAME_COUNTER:
            raise LocalProtocolError("this link has sent 2^64 frames; open a new one")
        record = self._sealer.encrypt(_nonce(self._send_counter), payload, self._send_aad)
        self._send_counter += 1
        return LENGTH_PREFIX.pack(len(record)) + record

    def seal(self, frame: Frame) -> bytes:
        """The wire bytes of one protected frame."""
        return self.seal_payload(encode_payload(frame))

    def open(self, record: bytes) -> bytes:
        """The payload inside one received record (without its length prefix)."""
        if self._broken:
            raise LocalProtocolError(f"frame protection for {self.peer} already failed")
        if len(record) < AEAD_TAG_BYTES or self._recv_counter > MAX_FRAME_COUNTER:
            self._broken = True
            raise LinkAuthError(self.peer, "a frame is too short to carry its authentication tag")
        try:
            payload = self._opener.decrypt(_nonce(self._recv_counter), record, self._recv_aad)
        except InvalidTag:
            self._broken = True
            raise LinkAuthError(
                self.peer,
                f"frame {self._recv_counter} failed authentication "
                "(altered, injected, replayed or reordered on the way)",
            ) from None
        self._recv_counter += 1
        return payload

    @property
    def counters(self) -> tuple[int, int]:
        """(frames sealed, frames opened) so far: for tests and diagnostics."""
        return self._send_counter, self._recv_counter


# -- decoding -------------------------------------------------------------------------------


def decode_payload(payload: bytes, peer: str) -> Frame:
    """Parse one frame's msgpack bytes; anything wrong raises FrameError naming `peer`."""
    try:
        value = msgpack.unpackb(
            payload,
            raw=False,
            use_list=True,
            strict_map_key=True,
            max_array_len=_MAX_ARRAY_LEN,
            max_map_len=MAX_AUTHORS,
            max_str_len=_MAX_STR_BYTES,
            max_bin_len=MAX_FRAME_BYTES,
            max_ext_len=0,
        )
    # msgpack reports bad input with a zoo of exception types (ExtraData, FormatError,
    # StackError, ValueError, UnicodeDecodeError, TypeError for unhashable keys, ...).
    # This is the one place hostile bytes enter the parser, so all of them become FrameError.
    except Exception as exc:
        raise FrameError(peer, f"frame is not valid msgpack ({type(exc).__name__})") from exc
    if not isinstance(value, list) or not value:
        raise FrameError(peer, "frame is not a non-empty msgpack array")
    tag, *values = value
    if not isinstance(tag, str):
        raise FrameError(peer, "frame type is not a string")
    cls = FRAME_TYPES.get(tag)
    if cls is None:
        raise FrameError(peer, f"unknown frame type {tag[:MAX_TOPIC_CHARS]!r}")
    expected = len(fields(cls))
    if len(values) != expected:
        raise FrameError(peer, f"{tag} frame has {len(values)} fields, expected {expected}")
    try:
        frame: Frame = cls(*values)
    except LocalProtocolError as exc:
        raise FrameError(peer, f"bad {tag} frame: {exc}") from exc
    return frame


class FrameDecoder:
    """Turns a byte stream from one peer into frames: `feed(data)`, then `next_frame()`.

    Buffers at most one partial frame (<= MAX_FRAME_BYTES + prefix); an announced length over
    the limit is refused as soon as the 4-byte prefix arrives, before any body is buffered.
    """

    def __init__(self, peer: str) -> None:
        self.peer = peer
        self._buffer = bytearray()
        self._broken: FrameError | None = None
        self._protector: FrameProtector | None = None

    def protect(self, protector: FrameProtector) -> None:
        """From the next frame on, every record is opened with `protector` (bytes already
        buffered after the handshake's last frame included)."""
        if self._protector is not None:
            raise LocalProtocolError(f"frames from {self.peer} are already protected")
        self._protector = protector

    def feed(self, data: bytes) -> None:
        """Append bytes received from the peer."""
        if self._broken is not None:
            raise LocalProtocolError(f"frame stream from {self.peer} already failed")
        self._buffer += data

    def next_frame(self) -> Frame | None:
        """The next complete frame, or None if more bytes are needed."""
        if self._broken is not None:
            raise LocalProtocolError(f"frame stream from {self.peer} already failed")
        try:
            return self._next_frame()
        except FrameError as exc:
            self._broken = exc
            self._buffer.clear()
            raise

    def _next_frame(self) -> Frame | None:
        if len(self._buffer) < LENGTH_PREFIX.size:
            return None
        (length,) = LENGTH_PREFIX.unpack_from(self._buffer)
        if length == 0:
            raise FrameError(self.peer, "empty frame")
        if length > MAX_FRAME_BYTES:
            raise FrameError(
                self.peer, f"frame of {length} bytes announced; the limit is {MAX_FRAME_BYTES}"
            )
        end = LENGTH_PREFIX.size + length
        if len(self._buffer) < end:
            return None
        record = bytes(self._buffer[LENGTH_PREFIX.size : end])
        del self._buffer[:end]
        if self._protector is not None:
            record = self._protector.open(record)
        return decode_payload(record, self.peer)

    @property
    def buffered(self) -> int:
        """Bytes received but not yet returned as frames (for tests and diagnostics)."""
        return len(self._buffer)
