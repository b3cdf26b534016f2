"""Scenarios for the convention tests: a stacked deal, scripted turns, then what the
convention player of one seat does, through that seat's blind replica."""

from __future__ import annotations

from collections import Counter

from blind_table import BlindTable

from hanabi_p2p.bots.hgroup import Advice, HGroupPlayer
from hanabi_p2p.rules.actions import Clue, Discard, Play, TurnAction
from hanabi_p2p.rules.cards import Card, GameConfig, Suit
from hanabi_p2p.rules.engine import GameState

NAMES = ("Alice", "Bob", "Cathy", "Donald", "Emily")
LETTERS = {suit.letter: suit for suit in Suit}
COLOURS = {suit.value: suit for suit in Suit}


def card(name: str) -> Card:
    return Card(LETTERS[name[0]], int(name[1]))


def deal(config: GameConfig, hands: list[str], draws: str = "") -> list[Card]:
    """A deck whose deal gives seat ``s`` the hand ``hands[s]``, written as the table shows
    it: slot 1 (newest) first, e.g. "R1 Y2 G3 B4 W5". The next cards drawn are ``draws``;
    the rest of the deck follows in canonical order."""
    size = config.hand_size
    top: list[Card] = []
    for hand in hands:
        faces = [card(n) for n in hand.split()]
        assert len(faces) == size, hand
        top.extend(reversed(faces))  # each dealt card goes to slot 1
    top.extend(card(n) for n in draws.split())
    rest = Counter(config.deck_faces())
    rest.subtract(top)
    assert all(n >= 0 for n in rest.values()), "more copies than the deck has"
    tail = []
    for face in config.deck_faces():
        if rest[face] > 0:
            rest[face] -= 1
            tail.append(face)
    return top + tail


class Scenario:
    def __init__(self, players: int, hands: list[str], draws: str = "") -> None:
        self.config = GameConfig(players)
        self.table = BlindTable(self.config, deal(self.config, hands, draws))

    @property
    def state(self) -> GameState:
        return self.table.full

    def slot(self, seat: int, slot: int) -> int:
        """The card id in ``slot`` (1 = newest) of ``seat``."""
        return self.state.hands[seat][slot - 1]

    def face(self, seat: int, slot: int) -> str:
        return str(self.state.faces[self.slot(seat, slot)])

    def clue(self, giver: int, target: int, what: str) -> None:
        colour = COLOURS.get(what)
        rank = None if colour else int(what)
        self.table.apply(Clue(giver, target, colour, rank))

    def play(self, seat: int, slot: int) -> None:
        self.table.apply(Play(seat, self.slot(seat, slot)))

    def discard(self, seat: int, slot: int) -> None:
        self.table.apply(Discard(seat, self.slot(seat, slot)))

    def advice(self, seat: int | None = None) -> Advice:
        """What the convention player in ``seat`` (default: the one to move) does now."""
        seat = self.state.current_seat if seat is None else seat
        return HGroupPlayer(self.config, seat).advise(self.table.views[seat], NAMES)

    def take(self, action: TurnAction) -> None:
        self.table.apply(action)

    def player(self) -> HGroupPlayer:
        """The convention player of the seat to move, caught up with the game."""
        mover = self.state.current_seat
        player = HGroupPlayer(self.config, mover)
        player.sync(self.table.views[mover])
        return player

    def chop(self, seat: int) -> int | None:
        """The slot of ``seat``'s chop, as everyone sees it."""
        chop = self.player().chop(seat)
        return None if chop is None else self.state.hands[seat].index(chop) + 1

    def known(self, seat: int, slot: int) -> set[str]:
        """What everyone knows the card in ``slot`` of ``seat`` is (clues and conventions),
        as the player of the seat to move reads it."""
        player = self.player()
        mask = player.public(self.slot(seat, slot))
        return {str(face) for i, face in enumerate(player.table.cards) if mask >> i & 1}
