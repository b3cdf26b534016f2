"""Regenerate protocol/vectors/log/entry-v1.json (run by hand after a deliberate format change).

    .venv/bin/python tests/log/make_log_vectors.py

The vectors pin the exact bytes of entries, signatures, hashes, storage records, the log
digest and fingerprints, so another implementation can check itself against ours. The keys
are RFC 8032 section 7.1 test keys 1 and 2.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from log_helpers import ALICE, BOB, TABLE

from hanabi_p2p.identity import Identity, fingerprint
from hanabi_p2p.log import canonical
from hanabi_p2p.log.entry import (
    SIGN_DOMAIN,
    ZERO_HASH,
    Entry,
    make_entry,
    signing_input,
)
from hanabi_p2p.log.storage import encode_record
from hanabi_p2p.log.verify import digest

OUT = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "log" / "entry-v1.json"

SEEDS = {
    "alice": "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
    "bob": "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
}


def describe(name: str, entry: Entry) -> dict[str, Any]:
    return {
        "author_name": name,
        "fields": {
            "version": entry.version,
            "table_id": entry.table_id.hex(),
            "author": entry.author.hex(),
            "seq": entry.seq,
            "prev": entry.prev.hex(),
            "turn": entry.turn,
            "kind": entry.kind,
            "body": entry.body,
        },
        "body_msgpack": canonical.pack(entry.body).hex(),
        "signing_input": signing_input(entry.signed_fields()).hex(),
        "signature": entry.signature.hex(),
        "encoded": entry.encoded.hex(),
        "hash": entry.hash.hex(),
        "storage_record": encode_record(entry.encoded).hex(),
    }


def entry(identity: Identity, seq: int, prev: bytes, turn: int, kind: str, body: Any) -> Entry:
    return make_entry(identity, table_id=TABLE, seq=seq, prev=prev, turn=turn, kind=kind, body=body)


def identity_r_signed(entry: Entry) -> bytes:
    """``entry`` re-signed by Alice with R = the identity point and S = h*a mod L: OpenSSL's
    verification accepted this; SPEC 3.1 refuses an R of small order."""
    order = 2**252 + 27742317777372353535851937790883648493
    digest = hashlib.sha512(bytes.fromhex(SEEDS["alice"])).digest()
    a = int.from_bytes(digest[:32], "little")
    a &= (1 << 254) - 8
    a |= 1 << 254
    r_bytes = (1).to_bytes(32, "little")  # the identity, encoded
    message = SIGN_DOMAIN + b"\x98" + entry.encoded[1:-(2 + 64)]
    h = int.from_bytes(hashlib.sha512(r_bytes + ALICE.peer_id + message).digest(), "little") % order
    signature = r_bytes + (h * a % order).to_bytes(32, "little")
    return entry.encoded[:-64] + signature


def main() -> None:
    # e0 and e1 carry valid SPEC 5.1 bodies; e2's body exercises the canonical encoding
    # and is no valid chat body (the log layer never reads bodies: SPEC 3.3, 3.9).
    e0 = entry(
        ALICE, 0, ZERO_HASH, 0, "table.open",
        {"name": "Vector table", "host": "Alice", "players": 2, "variant": "standard",
         "options": []},
    )  # fmt: skip
    e1 = entry(BOB, 0, ZERO_HASH, 0, "lobby.join", {"name": "Bob", "addr": ["192.0.2.2", 4000]})
    e2 = entry(
        ALICE, 1, e0.hash, 3, "chat",
        {"text": "héllo ✿", "n": -5, "ok": True, "none": None, "list": [1, [2, 300]]},
    )  # fmt: skip
    entries = [("alice", e0), ("bob", e1), ("alice", e2)]

    # Negative vectors: a well-formed entry with one thing wrong each.
    flipped = bytearray(e2.encoded)
    flipped[-1] ^= 0x01
    forged = bytearray(e1.encoded)
    author_at = forged.index(BOB.peer_id)
    forged[author_at : author_at + 32] = ALICE.peer_id
    unsorted_body = b"\x98" + e2.encoded[1 : -(2 + 64)].replace(b"\x85\xa4list", b"\x85\xa4zist")
    invalid = [
        {"label": "signature whose R is the identity (S = h*a: a cofactorless check of "
                  "S*B = R + h*A passes, but R is of small order)",
         "encoded": identity_r_signed(e2).hex(), "error": "signature does not verify"},
        {"label": "last signature byte flipped", "encoded": bytes(flipped).hex(),
         "error": "signature does not verify"},
        {"label": "author replaced (forged author)", "encoded": bytes(forged).hex(),
         "error": "signature does not verify"},
        {"label": "trailing byte", "encoded": (e0.encoded + b"\x00").hex(),
         "error": "not valid msgpack"},
        {"label": "body map keys out of order", "encoded": (
            b"\x99" + unsorted_body[1:] + b"\xc4\x40"
            + ALICE.sign(SIGN_DOMAIN + unsorted_body)).hex(),
         "error": "not in canonical form"},
    ]  # fmt: skip

    doc = {
        "description": "hanabi-p2p log v1 known-answer vectors (protocol/SPEC.md section 3.9). "
        "Keys are RFC 8032 7.1 test keys 1 (alice) and 2 (bob). Hex strings are bytes; "
        "'body' is the decoded body as JSON (these bodies hold no bin values). The "
        "table.open and lobby.join bodies are valid section 5.1 bodies; the chat body "
        "exercises the canonical encoding only and is not a valid section 5.1 chat body.",
        "sign_domain": SIGN_DOMAIN.decode(),
        "hash_domain": "hanabi-p2p/v1/entry-hash",
        "digest_domain": "hanabi-p2p/v1/log-digest",
        "fingerprint_domain": "hanabi-p2p/v1/fingerprint",
        "identities": {
            name: {
                "seed": seed,
                "peer_id": Identity.from_seed(bytes.fromhex(seed)).peer_id.hex(),
                "fingerprint": fingerprint(Identity.from_seed(bytes.fromhex(seed)).peer_id),
            }
            for name, seed in SEEDS.items()
        },
        "table_id": TABLE.hex(),
        "entries": [describe(name, e) for name, e in entries],
        "digest": digest(e for _, e in entries),
        "invalid": invalid,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
