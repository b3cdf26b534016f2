"""Build protocol/vectors/net/handshake-v4.json: the link handshake and frame protection of
protocol/SPEC.md §4.1-4.3 for fixed identities and fixed randomness, with and without a table
code. Every input a third party needs is in the file (identity seeds, the random bytes each
side draws, in order, the code as typed, the table id); every output too (each frame's wire
bytes per direction, the hashes and keys of the key schedule, one protected frame each way).

    .venv/bin/python tests/net/make_handshake_vectors.py          # rewrite the file
    .venv/bin/python tests/net/make_handshake_vectors.py --check  # exit 1 if it differs

Regenerate only with a deliberate, versioned protocol change: tests/net/
test_net_handshake_vectors.py fails whenever the code no longer produces the file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import struct
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

from hanabi_p2p.identity import Identity
from hanabi_p2p.net.frames import (
    Entry,
    Frame,
    FrameProtector,
    Hello,
    encode_frame,
    encode_payload,
)
from hanabi_p2p.net.handshake import (
    PROTOCOL_VERSION,
    Handshake,
    hello_bytes,
    normalize_secret,
    table_code,
)

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "net" / "handshake-v4.json"

# RFC 8032 section 7.1 test keys 1 and 2, as in protocol/vectors/log/entry-v1.json.
SEEDS = {
    "alice": "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
    "bob": "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
}
TABLE_ID = bytes(range(16))
CODE_AS_TYPED = "Blue  MOON"
TRANSCRIPT_LABEL = b"hanabi-p2p/v2/handshake-transcript"


def _random_stream(label: str, sizes: list[int]) -> list[bytes]:
    """Fixed "random" draws: SHA-512 of a label and the draw's index, cut to size."""
    return [
        hashlib.sha512(f"hanabi-p2p handshake vector {label} {i}".encode()).digest()[:size]
        for i, size in enumerate(sizes)
    ]


class ScriptedRandom:
    """`random_bytes(n)` that returns the given draws in order (and checks their sizes)."""

    def __init__(self, draws: list[bytes]) -> None:
        self._draws = list(draws)
        self.used: list[bytes] = []

    def __call__(self, n: int) -> bytes:
        draw = self._draws.pop(0)
        if len(draw) != n:
            raise AssertionError(f"vector draw of {len(draw)} bytes where {n} are needed")
        self.used.append(draw)
        return draw


def _run(initiator: Handshake, responder: Handshake) -> tuple[list[Frame], list[Frame]]:
    """Deliver frames both ways until both are done; the frames sent per direction."""
    i_to_r, r_to_i = initiator.start(), responder.start()
    sent_i, sent_r = list(i_to_r), list(r_to_i)
    while i_to_r or r_to_i:
        next_r = [f for frame in i_to_r for f in responder.receive(frame)]
        next_i = [f for frame in r_to_i for f in initiator.receive(frame)]
        i_to_r, r_to_i = next_i, next_r
        sent_i += i_to_r
        sent_r += r_to_i
    assert initiator.done and responder.done
    return sent_i, sent_r


def _lv(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def _protected(sealer: FrameProtector, frame: Frame, *, initiator: bool) -> dict[str, Any]:
    role = b"I" if initiator else b"R"
    return {
        "counter": 0,
        "nonce": (bytes(4) + (0).to_bytes(8, "big")).hex(),
        "associated_data": (b"hanabi-p2p/v2/frame" + role).hex(),
        "frame": {"type": frame.TAG, "payload": encode_payload(frame).hex()},
        "wire": sealer.seal(frame).hex(),
    }


def build_case(name: str, code: str | None) -> dict[str, Any]:
    alice = Identity.from_seed(bytes.fromhex(SEEDS["alice"]))
    bob = Identity.from_seed(bytes.fromhex(SEEDS["bob"]))
    secret = None if code is None else normalize_secret(code)
    sizes = [32] + ([64] if secret is not None else [])  # ephemeral key, then CPace scalar
    draws_i = _random_stream(f"{name} initiator", sizes)
    draws_r = _random_stream(f"{name} responder", sizes)
    rand_i, rand_r = ScriptedRandom(draws_i), ScriptedRandom(draws_r)
    initiator = Handshake(
        alice, TABLE_ID, initiator=True, peer_label="bob", secret=secret, random_bytes=rand_i
    )
    responder = Handshake(
        bob, TABLE_ID, initiator=False, peer_label="alice", secret=secret, random_bytes=rand_r
    )
    sent_i, sent_r = _run(initiator, responder)
    hello_i, hello_r = sent_i[0], sent_r[0]
    assert isinstance(hello_i, Hello) and isinstance(hello_r, Hello)
    hello_transcript = hashlib.sha256(
        _lv(TRANSCRIPT_LABEL) + hello_bytes(hello_i) + hello_bytes(hello_r)
    ).digest()
    dh = X25519PrivateKey.from_private_bytes(draws_i[0]).exchange(
        X25519PublicKey.from_public_bytes(hello_r.ephemeral)
    )
    keys = initiator.secrets
    result_i, result_r = initiator.result, responder.result
    return {
        "name": name,
        "code_as_typed": code,
        "secret": None if secret is None else secret.hex(),
        "random": {
            "initiator": [d.hex() for d in rand_i.used],
            "responder": [d.hex() for d in rand_r.used],
        },
        "initiator_to_responder": [{"type": f.TAG, "wire": encode_frame(f).hex()} for f in sent_i],
        "responder_to_initiator": [{"type": f.TAG, "wire": encode_frame(f).hex()} for f in sent_r],
        "hello_transcript_hash": hello_transcript.hex(),
        "x25519_shared": dh.hex(),
        "cpace_isk": None if result_i.session_key is None else result_i.session_key.hex(),
        "transcript_hash": result_i.transcript_hash.hex(),
        "prk": keys.prk.hex(),
        "confirm_key": keys.confirm_key.hex(),
        "key_initiator_to_responder": keys.key_initiator_to_responder.hex(),
        "key_responder_to_initiator": keys.key_responder_to_initiator.hex(),
        "protected_initiator_to_responder": _protected(
            result_i.protector("bob"), Entry(b"first entry from the initiator"), initiator=True
        ),
        "protected_responder_to_initiator": _protected(
            result_r.protector("alice"), Entry(b"first entry from the responder"), initiator=False
        ),
    }


def build() -> dict[str, Any]:
    alice = Identity.from_seed(bytes.fromhex(SEEDS["alice"]))
    bob = Identity.from_seed(bytes.fromhex(SEEDS["bob"]))
    return {
        "description": (
            "hanabi-p2p network protocol v2 link handshake and frame protection known-answer "
            "vectors (protocol/SPEC.md 4.1-4.3). Alice dials (initiator), Bob listens "
            "(responder). Hex strings are bytes. 'random' lists the bytes each side draws, "
            "in order: the X25519 ephemeral private key (32), then with a code the 64 bytes "
            "reduced to the CPace scalar. 'wire' is a frame's bytes on the stream, length "
            "prefix included; after the handshake a record is the ChaCha20-Poly1305 "
            "ciphertext of the frame's msgpack payload under the direction's key."
        ),
        "protocol_version": PROTOCOL_VERSION,
        "identities": {
            name: {"seed": seed, "peer_id": ident.peer_id.hex()}
            for (name, seed), ident in zip(SEEDS.items(), (alice, bob), strict=True)
        },
        "table_id": TABLE_ID.hex(),
        "table_code": table_code(TABLE_ID, [alice.peer_id, bob.peer_id]),
        "cases": [build_case("no-code", None), build_case("code", CODE_AS_TYPED)],
    }


def render(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    text = render(build())
    if args.check:
        same = VECTORS.read_text(encoding="utf-8") == text
        print("vectors match" if same else f"{VECTORS} differs from the code")
        return 0 if same else 1
    VECTORS.parent.mkdir(parents=True, exist_ok=True)
    VECTORS.write_text(text, encoding="utf-8")
    print(f"wrote {VECTORS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
