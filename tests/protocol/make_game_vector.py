"""Build the whole-game known-answer vector (protocol/vectors/game/game-2p-standard.json).

Its deck runs in ristretto255 (protocol 3). game-2p-standard-edwards25519.json beside it is
the same vector as 0.2.0 wrote it (edwards25519, no `group` in table.open): this program
cannot make such a game any more, but must still verify and replay it (test_game_vector.py).

Two peers of the in-memory harness (tests/session/session_harness.py) play one complete
standard game: fixed identities, fixed deck seeds, every entry delivered to the other peer in
the order it was signed (FIFO) with each peer answering at once, and the simple bot's choices.
The vector records the inputs (seeds, the actions taken) and everything the protocol
produces from them: every entry's bytes in the order seat 0 applied them, the public state
hash at the start of every turn, the final public state encoding (SPEC 5.5), the log digest
and every position's face as the deck audit decoded it.

The actions are an input of the vector: ``build(actions)`` replays them, so the vector does
not change when the bot's strategy does. Run `.venv/bin/python tests/protocol/make_game_vector.py`
to let the bot choose again and rewrite the file, only after a deliberate, versioned protocol
change; test_game_vector.py checks the code against it.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

SESSION_TESTS = Path(__file__).resolve().parents[1] / "session"
if str(SESSION_TESTS) not in sys.path:  # the harness lives beside the session tests
    sys.path.insert(0, str(SESSION_TESTS))

from session_harness import TABLE_ID, Table  # noqa: E402

from hanabi_p2p.bots.simple import choose_action  # noqa: E402
from hanabi_p2p.identity import Identity, fingerprint  # noqa: E402
from hanabi_p2p.log import canonical  # noqa: E402
from hanabi_p2p.log.entry import Entry  # noqa: E402
from hanabi_p2p.log.replica import Replica  # noqa: E402
from hanabi_p2p.log.verify import digest  # noqa: E402
from hanabi_p2p.rules.actions import TurnAction  # noqa: E402
from hanabi_p2p.rules.cards import GameConfig, Variant  # noqa: E402
from hanabi_p2p.rules.engine import PUBLIC_HASH_VERSION, GameState  # noqa: E402
from hanabi_p2p.session.bodies import action_from_wire  # noqa: E402
from hanabi_p2p.session.table import AUDITED, TableSession  # noqa: E402

VECTOR_PATH = (
    Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "game" / "game-2p-standard.json"
)
# A 0.2.0 game (protocol 2): kept as written then, never rebuilt.
LEGACY_VECTOR_PATH = VECTOR_PATH.with_name("game-2p-standard-edwards25519.json")
CONFIG = GameConfig(2, Variant.STANDARD)


def identity_seed(seat: int) -> bytes:
    """The Ed25519 private key seed of a seat (the harness's choice, checked in build)."""
    return bytes([seat + 1]) * 32


def deck_seed(seat: int) -> bytes:
    return bytes([0xD0 + seat]) * 32


def public_state(state: GameState) -> list[Any]:
    """The public state array of SPEC 5.5, written from the text (not from the engine)."""
    config = state.config
    public_cards = sorted(state.played + state.discard_pile)
    faces = state.faces
    clued = []
    for card, records in enumerate(state.clues):
        if records:
            clued.append([card, [
                [r.turn, r.giver, r.colour.value if r.colour else None, r.rank, r.touched]
                for r in records
            ]])
    public_faces = []
    for card in public_cards:
        face = faces[card]
        assert face is not None, f"played or discarded card {card} has no face"
        public_faces.append([card, face.suit.value, face.rank])
    return [
        PUBLIC_HASH_VERSION,
        [config.players, config.variant.value, config.all_or_nothing, config.choreography,
         config.empty_clues],
        [sorted(hand) for hand in state.hands],
        [state.fireworks[suit] for suit in config.suits],
        list(state.discard_pile),
        list(state.played),
        public_faces,
        state.clue_tokens,
        state.strikes,
        state.draw_index,
        state.turn,
        state.current_seat,
        state.final_round_turns_left,
        state.end.value,
        clued,
    ]


def encode_public_state(state: GameState) -> bytes:
    return canonical.pack(public_state(state), "public state")


def _new_table() -> Table:
    """The harness's two peers, given this vector's deck seeds and FIFO delivery."""
    table = Table(CONFIG, shuffle=False)
    host_id = table.peers[0].identity.peer_id
    for seat, peer in enumerate(table.peers):
        if peer.identity.peer_id != Identity.from_seed(identity_seed(seat)).peer_id:
            raise RuntimeError("the harness no longer uses the identities this vector names")
        peer.session = TableSession(peer.identity, TABLE_ID, seed=deck_seed(seat),
                                    host_id=host_id)
        peer.replica = Replica(TABLE_ID, peer.session)
    return table


def _scripted(actions: Sequence[Sequence[Any]]) -> Iterator[tuple[int, int, Any]]:
    for turn, seat, act in actions:
        yield int(turn), int(seat), act


def play_game(actions: Sequence[Sequence[Any]] | None = None) -> Table:
    """Seat both peers and play the game: the given [turn, seat, act] actions, or the bot's."""
    table = _new_table()
    script = _scripted(actions) if actions is not None else None

    def choose(session: TableSession) -> TurnAction:
        state, seat = session.state, session.my_seat
        assert state is not None and seat is not None
        if script is None:
            return choose_action(state, seat)
        turn, actor, act = next(script)
        if (turn, actor) != (state.turn, seat):
            raise RuntimeError(f"script has seat {actor} at turn {turn}; the game is at "
                               f"turn {state.turn}, seat {seat} to move")
        return action_from_wire(act, seat)

    table.seat_everyone()
    table.play(choose)
    table.pump()
    for peer in table.peers:
        if peer.rejected or peer.session.phase != AUDITED or not peer.session.audit:
            raise RuntimeError(f"the game did not finish cleanly: {peer.rejected}, "
                               f"{peer.session.phase}")
    if len({p.session.state.public_hash() for p in table.peers if p.session.state}) != 1:
        raise RuntimeError("the peers disagree on the final state")
    return table


def entry_record(entry: Entry, seats: list[bytes]) -> dict[str, Any]:
    return {
        "seat": seats.index(entry.author),
        "seq": entry.seq,
        "turn": entry.turn,
        "kind": entry.kind,
        "hash": entry.hash.hex(),
        "bytes": entry.encoded.hex(),
    }


def build(actions: Sequence[Sequence[Any]] | None = None) -> dict[str, Any]:
    table = play_game(actions)
    first = table.peers[0]
    session = first.session
    state, audit = session.state, session.audit
    assert state is not None and audit is not None and audit.ok
    seats = [p.identity.peer_id for p in table.peers]
    applied = list(first.replica.applied)
    encoded_state = encode_public_state(state)
    if hashlib.sha256(encoded_state).digest() != state.public_hash():
        raise RuntimeError("SPEC 5.5's public state encoding no longer matches the engine")
    return {
        "description": (
            "hanabi-p2p v1 whole-game known-answer vector (protocol/SPEC.md 5 and 6.4): a "
            "2-player standard game among reference peers, deck group ristretto255 "
            "(protocol 3). Entries are in the order seat 0 "
            "applied them; 'actions' are [turn, seat, act] as in the action bodies. Rebuild "
            "only with tests/protocol/make_game_vector.py."
        ),
        "config": {"players": CONFIG.players, "variant": CONFIG.variant.value,
                   "options": list(CONFIG.options)},
        "table_id": TABLE_ID.hex(),
        "seats": [
            {
                "identity_seed": identity_seed(seat).hex(),
                "peer_id": peer_id.hex(),
                "fingerprint": fingerprint(peer_id),
                "deck_seed": deck_seed(seat).hex(),
            }
            for seat, peer_id in enumerate(seats)
        ],
        "actions": [
            [e.turn, seats.index(e.author), e.body["act"]]
            for e in applied if e.kind == "action"
        ],
        "entries": [entry_record(e, seats) for e in applied],
        "public_hashes": [session.my_hashes[turn].hex() for turn in range(state.turn + 1)],
        "final": {
            "turn": state.turn,
            "score": state.score,
            "end": state.end.value,
            "public_state": encoded_state.hex(),
            "public_hash": state.public_hash().hex(),
        },
        "log_digest": digest(applied),
        "faces": [[audit.faces[p].suit.value, audit.faces[p].rank]
                  for p in range(CONFIG.deck_size)],
    }


def load(path: Path = VECTOR_PATH) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def main() -> int:
    VECTOR_PATH.parent.mkdir(parents=True, exist_ok=True)
    VECTOR_PATH.write_text(json.dumps(build(), indent=1) + "\n")
    print(f"wrote {VECTOR_PATH} ({VECTOR_PATH.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
