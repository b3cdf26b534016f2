"""A full-knowledge game plus one blind replica per seat, fed as networked peers are: a seat
sees every other hand, learns a card's face when it is played or discarded, and receives each
clue with the touched set the giver declared."""

from __future__ import annotations

import random

from hanabi_p2p.bots.hgroup import HGroupPlayer
from hanabi_p2p.rules.actions import Action, Clue, Discard, Play
from hanabi_p2p.rules.cards import Card, GameConfig
from hanabi_p2p.rules.engine import GameState, Outcome


def shuffled(config: GameConfig, seed: int) -> list[Card]:
    faces = config.deck_faces()
    random.Random(seed).shuffle(faces)
    return faces


class BlindTable:
    def __init__(self, config: GameConfig, faces: list[Card]) -> None:
        self.full = GameState(config, faces)
        self.views = [GameState(config, [None] * len(faces)) for _ in range(config.players)]
        for seat, view in enumerate(self.views):
            for other, hand in enumerate(self.full.hands):
                if other != seat:
                    for c in hand:
                        view.reveal(c, self._face(c))

    def _face(self, c: int) -> Card:
        face = self.full.faces[c]
        assert face is not None
        return face

    def apply(self, action: Action) -> Outcome:
        if isinstance(action, Play | Discard):
            for view in self.views:
                view.reveal(action.card, self._face(action.card))
        outcome = self.full.apply(action)
        if isinstance(action, Clue):
            action = Clue(action.seat, action.target, action.colour, action.rank,
                          outcome.touched)
        for view in self.views:
            assert view.apply(action) == outcome
        if outcome.drew is not None:
            for seat, view in enumerate(self.views):
                if seat != action.seat:
                    view.reveal(outcome.drew, self._face(outcome.drew))
        return outcome


def convention_table(players: int, seed: int) -> tuple[BlindTable, list[HGroupPlayer]]:
    """A shuffled table of `players` and one convention player per seat, each seeing only
    its own seat's view."""
    config = GameConfig(players)
    table = BlindTable(config, shuffled(config, seed))
    return table, [HGroupPlayer(config, seat) for seat in range(players)]

