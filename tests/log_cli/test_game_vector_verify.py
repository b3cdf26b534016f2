"""`log verify` against the whole-game known-answer vector (protocol/vectors/game/): the
verifier, knowing no secret, must find the vector's faces, final state, score and digest."""

from __future__ import annotations

import json
from pathlib import Path

from game_files import write_log

from hanabi_p2p.log.entry import decode_entry
from hanabi_p2p.rules.cards import Card, Suit
from hanabi_p2p.session.verify import verify_game

VECTOR = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "game" / (
    "game-2p-standard.json")


def load_vector() -> dict:  # type: ignore[type-arg]
    return json.loads(VECTOR.read_text())


def test_the_verifier_reaches_the_vectors_final_state() -> None:
    vector = load_vector()
    entries = [decode_entry(bytes.fromhex(e["bytes"])) for e in vector["entries"]]
    report = verify_game(reversed(entries))  # the order must not matter
    assert report.ok, report.headline()
    assert report.digest == vector["log_digest"]
    assert report.state is not None
    assert report.state.public_hash().hex() == vector["final"]["public_hash"]
    assert report.state.score == vector["final"]["score"]
    assert report.faces == {p: Card(Suit(s), r) for p, (s, r) in enumerate(vector["faces"])}


def test_log_verify_prints_the_vectors_digest(tmp_path: Path, run_cli) -> None:
    vector = load_vector()
    entries = [decode_entry(bytes.fromhex(e["bytes"])) for e in vector["entries"]]
    path = write_log(tmp_path / "vector.hlog", entries, table_id=bytes.fromhex(vector["table_id"]))
    result = run_cli("log", "verify", str(path))
    assert result.code == 0
    final = vector["final"]
    assert result.lines[0] == f"valid: 2 players, standard, score {final['score']} (excellent)"
    assert result.lines[-1] == f"digest: {vector['log_digest']}"
