"""Entry encoding and validation: every structural check, tampering, and fuzzing."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from log_helpers import ALICE, BOB, TABLE

from hanabi_p2p.errors import LocalProtocolError, RemoteProtocolError
from hanabi_p2p.log import canonical
from hanabi_p2p.log.entry import (
    MAX_ENTRY_BYTES,
    SIGN_DOMAIN,
    ZERO_HASH,
    BadEntry,
    Entry,
    EntryKind,
    decode_entry,
    make_entry,
)


def sample(body: Any = None, kind: str = "chat", seq: int = 0) -> Entry:
    prev = ZERO_HASH if seq == 0 else b"\x11" * 32
    return make_entry(
        ALICE, table_id=TABLE, seq=seq, prev=prev, turn=3, kind=kind, body=body or {"t": "hi"}
    )


def resign(fields: list[Any], identity: Any = ALICE) -> bytes:
    """Encode ``fields`` (8 signed fields) with a valid signature, bypassing make_entry's
    checks: the way a hostile peer would build an entry."""
    signed = msgpack.packb(fields, use_bin_type=True)
    sig = identity.sign(SIGN_DOMAIN + signed)
    return bytes(msgpack.packb([*fields, sig], use_bin_type=True))


def good_fields() -> list[Any]:
    return [1, TABLE, ALICE.peer_id, 0, ZERO_HASH, 0, "chat", "hi"]


def test_round_trip_keeps_every_field() -> None:
    entry = sample({"b": [1, -2, b"\x00", None, True], "a": "ü"})
    back = decode_entry(entry.encoded)
    assert back == entry
    assert back.body == {"a": "ü", "b": [1, -2, b"\x00", None, True]}
    assert list(back.body) == ["a", "b"]  # keys sorted
    assert back.hash == entry.hash and len(back.hash) == 32
    assert (back.seq, back.turn, back.kind, back.author) == (0, 3, "chat", ALICE.peer_id)


def test_tuples_become_lists_so_made_and_decoded_entries_are_equal() -> None:
    entry = sample({"x": (1, 2)})
    assert entry.body == {"x": [1, 2]}
    assert decode_entry(entry.encoded).body == entry.body


def test_hand_built_good_entry_decodes() -> None:
    assert decode_entry(resign(good_fields())).body == "hi"


def test_every_single_byte_flip_is_rejected() -> None:
    raw = sample().encoded
    for i in range(len(raw)):
        for mask in (0x01, 0x80):
            tampered = bytearray(raw)
            tampered[i] ^= mask
            with pytest.raises(BadEntry):
                decode_entry(bytes(tampered))


def test_forged_author_is_rejected_naming_the_claimed_author() -> None:
    entry = sample()
    forged = msgpack.unpackb(entry.encoded)
    forged[2] = BOB.peer_id  # claim Bob wrote Alice's signed entry
    raw = msgpack.packb(forged, use_bin_type=True)
    with pytest.raises(BadEntry, match="signature does not verify") as info:
        decode_entry(raw)
    assert info.value.author == BOB.peer_id
    assert info.value.peer == BOB.fingerprint


def test_signature_from_the_wrong_key_is_rejected() -> None:
    fields = good_fields()
    with pytest.raises(BadEntry, match="signature does not verify"):
        decode_entry(resign(fields, identity=BOB))


def test_bad_entry_is_a_remote_protocol_error_with_a_readable_message() -> None:
    with pytest.raises(RemoteProtocolError, match=r"peer unknown author: .*msgpack"):
        decode_entry(b"\xc1")


def bad_envelopes() -> Iterator[tuple[str, list[Any]]]:
    def with_field(i: int, value: Any) -> list[Any]:
        fields = good_fields()
        fields[i] = value
        return fields

    yield "version 2", with_field(0, 2)
    yield "version bool", with_field(0, True)
    yield "table id short", with_field(1, b"x" * 15)
    yield "table id str", with_field(1, "x" * 16)
    yield "author short", with_field(2, b"x" * 31)
    yield "seq negative", with_field(3, -1)
    yield "seq huge", with_field(3, 2**40)
    yield "seq bool", with_field(3, False)
    yield "prev short", with_field(4, b"\x00" * 31)
    yield "seq0 prev nonzero", with_field(4, b"\x01" * 32)
    yield "seq1 prev zero", with_field(3, 1)
    yield "turn negative", with_field(5, -3)
    yield "turn huge", with_field(5, 2**20)
    yield "kind unknown", with_field(6, "launch.missiles")
    yield "kind bytes", with_field(6, b"chat")


@pytest.mark.parametrize(("label", "fields"), list(bad_envelopes()))
def test_bad_envelope_fields_are_rejected(label: str, fields: list[Any]) -> None:
    with pytest.raises(BadEntry):
        decode_entry(resign(fields))


def test_wrong_version_names_the_versions() -> None:
    fields = good_fields()
    fields[0] = 2
    with pytest.raises(BadEntry, match="unsupported log version 2"):
        decode_entry(resign(fields))


def test_short_signature_is_rejected() -> None:
    raw = msgpack.packb([*good_fields(), b"\x00" * 63], use_bin_type=True)
    with pytest.raises(BadEntry, match="signature is not 64 bytes"):
        decode_entry(raw)


def test_small_order_author_key_is_rejected() -> None:
    fields = good_fields()
    fields[2] = bytes([1]) + bytes(31)
    raw = msgpack.packb([*fields, bytes(64)], use_bin_type=True)
    with pytest.raises(BadEntry, match="not a valid Ed25519 public key"):
        decode_entry(raw)


@pytest.mark.parametrize(
    ("label", "raw"),
    [
        ("map envelope", msgpack.packb({"v": 1})),
        ("8 fields", msgpack.packb(good_fields())),
        ("10 fields", msgpack.packb([*good_fields(), b"x" * 64, 0])),
        ("empty", b""),
        ("truncated", b"\x99\x01"),
    ],
)
def test_wrong_shapes_are_rejected(label: str, raw: bytes) -> None:
    with pytest.raises(BadEntry):
        decode_entry(raw)


@pytest.mark.parametrize(
    ("label", "body_bytes"),
    [
        ("unsorted map keys", b"\x82\xa1b\x01\xa1a\x02"),
        ("duplicate map keys", b"\x82\xa1a\x01\xa1a\x02"),
        ("non-minimal int", b"\xcd\x00\x05"),
        ("float", b"\xcb" + bytes(8)),
        ("ext type", b"\xd4\x01\x00"),
        ("timestamp", b"\xd6\xff\x00\x00\x00\x01"),
        ("str8 for a short str", b"\xd9\x02hi"),
        ("bin key", b"\x81\xc4\x01a\x01"),
        ("int key", b"\x81\x01\x01"),
        ("invalid utf-8", b"\xa2\xff\xfe"),
    ],
)
def test_non_canonical_bodies_are_rejected(label: str, body_bytes: bytes) -> None:
    # Splice the raw body bytes into an otherwise well-formed, correctly signed entry.
    head = msgpack.packb(good_fields()[:7], use_bin_type=True)[1:]  # drop the array header
    signed = b"\x98" + head + body_bytes
    sig = ALICE.sign(SIGN_DOMAIN + signed)
    raw = b"\x99" + head + body_bytes + b"\xc4\x40" + sig
    with pytest.raises(BadEntry):
        decode_entry(raw)


def test_trailing_bytes_are_rejected() -> None:
    with pytest.raises(BadEntry, match="msgpack"):
        decode_entry(sample().encoded + b"\x00")


def test_size_limit() -> None:
    big = sample({"x": b"\x00" * (MAX_ENTRY_BYTES - 400)})
    assert decode_entry(big.encoded) == big
    with pytest.raises(BadEntry, match="over the"):
        decode_entry(big.encoded, max_size=len(big.encoded) - 1)
    with pytest.raises(LocalProtocolError, match="limit"):
        sample({"x": b"\x00" * MAX_ENTRY_BYTES})


def test_deep_nesting_is_rejected() -> None:
    body: Any = 1
    for _ in range(40):
        body = [body]
    with pytest.raises(LocalProtocolError, match="deeper"):
        sample(body)
    raw = resign([*good_fields()[:7], body])
    with pytest.raises(BadEntry, match="deeper"):
        decode_entry(raw)


def test_make_entry_refuses_what_peers_would_reject() -> None:
    with pytest.raises(LocalProtocolError, match="float"):
        sample({"x": 1.5})
    with pytest.raises(LocalProtocolError, match="not a str"):
        sample({1: "x"})
    with pytest.raises(LocalProtocolError, match="unknown kind"):
        sample(kind="nope")
    with pytest.raises(LocalProtocolError, match="seq 0"):
        make_entry(ALICE, table_id=TABLE, seq=0, prev=b"\x01" * 32, turn=0, kind="chat", body=None)


def test_the_log_checks_the_kind_but_leaves_the_body_to_the_session() -> None:
    # any body in canonical form passes the log: what it means is the session's to check
    odd = sample(["not", "a", "map"])
    assert decode_entry(odd.encoded).body == ["not", "a", "map"]
    assert odd.entry_kind is EntryKind.CHAT
    assert {kind.value for kind in EntryKind} == {
        "table.open", "lobby.join", "lobby.seat", "deck", "action", "ack", "move", "chat",
        "resign", "seed", "abandon"}
    with pytest.raises(BadEntry, match="unknown kind 'nope'"):
        decode_entry(resign([1, TABLE, ALICE.peer_id, 0, ZERO_HASH, 0, "nope", "hi"]))


def test_a_body_is_parsed_once_per_entry_and_a_failed_parse_is_not_kept() -> None:
    entry = decode_entry(sample({"text": "ok"}).encoded)
    calls: list[Any] = []

    def text_of(body: Any) -> str:
        calls.append(body)
        if not isinstance(body.get("text"), str):
            raise ValueError("text must be a string")
        return str(body["text"])

    assert entry.parsed(text_of) == "ok"
    assert entry.parsed(text_of) == "ok"
    assert len(calls) == 1
    assert entry.parsed(len) == 1  # another parser: parsed by it
    bad = sample({"text": 5})
    for _ in range(2):
        with pytest.raises(ValueError, match="text must be a string"):
            bad.parsed(text_of)
    assert len(calls) == 3


def test_direct_construction_validates_the_envelope() -> None:
    with pytest.raises(LocalProtocolError, match="table id"):
        Entry(1, b"short", ALICE.peer_id, 0, ZERO_HASH, 0, "chat", None, bytes(64))
    with pytest.raises(LocalProtocolError, match="float"):
        Entry(1, TABLE, ALICE.peer_id, 0, ZERO_HASH, 0, "chat", [0.5], bytes(64))
    assert Entry(1, TABLE, ALICE.peer_id, 0, ZERO_HASH, 0, "chat", (1,), bytes(64)).body == [1]


def test_entries_are_hashable_and_compare_by_bytes() -> None:
    a, b = sample(), sample()
    assert a == b and hash(a) == hash(b)  # Ed25519 signing is deterministic
    assert a != sample({"t": "other"})
    assert len({a, b}) == 1


def test_canonical_pack_is_stable_known_bytes() -> None:
    assert canonical.pack({"b": 1, "a": [True, None, b"\x01", "x"]}).hex() == (
        "82a16194c3c0c40101a178a16201"
    )
    assert canonical.pack(300).hex() == "cd012c"
    assert canonical.pack(-33).hex() == "d0df"


# ---- fuzzing: untrusted bytes either decode or raise BadEntry, nothing else ------------

VALID = sample({"cards": [1, 2, 3], "text": "héllo"}).encoded


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_random_bytes_decode_or_raise_bad_entry(data: bytes) -> None:
    with contextlib.suppress(BadEntry):
        decode_entry(data)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(VALID) - 1), st.integers(0, 255)), min_size=1))
def test_mutated_valid_entries_never_slip_through(edits: list[tuple[int, int]]) -> None:
    raw = bytearray(VALID)
    for pos, value in edits:
        raw[pos] = value
    if bytes(raw) == VALID:
        return
    with pytest.raises(BadEntry):
        decode_entry(bytes(raw))


json_like = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.binary(max_size=20)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(json_like)
def test_any_model_value_round_trips_canonically(value: Any) -> None:
    packed = canonical.pack(value)
    assert canonical.pack(canonical.unpack(packed)) == packed
    entry = make_entry(
        ALICE, table_id=TABLE, seq=0, prev=ZERO_HASH, turn=0, kind="deck", body=value
    )
    assert decode_entry(entry.encoded) == entry


def test_hash_is_domain_separated_sha256_of_the_encoding() -> None:
    entry = sample()
    expected = hashlib.sha256(b"hanabi-p2p/v1/entry-hash" + entry.encoded).digest()
    assert entry.hash == expected


any_msgpack = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats()
    | st.binary(max_size=8) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=4) | st.binary(max_size=4) | st.integers(0, 9), inner,
                      max_size=4),
    max_leaves=16,
)


def _reference_verdict(raw: bytes) -> bool:
    """The slow definition: decode, normalise the whole value, re-encode, compare."""
    try:
        value = msgpack.unpackb(raw, raw=False, strict_map_key=False, use_list=True)
        return canonical.pack(value) == raw
    except Exception:
        return False


def _fast_verdict(raw: bytes) -> bool:
    try:
        canonical.unpack(raw)
    except canonical.CanonicalError:
        return False
    return True


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(any_msgpack, st.randoms(use_true_random=False))
def test_unpack_accepts_exactly_what_normalising_and_re_encoding_accepts(
        value: Any, rng: Any) -> None:
    """The receive path's fast check (no normal form built) gives the verdict of the full
    one, on canonical bytes and on the same value with its maps' keys shuffled."""
    def shuffled(v: Any) -> Any:
        if isinstance(v, list):
            return [shuffled(x) for x in v]
        if isinstance(v, dict):
            items = list(v.items())
            rng.shuffle(items)
            return {k: shuffled(x) for k, x in items}
        return v
    for candidate in (value, shuffled(value)):
        raw = msgpack.packb(candidate, use_bin_type=True)
        assert _fast_verdict(raw) == _reference_verdict(raw)


@pytest.mark.parametrize("depth", [canonical.MAX_DEPTH - 1, canonical.MAX_DEPTH,
                                   canonical.MAX_DEPTH + 1])
@pytest.mark.parametrize("inner", [1, [], {}])
def test_nesting_limit_is_the_same_for_scalars_and_empty_containers(depth: int,
                                                                    inner: Any) -> None:
    value: Any = inner
    for _ in range(depth):
        value = [value]
    raw = msgpack.packb(value, use_bin_type=True)
    assert _fast_verdict(raw) == _reference_verdict(raw)
    assert _fast_verdict(raw) == (depth <= canonical.MAX_DEPTH)
