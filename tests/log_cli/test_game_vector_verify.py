"""`log verify` against the whole-game known-answer vectors (protocol/vectors/game/): the
verifier, knowing no secret, must find the vector's faces, final state, score and digest, for
the current vector (ristretto255 deck) and for the same game as 0.2.0 wrote it
(edwards25519 deck)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from game_files import write_log

from hanabi_p2p.log.entry import decode_entry
from hanabi_p2p.rules.cards import Card, Suit
from hanabi_p2p.session.verify import verify_game

# whole signed games verified, shown or listed: too slow for the fast tier
pytestmark = pytest.mark.slow

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "game"
# vector file -> the deck group `log verify` must name
GROUPS = {"game-2p-standard.json": "ristretto255",
          "game-2p-standard-edwards25519.json": "edwards25519"}


def load_vector(name: str = "game-2p-standard.json") -> dict:  # type: ignore[type-arg]
    return json.loads((VECTORS / name).read_text())


@pytest.mark.parametrize("name", sorted(GROUPS))
def test_the_verifier_reaches_the_vectors_final_state(name: str) -> None:
    vector = load_vector(name)
    entries = [decode_entry(bytes.fromhex(e["bytes"])) for e in vector["entries"]]
    report = verify_game(reversed(entries))  # the order must not matter
    assert report.ok, report.headline()
    assert report.deck_group == GROUPS[name]
    assert report.digest == vector["log_digest"]
    assert report.state is not None
    assert report.state.public_hash().hex() == vector["final"]["public_hash"]
    assert report.state.score == vector["final"]["score"]
    assert report.faces == {p: Card(Suit(s), r) for p, (s, r) in enumerate(vector["faces"])}


@pytest.mark.parametrize("name", sorted(GROUPS))
def test_log_verify_prints_the_vectors_digest(tmp_path: Path, run_cli, name: str) -> None:
    vector = load_vector(name)
    entries = [decode_entry(bytes.fromhex(e["bytes"])) for e in vector["entries"]]
    path = write_log(tmp_path / "vector.hlog", entries, table_id=bytes.fromhex(vector["table_id"]))
    result = run_cli("log", "verify", str(path))
    assert result.code == 0
    final = vector["final"]
    assert result.lines[0] == f"valid: 2 players, standard, score {final['score']} (excellent)"
    assert result.lines[-1] == f"digest: {vector['log_digest']}"
    assert f"deck group: {GROUPS[name]}" in result.lines
