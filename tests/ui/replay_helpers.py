"""A signed game log to replay: the protocol's whole-game vector (protocol/vectors/game),
stored as a game of a data directory, honest or with a forged seed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hanabi_p2p.identity import Identity
from hanabi_p2p.log.entry import Entry, decode_entry, make_entry
from hanabi_p2p.log.storage import GameFile

REPO = Path(__file__).resolve().parents[2]
VECTOR = REPO / "protocol" / "vectors" / "game" / "game-2p-standard.json"
CREATED = 1_700_000_000


def vector() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(VECTOR.read_text())
    return loaded


def store(root: Path, entries: list[Entry], table_id: bytes) -> Path:
    path = root / "games" / f"{table_id.hex()}.hlog"
    path.parent.mkdir(parents=True, exist_ok=True)
    with GameFile.create(path, table_id, created=CREATED, name="vector") as game:
        for entry in entries:
            game.append(entry)
    return path


def vector_log(root: Path, forge_seed: bool = False) -> Path:
    """The protocol's whole-game vector as a game of the data directory at `root`; with
    `forge_seed`, seat 1 re-signs its last entry with a seed that is not the one it
    committed to (it has its key: the signature is valid, the audit is what fails)."""
    data = vector()
    entries = [decode_entry(bytes.fromhex(e["bytes"])) for e in data["entries"]]
    if forge_seed:
        seed = next(e for e in entries if e.kind == "seed" and e.author ==
                    bytes.fromhex(data["seats"][1]["peer_id"]))
        cheat = Identity.from_seed(bytes.fromhex(data["seats"][1]["identity_seed"]))
        forged = make_entry(cheat, table_id=seed.table_id, seq=seed.seq, prev=seed.prev,
                            turn=seed.turn, kind=seed.kind,
                            body={"deck": [["deck.seed", b"\x07" * 32]]})
        entries = [forged if e is seed else e for e in entries]
    return store(root, entries, bytes.fromhex(data["table_id"]))
