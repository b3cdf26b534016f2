"""Regenerate tests/data/aon_softlock.json: a 2-player all_or_nothing game ending in softlock.

A softlock needs a player with an empty hand, no clue token and nothing else to do, which
random play rarely reaches. This script plays seeded games with a policy steering towards
it (seat 0 empties its hand after the deck runs out, seat 1 spends the clue tokens) and
keeps the first seed whose game softlocks after passing a turn where the empty-handed
player still had tokens (so the fixture also shows "empty hand: only clues").

    .venv/bin/python tests/data/make_aon_softlock.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from hanabi_p2p.hanablive import export_game
from hanabi_p2p.rules.actions import Clue, Discard, Play, TurnAction
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.rules.engine import End, GameState

OUT = Path(__file__).with_name("aon_softlock.json")


def _face(s: GameState, c: int) -> tuple[int, int]:
    face = s.faces[c]
    assert face is not None
    return s.fireworks[face.suit], face.rank


def _useless_or_spare(s: GameState, c: int) -> bool:
    top, rank = _face(s, c)
    if rank <= top:
        return True
    gone = sum(1 for d in s.discard_pile if s.faces[d] == s.faces[c])
    face = s.faces[c]
    assert face is not None
    return s.config.copies(face.suit)[rank] - gone > 1


def _policy(s: GameState, rng: random.Random) -> TurnAction:
    seat = s.current_seat
    hand = s.hands[seat]
    legal = s.legal_actions()
    clues = [a for a in legal if isinstance(a, Clue)]
    plays = [c for c in hand if _face(s, c)[0] == _face(s, c)[1] - 1]
    junk = [c for c in hand if _useless_or_spare(s, c)]
    if s.cards_left:
        if plays and (rng.random() < 0.6 or s.clue_tokens == 0):
            return Play(seat, rng.choice(plays))
        if clues and rng.random() < 0.8:
            return rng.choice(clues)
        if junk and s.clue_tokens < 8:
            return Discard(seat, rng.choice(junk))
        if plays:
            return Play(seat, rng.choice(plays))
        return clues[0] if clues else Discard(seat, hand[-1])
    if seat == 0:
        if plays:
            return Play(seat, plays[0])
        if junk and s.strikes < 2:
            return Play(seat, junk[0])
        if junk and s.clue_tokens < 8:
            return Discard(seat, junk[0])
        return clues[0] if clues else legal[0]
    if clues and s.hands[0]:
        return clues[0]
    if plays and s.fireworks_total < s.max_score - 1:
        return Play(seat, plays[0])
    if junk and s.strikes < 2:
        return Play(seat, junk[0])
    return clues[0] if clues else legal[0]


def main() -> None:
    config = GameConfig(2, all_or_nothing=True)
    for seed in range(1000):
        rng = random.Random(seed)
        faces = config.deck_faces()
        rng.shuffle(faces)
        state = GameState(config, faces)
        empty_with_tokens = False
        while not state.over:
            if not state.hands[state.current_seat] and state.clue_tokens:
                empty_with_tokens = True
            state.apply(_policy(state, rng))
        if state.end is End.SOFTLOCK and empty_with_tokens:
            game = export_game(config, ["Alice", "Bob"], faces, state.history)
            game["seed"] = seed
            OUT.write_text(json.dumps(game, indent=1) + "\n")
            print(f"seed {seed}: {len(state.history)} actions -> {OUT}")
            return
    raise SystemExit("no softlock found")


if __name__ == "__main__":
    main()
