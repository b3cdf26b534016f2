"""What a game can wait for a player to do (`TableSession.waiting_for`).

A StrEnum: its members are the words the peer puts in an "unreachable" reason ("waited 120 s
for Bob (its key share)"), and they compare equal to those words.
"""

from __future__ import annotations

from enum import StrEnum


class WaitKind(StrEnum):
    DECK_SHUFFLE = "deck shuffle"  # a step of the deck's shuffle and lock
    KEY_SHARE = "key share"  # the key a card needs to be seen
    TURN = "turn"  # the player to move
    SEED = "seed"  # the deck seed each player reveals once the game is over
