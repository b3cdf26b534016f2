"""Build the deck protocol's known-answer vectors (protocol/vectors/deck/*.json).

Run `.venv/bin/python tests/deck/make_deck_vectors.py` to rewrite the files after a
deliberate, versioned protocol change; test_deck_vectors.py checks the code against them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import msgpack

from hanabi_p2p.deck.audit import audit
from hanabi_p2p.deck.channel import pair_key
from hanabi_p2p.deck.derive import PeerSecrets, card_label, card_points, frame
from hanabi_p2p.deck.group import EDWARDS25519, RISTRETTO255, DeckGroup
from hanabi_p2p.deck.messages import Lock, Shuffle
from hanabi_p2p.deck.table import DeckTable, seat_identity
from hanabi_p2p.rules.cards import GameConfig, Variant

VECTOR_DIR = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "deck"

SCENARIOS: dict[str, tuple[int, Variant, DeckGroup]] = {
    "deck-3p-standard.json": (3, Variant.STANDARD, RISTRETTO255),
    "deck-2p-multicolor-short.json": (2, Variant.MULTICOLOR_SHORT, RISTRETTO255),
    # the group of 0.2.0 tables, which the verifier of old logs still runs
    "deck-3p-standard-edwards25519.json": (3, Variant.STANDARD, EDWARDS25519),
}
GROUPS = {g.name: g for g in (RISTRETTO255, EDWARDS25519)}


def build(players: int, variant: Variant, group: DeckGroup) -> dict[str, Any]:
    config = GameConfig(players, variant)
    label = f"vectors-{players}-{variant.value}"
    table = DeckTable(config, label, group=group)
    seeds = [seat_identity(label, seat)[1] for seat in range(players)]
    secrets = [PeerSecrets(table.table_id, table.peer_ids[seat], seeds[seat], group)
               for seat in range(players)]
    table.setup()
    table.initial_deal()
    public = [0, config.hand_size + 1]
    for position in public:
        table.reveal_all(position)
    table.reveal_seeds()
    result = audit(config, table.table_id, table.peer_ids, table.sent, group=group)
    assert result.ok

    pubs = {seat: s.x25519_public for seat, s in enumerate(secrets)}
    peer_ids = dict(enumerate(table.peer_ids))
    return {
        "description": (
            f"hanabi-p2p deck protocol known answers, deck group {group.name} (SPEC 1 "
            "'Group'). Scenario: every seat starts; setup "
            "runs in seat order; the initial deal reveals positions 0..H-1 to all but seat 0, "
            "the next H to all but seat 1, and so on (for each position every seat in seat "
            "order sends its part: the owner deck.owner-key, the others deck.shared-keys); "
            "then "
            f"positions {public} are revealed to all (deck.public-key from every seat in seat "
            "order); then every seat reveals its seed. 'messages' lists every message in "
            "the order it was published, as hex of msgpack(to_wire())."),
        "group": group.name,
        "players": players,
        "variant": variant.value,
        "table_id": table.table_id.hex(),
        "peer_ids": [p.hex() for p in table.peer_ids],
        "seeds": [s.hex() for s in seeds],
        "frame_example": {"label": "hanabi-p2p/v1/example", "parts": ["ab", 7],
                          "bytes": frame("hanabi-p2p/v1/example", b"ab", 7).hex()},
        "card_points": [
            {"label": card_label(card.suit.value, card.rank, copy), "point": point.hex()}
            for (card, copy), point in zip(config.deck_composition(), card_points(config, group),
                                           strict=True)],
        "seats": [{
            "prk": s.prk.hex(),
            "shuffle_scalar": s.shuffle_scalar.hex(),
            "shuffle_point": s.shuffle_point.hex(),
            "permutation": s.permutation(config.deck_size),
            "lock_scalars": [s.lock_scalar(i).hex() for i in range(config.deck_size)],
            "x25519_public": s.x25519_public.hex(),
            "commitment": s.commitment.hex(),
            "lock_nonce_0": s.nonce("lock", 0, _lock_statement(table, seat, 0)).hex(),
        } for seat, s in enumerate(secrets)],
        "pair_keys": {
            f"{a}-{b}": pair_key(table.table_id, secrets[a].x25519_private, my_seat=a,
                                        other_seat=b, peer_ids=peer_ids,
                                        x25519_pubs=pubs).hex()
            for a in range(players) for b in range(a + 1, players)},
        "messages": [{"seat": seat, "kind": message.KIND,
                      "msgpack": msgpack.packb(message.to_wire()).hex()}
                     for seat, message in table.sent],
        "locked_deck": [p.hex() for p in table.peers[0].locked_deck],
        "audit": {"ok": result.ok, "faces": [str(result.faces[i])
                                             for i in range(config.deck_size)]},
    }


def _lock_statement(table: DeckTable, seat: int, position: int) -> list[bytes]:
    """The statement (S, K, X, Y) of `seat`'s lock proof for `position`."""
    shuffles = [m for _, m in table.sent if isinstance(m, Shuffle)]
    locks = [m for _, m in table.sent if isinstance(m, Lock)]
    inputs = shuffles[-1].points if seat == 0 else locks[seat - 1].points
    return [shuffles[seat].shuffle_point, locks[seat].keys[position], inputs[position],
            locks[seat].points[position]]


def main() -> int:
    VECTOR_DIR.mkdir(parents=True, exist_ok=True)
    for name, (players, variant, group) in SCENARIOS.items():
        path = VECTOR_DIR / name
        path.write_text(json.dumps(build(players, variant, group), indent=1) + "\n")
        print(f"wrote {path} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
