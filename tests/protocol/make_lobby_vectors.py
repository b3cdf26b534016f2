"""Build the lobby known-answer vector (protocol/vectors/lobby/lobby-v1.json).

What it pins (SPEC §4.7): the body of the host's `lobby.out` message, encoded, with the peer
ids it decodes to, and bodies a receiver must refuse (each breaking one rule it names).

Run `.venv/bin/python tests/protocol/make_lobby_vectors.py` to rewrite the file (only with a
deliberate, versioned protocol change); tests/protocol/test_lobby_vectors.py checks the code
against it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgpack

from hanabi_p2p.limits import MAX_LOBBY_OUT
from hanabi_p2p.peer import lobbywire as lw

VECTOR = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "lobby" / "lobby-v1.json"


def build() -> dict[str, Any]:
    bob, eve = bytes(range(32)), bytes(range(32, 64))
    valid = [
        {"peer_ids": [], "body": lw.encode_out([]).hex()},
        {"peer_ids": [bob.hex(), eve.hex()], "body": lw.encode_out([eve, bob]).hex()},
    ]
    many = [i.to_bytes(32, "big") for i in range(MAX_LOBBY_OUT + 1)]
    invalid = [
        {"body": msgpack.packb([eve, bob]).hex(), "why": "peer ids sorted"},
        {"body": msgpack.packb([bob, bob]).hex(), "why": "each peer id once"},
        {"body": msgpack.packb([bob[:31]]).hex(), "why": "a peer id is 32 bytes"},
        {"body": msgpack.packb([bob.hex()]).hex(), "why": "a peer id is bin, not text"},
        {"body": msgpack.packb(bob).hex(), "why": "an array"},
        {"body": msgpack.packb(many).hex(), "why": f"at most MAX_LOBBY_OUT ({MAX_LOBBY_OUT})"},
        {"body": (msgpack.packb([bob]) + b"\x00").hex(),
         "why": "one msgpack value, nothing after it"},
    ]
    return {
        "about": "The host's lobby.out message body (SPEC 4.7): the joiners it will not seat, "
                 "sorted peer ids. Built by tests/protocol/make_lobby_vectors.py.",
        "topic": lw.OUT_TOPIC,
        "valid": valid,
        "invalid": invalid,
    }


if __name__ == "__main__":
    VECTOR.write_text(json.dumps(build(), indent=1, ensure_ascii=False) + "\n")
