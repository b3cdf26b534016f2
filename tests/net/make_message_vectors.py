"""Build protocol/vectors/net/messages-v4.json: the byte-exact forms protocol 4 added to
the sync of SPEC §4.6, for fixed identities (a third party checks its encoder and its
checks against them):

* a `HAVE` frame payload with `heads` (§4.1);
* a signed `complete` body (§4.6), and the same body with its signer swapped, which every
  receiver must refuse (the signature no longer verifies).

    .venv/bin/python tests/net/make_message_vectors.py          # rewrite the file
    .venv/bin/python tests/net/make_message_vectors.py --check  # exit 1 if it differs
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from hanabi_p2p.identity import Identity
from hanabi_p2p.log import canonical
from hanabi_p2p.net.frames import Have, encode_payload
from hanabi_p2p.peer import completewire as cw

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "net" / "messages-v4.json"
TABLE_ID = bytes(range(16))
SEEDS = {"alice": b"\x01" * 32, "bob": b"\x02" * 32}


def build() -> dict[str, Any]:
    alice, bob = (Identity.from_seed(SEEDS[n]) for n in ("alice", "bob"))
    holds = {alice.peer_id: 41, bob.peer_id: 40}
    heads = {alice.peer_id: hashlib.sha256(b"alice 40").digest(),
             bob.peer_id: hashlib.sha256(b"bob 39").digest()}
    complete = cw.encode(alice, TABLE_ID, holds)
    table, _signer, items, signature = canonical.unpack(complete)
    forged = canonical.pack([table, bob.peer_id, items, signature])
    return {
        "about": "protocol/SPEC.md 4.1 (HAVE heads) and 4.6 (signed complete), protocol 4",
        "identities": {name: {"seed": seed.hex(), "peer_id": Identity.from_seed(seed)
                              .peer_id.hex()} for name, seed in SEEDS.items()},
        "table_id": TABLE_ID.hex(),
        "have": {
            "next_seq": {a.hex(): n for a, n in holds.items()},
            "heads": {a.hex(): h.hex() for a, h in heads.items()},
            "payload": encode_payload(Have(holds, heads)).hex(),
        },
        "complete": {
            "signer": "alice",
            "holds": {a.hex(): n for a, n in holds.items()},
            "signed_input": (cw.COMPLETE_LABEL + canonical.pack([table, alice.peer_id, items]))
            .hex(),
            "body": complete.hex(),
            "forged_signer_body": forged.hex(),
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true")
    text = json.dumps(build(), indent=2) + "\n"
    if parser.parse_args().check:
        return 0 if VECTORS.read_text() == text else 1
    VECTORS.write_text(text)
    print(f"wrote {VECTORS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
