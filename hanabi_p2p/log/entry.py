"""Log entries: signed, hash-chained, canonically encoded records of everything said at a table.

Wire form (protocol/SPEC.md 3.3): a canonical msgpack ARRAY, fields in this order::

    [version, table_id, author, seq, prev, turn, kind, body, signature]

The signature is Ed25519 by ``author`` over ``SIGN_DOMAIN || pack([first eight fields])``.
The entry hash is ``SHA-256(HASH_DOMAIN || full encoding)``; an author's next entry carries
it in ``prev``, so each author's entries form a chain.

``decode_entry`` is the single door for untrusted bytes: it checks size, encoding, every field
(the kind among them: one of ``EntryKind``), the author key and the signature, and raises
``BadEntry`` naming the author and the reason. Nothing else parses entries.

Entry kinds. The log names the kinds (``EntryKind``: each wire string is written here and
nowhere else) and refuses any other, but knows nothing of what a body means: the table of
kinds — stage, step, body parser of each — is the session's (hanabi_p2p/session/kinds.py),
which imports this module, never the other way round (log <- session). The session parses a
body once per entry into its typed value and keeps it on the entry (``Entry.parsed``).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, TypeVar, cast

import msgpack

from hanabi_p2p.errors import LocalProtocolError, RemoteProtocolError
from hanabi_p2p.identity import fingerprint, is_valid_peer_id, verify_signature
from hanabi_p2p.limits import (
    ENTRY_HASH_BYTES,
    MAX_ENTRY_BYTES,
    MAX_SEQ,
    PEER_ID_BYTES,
    SIGNATURE_BYTES,
    TABLE_ID_BYTES,
)
from hanabi_p2p.log import canonical

LOG_VERSION = 1
HASH_BYTES = ENTRY_HASH_BYTES
ZERO_HASH = bytes(HASH_BYTES)
SIGN_DOMAIN = b"hanabi-p2p/v1/entry"
HASH_DOMAIN = b"hanabi-p2p/v1/entry-hash"

# Limits on peer input (MAX_ENTRY_BYTES and MAX_SEQ, shared with the frames, are in
# hanabi_p2p.limits).
MAX_TURN = 2**16 - 1
MAX_VERSION = 255
ENVELOPE_FIELDS = 9

_T = TypeVar("_T")


class EntryKind(StrEnum):
    """What an entry is: the ``kind`` field of the wire form (SPEC 3.3), one value each."""

    TABLE_OPEN = "table.open"  # host opens a table: name, variant, options
    LOBBY_JOIN = "lobby.join"  # a player asks for a seat
    LOBBY_SEAT = "lobby.seat"  # host fixes the seating (turn order of peer_ids)
    DECK = "deck"  # mental-poker deck messages, including reveal shares
    ACTION = "action"  # play / discard / clue / choreography announcement
    ACK = "ack"  # a peer confirms it applied a turn (carries its public-state hash)
    MOVE = "move"  # reorder of one's own hand
    CHAT = "chat"  # table talk
    RESIGN = "resign"  # resignation or abort
    SEED = "seed"  # end-of-game seed reveal for the audit
    ABANDON = "abandon"  # a vote to end the game by agreement (or, at one's turn, the end)


# The wire strings of every kind (a StrEnum member is equal to its string).
KINDS: frozenset[str] = frozenset(kind.value for kind in EntryKind)


class BadEntry(RemoteProtocolError):
    """An entry failed validation; ``peer`` is the (claimed) author's fingerprint or
    "unknown author", ``reason`` says which check failed. Nothing was changed."""

    def __init__(self, author: bytes | None, reason: str) -> None:
        super().__init__(author_label(author), reason)
        self.author = author


def author_label(author: bytes | None) -> str:
    if author is None or len(author) != PEER_ID_BYTES:
        return "unknown author"
    return fingerprint(author)


class Signer(Protocol):
    """What make_entry needs from an identity (``hanabi_p2p.identity.Identity`` fits)."""

    @property
    def peer_id(self) -> bytes: ...

    def sign(self, data: bytes) -> bytes: ...


def _is_uint(value: object, limit: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= limit


def _is_bytes(value: object, length: int) -> bool:
    return isinstance(value, bytes) and len(value) == length


def envelope_problem(fields: Sequence[object]) -> str | None:
    """The first thing wrong with the envelope (all fields but the body), or None.

    ``fields`` is the 9-field entry array in wire order.
    """
    if len(fields) != ENVELOPE_FIELDS:
        return f"entry is not an array of {ENVELOPE_FIELDS} fields"
    version, table_id, author, seq, prev, turn, kind, _body, signature = fields
    if not _is_uint(version, MAX_VERSION):
        return "version is not a small unsigned integer"
    if version != LOG_VERSION:
        return f"unsupported log version {version} (we speak {LOG_VERSION})"
    if not _is_bytes(table_id, TABLE_ID_BYTES):
        return f"table id is not {TABLE_ID_BYTES} bytes"
    if not _is_bytes(author, PEER_ID_BYTES):
        return f"author is not a {PEER_ID_BYTES}-byte key"
    if not _is_uint(seq, MAX_SEQ):
        return f"seq is not an integer in 0..{MAX_SEQ}"
    if not _is_bytes(prev, HASH_BYTES):
        return f"prev is not a {HASH_BYTES}-byte hash"
    if seq == 0 and prev != ZERO_HASH:
        return "seq 0 must have an all-zero prev"
    if seq != 0 and prev == ZERO_HASH:
        return "only seq 0 may have an all-zero prev"
    if not _is_uint(turn, MAX_TURN):
        return f"turn is not an integer in 0..{MAX_TURN}"
    if not isinstance(kind, str):
        return "kind is not a string"
    if kind not in KINDS:
        return f"unknown kind {kind[:32]!r}"
    if not _is_bytes(signature, SIGNATURE_BYTES):
        return f"signature is not {SIGNATURE_BYTES} bytes"
    return None


@dataclass(frozen=True)
class Entry:
    """One decoded, structurally valid entry. Build with ``make_entry`` or ``decode_entry``.

    ``body`` is in canonical normal form (lists, maps with sorted str keys). Equality and
    hashing go by the encoded bytes.
    """

    version: int
    table_id: bytes
    author: bytes
    seq: int
    prev: bytes
    turn: int
    kind: str
    body: Any
    signature: bytes = field(repr=False)

    def __post_init__(self) -> None:
        problem = envelope_problem([*self.signed_fields(), self.signature])
        if problem:
            raise LocalProtocolError(f"invalid entry: {problem}")
        # Validate on construction (h11 style) and store the body in normal form, so an
        # Entry always has an encoding and equal entries have equal bodies.
        try:
            normal = canonical.normalize(self.body, "body")
        except canonical.CanonicalError as exc:
            raise LocalProtocolError(f"invalid entry body: {exc}") from exc
        object.__setattr__(self, "body", normal)

    def signed_fields(self) -> list[Any]:
        return [
            self.version,
            self.table_id,
            self.author,
            self.seq,
            self.prev,
            self.turn,
            self.kind,
            self.body,
        ]

    @functools.cached_property
    def encoded(self) -> bytes:
        """The canonical wire bytes (what is stored, sent and hashed)."""
        return canonical.pack([*self.signed_fields(), self.signature], "entry")

    @functools.cached_property
    def hash(self) -> bytes:
        return entry_hash(self.encoded)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Entry):
            return NotImplemented
        return self.encoded == other.encoded

    def __hash__(self) -> int:
        return hash(self.hash)

    @property
    def author_fingerprint(self) -> str:
        return fingerprint(self.author)

    @property
    def entry_kind(self) -> EntryKind:
        """The kind as the enum (every Entry's kind is a known one: the envelope checks it)."""
        return EntryKind(self.kind)

    def parsed(self, parser: Callable[[Any], _T]) -> _T:
        """The body as ``parser`` reads it, parsed once per entry and kept with it (the
        session's typed bodies: the log does not know them, so the caller names the parser).
        A parser that raises keeps nothing: the next call raises the same."""
        kept = self.__dict__.get("_parsed")
        if kept is not None and kept[0] is parser:
            return cast(_T, kept[1])
        value = parser(self.body)
        self.__dict__["_parsed"] = (parser, value)
        return value

    def __repr__(self) -> str:
        return (
            f"Entry({self.kind} by {self.author_fingerprint} seq={self.seq} "
            f"turn={self.turn} hash={self.hash.hex()[:12]})"
        )


def signing_input(signed_fields: list[Any]) -> bytes:
    return SIGN_DOMAIN + canonical.pack(signed_fields, "entry")


def signed_message(entry: Entry) -> bytes:
    """What the entry's author signed, ``signing_input(entry.signed_fields())``, cut from
    the entry's canonical bytes instead of encoding its fields again (a verifier checks
    every entry of a game)."""
    return SIGN_DOMAIN + _strip_signature(entry.encoded, entry.signature)


def entry_hash(encoded: bytes) -> bytes:
    return hashlib.sha256(HASH_DOMAIN + encoded).digest()


def make_entry(
    signer: Signer,
    *,
    table_id: bytes,
    seq: int,
    prev: bytes,
    turn: int,
    kind: str,
    body: Any,
    version: int = LOG_VERSION,
    max_size: int = MAX_ENTRY_BYTES,
) -> Entry:
    """Sign a new entry. Raises LocalProtocolError if the fields or body break the rules
    (a bug on our side: we must never send what peers would reject)."""
    try:
        normal_body = canonical.normalize(body, "body")
    except canonical.CanonicalError as exc:
        raise LocalProtocolError(f"cannot encode entry body: {exc}") from exc
    fields = [version, table_id, signer.peer_id, seq, prev, turn, kind, normal_body]
    problem = envelope_problem([*fields, bytes(SIGNATURE_BYTES)])
    if problem:
        raise LocalProtocolError(f"invalid entry: {problem}")
    # Every field is checked and in normal form: encoded once, here, and the entry's bytes
    # are these same bytes with the signature appended (what `_strip_signature` undoes).
    signed = _pack_normal(fields)
    signature = signer.sign(SIGN_DOMAIN + signed)
    if len(signature) != SIGNATURE_BYTES:
        raise LocalProtocolError(f"invalid entry: signature is not {SIGNATURE_BYTES} bytes")
    encoded = _with_signature(signed, signature)
    if len(encoded) > max_size:
        raise LocalProtocolError(f"entry is {len(encoded)} bytes, over the {max_size}-byte limit")
    return _checked_entry(fields, signature, encoded)


def decode_entry(raw: bytes, max_size: int = MAX_ENTRY_BYTES) -> Entry:
    """Parse and fully validate untrusted bytes; raise BadEntry (and nothing else) if bad.

    Check order (SPEC.md 3.5): size, canonical msgpack, array of 9, envelope field types and
    ranges, author key validity, signature. The body's check of its kind (step 7) is the
    session's, before it holds or applies the entry.
    """
    if not isinstance(raw, bytes | bytearray | memoryview):
        raise BadEntry(None, "entry is not a byte string")
    raw = bytes(raw)
    if len(raw) > max_size:
        raise BadEntry(None, f"entry is {len(raw)} bytes, over the {max_size}-byte limit")
    try:
        value = canonical.unpack(raw, "entry")
    except canonical.CanonicalError as exc:
        raise BadEntry(None, str(exc)) from None
    if not isinstance(value, list) or len(value) != ENVELOPE_FIELDS:
        raise BadEntry(None, f"entry is not an array of {ENVELOPE_FIELDS} fields")
    author, signature = value[2], value[8]
    claimed = author if _is_bytes(author, PEER_ID_BYTES) else None
    problem = envelope_problem(value)
    if problem:
        raise BadEntry(claimed, problem)
    if not is_valid_peer_id(author):
        raise BadEntry(claimed, "author is not a valid Ed25519 public key")
    if not verify_signature(author, signature, SIGN_DOMAIN + _strip_signature(raw, signature)):
        raise BadEntry(claimed, "signature does not verify for the claimed author")
    # The canonical check above guarantees re-encoding reproduces raw; keep the bytes.
    return _checked_entry(value[:8], signature, raw)


def _checked_entry(fields: list[Any], signature: bytes, encoded: bytes) -> Entry:
    """An Entry from fields that passed every check of ``Entry.__post_init__`` already (the
    envelope, a body in normal form) and its canonical encoding: nothing is checked or
    encoded twice on the paths every entry takes."""
    entry: Entry = object.__new__(Entry)
    attrs = entry.__dict__
    (attrs["version"], attrs["table_id"], attrs["author"], attrs["seq"], attrs["prev"],
     attrs["turn"], attrs["kind"], attrs["body"]) = fields
    attrs["signature"] = signature
    attrs["encoded"] = encoded
    return entry


def _pack_normal(fields: list[Any]) -> bytes:
    """The canonical encoding of signed fields already in normal form (``canonical.pack``
    without the second walk)."""
    out: bytes = msgpack.packb(fields, use_bin_type=True)
    return out


def _with_signature(signed: bytes, signature: bytes) -> bytes:
    """The entry's encoding from that of its eight signed fields (``0x98 || f1..f8``) and
    its signature: ``0x99 || f1..f8 || c4 40 || sig`` (see `_strip_signature`)."""
    return b"\x99" + signed[1:] + b"\xc4\x40" + signature


def _strip_signature(raw: bytes, signature: bytes) -> bytes:
    """The encoding of the first eight fields, cut from the canonical entry bytes.

    The full entry is ``0x99 || f1..f8 || c4 40 || sig`` (fixarray of 9, then a bin8 of 64
    bytes); the signed part is ``0x98 || f1..f8`` (fixarray of 8). Canonical form makes this
    slicing exact and saves re-encoding the body.
    """
    suffix_len = 2 + len(signature)
    return b"\x98" + raw[1:-suffix_len]
