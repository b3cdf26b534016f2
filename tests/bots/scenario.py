"""Scenarios for the convention tests: a stacked deal, scripted turns, then what the
convention player of one seat does, through that seat's blind replica.

``Scenario(players, hands)`` starts at the deal. ``Scenario.position(...)`` starts from a
position later in a game (fireworks built, cards discarded, clue tokens spent, another player
to move), reached by a real game: a prelude of clues, then of plays and discards of cards that
leave the hands before the position's own cards are drawn, so every player follows the
position as it would in play. Seats are the scenario's (Alice 0, Bob 1, ...); the prelude may
seat them round the engine's table from another place so that the right player moves first.
"""

from __future__ import annotations

from collections import Counter
from itertools import product

from blind_table import BlindTable

from hanabi_p2p.bots.hgroup import Advice, HGroupPlayer
from hanabi_p2p.rules.actions import Clue, Discard, Play, TurnAction
from hanabi_p2p.rules.cards import MAX_CLUE_TOKENS, Card, GameConfig, Suit
from hanabi_p2p.rules.engine import GameState

NAMES = ("Alice", "Bob", "Cathy", "Donald", "Emily")
LETTERS = {suit.letter: suit for suit in Suit}
COLOURS = {suit.value: suit for suit in Suit}


class _NoPreludeClue(Exception):
    """No clue of the prelude can avoid the position's cards."""


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
    return _complete(config, top)


def _complete(config: GameConfig, top: list[Card]) -> list[Card]:
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
        self.shift = 0  # engine seat = (scenario seat + shift) % players

    @classmethod
    def position(cls, players: int, hands: list[str], *, stacks: str = "",
                 discarded: str = "", tokens: int = MAX_CLUE_TOKENS, start: int = 0,
                 draws: str = "") -> Scenario:
        """The position where seat ``s`` holds ``hands[s]`` (slot 1 first), the fireworks
        stand at ``stacks`` (e.g. "R1 G3": red at 1, green at 3), ``discarded`` are in the
        discard pile, ``tokens`` clue tokens are left and seat ``start`` is to move; the
        cards drawn next are ``draws``. Its cards carry no clue yet."""
        config = GameConfig(players)
        plays = [Card(LETTERS[t[0]], rank) for t in stacks.split()
                 for rank in range(1, int(t[1]) + 1)]
        gone = [card(n) for n in discarded.split()]
        # With few cards to play or discard, the prelude's clues would have to touch the
        # position's cards: then it also discards a few cards that matter least (copies of
        # played cards, else 1s), which the clues touch instead.
        used = Counter(plays + gone + [card(n) for h in hands for n in h.split()]
                       + [card(n) for n in draws.split()])
        spare = Counter(config.deck_faces())
        spare.subtract(used)
        top_of = Counter({face.suit: face.rank for face in plays})
        copy_no: Counter[Card] = Counter()
        keyed = []
        for f in spare.elements():  # (one of each suit before a second of any)
            copy_no[f] += 1
            keyed.append(((f.rank > top_of[f.suit], f.rank, copy_no[f]), f))
        order = [f for _, f in sorted(keyed, key=lambda kf: kf[0])]
        for extra in range(0, 9):
            try:
                return cls._build(config, hands, plays, gone + order[:extra], tokens, start,
                                  draws)
            except _NoPreludeClue:
                continue
        raise AssertionError("no prelude reaches this position: change the hands")

    @classmethod
    def _build(cls, config: GameConfig, hands: list[str], plays: list[Card],
               gone: list[Card], tokens: int, start: int, draws: str) -> Scenario:
        players = config.players
        size = config.hand_size
        gains = len(gone) + sum(c.rank == 5 for c in plays)
        clues = MAX_CLUE_TOKENS - tokens + gains
        # the prelude, turn by turn: a clue while one is due and a token is left, else a
        # play or discard (a discard first while clues wait for its token)
        schedule: list[tuple[Card, bool] | None] = []  # (card, played) or None: a clue
        to_play, to_discard = list(plays), list(gone)
        left = MAX_CLUE_TOKENS
        while clues or to_play or to_discard:
            if clues and left:
                schedule.append(None)
                clues -= 1
                left -= 1
                continue
            if to_discard and (clues or not to_play) and left < MAX_CLUE_TOKENS:
                schedule.append((to_discard.pop(0), False))
                left += 1
            elif to_play:
                face = to_play.pop(0)
                schedule.append((face, True))
                left = min(left + (face.rank == 5), MAX_CLUE_TOKENS)
            else:
                raise _NoPreludeClue  # more tokens than the position can have
        shift = (len(schedule) - start) % players
        # each engine seat's cards in the order they leave or stay: the ones it plays or
        # discards in the prelude (always its oldest card), then its position hand oldest first
        leave: list[list[Card]] = [[] for _ in range(players)]
        for t, step in enumerate(schedule):
            if step is not None:
                leave[t % players].append(step[0])
        stream = [leave[e] + [card(n) for n in reversed(hands[(e - shift) % players].split())]
                  for e in range(players)]
        assert all(len(s) - len(leave[e]) == size for e, s in enumerate(stream)), hands
        top = [face for s in stream for face in s[:size]]
        drawn = [0] * players
        for t, step in enumerate(schedule):
            if step is not None:
                e = t % players
                top.append(stream[e][size + drawn[e]])
                drawn[e] += 1
        top.extend(card(n) for n in draws.split())
        self = cls.__new__(cls)
        self.config = config
        self.table = BlindTable(config, _complete(config, top))
        self.shift = 0
        going = [len(cards) for cards in leave]  # per engine seat, prelude cards still held
        for t, step in enumerate(schedule):
            e = t % players
            if step is None:
                self.table.apply(self._prelude_clue(e, going))
                continue
            oldest = self.state.hands[e][-1]
            assert self.state.faces[oldest] == step[0]
            self.table.apply(Play(e, oldest) if step[1] else Discard(e, oldest))
            going[e] -= 1
        self.shift = shift
        assert self.state.current_seat == self._engine(start)
        assert self.state.clue_tokens == tokens
        assert self.state.strikes == 0
        return self

    def _prelude_clue(self, giver: int, going: list[int]) -> Clue:
        """A clue from engine seat ``giver`` that touches only cards its receiver gives up
        in the prelude (``going``: how many of its oldest cards it still will), so that the
        position's cards carry no clue."""
        players = self.config.players
        for k in range(1, players):
            target = (giver + k) % players
            hand = self.state.hands[target]
            faces = [self.state.faces[c] for c in reversed(hand)]  # oldest first
            for colour, rank in product([*self.config.suits, None], [None, 1, 2, 3, 4, 5]):
                if (colour is None) == (rank is None):
                    continue
                hits = [i for i, f in enumerate(faces)
                        if f is not None and (f.suit is colour or f.rank == rank)]
                if hits and max(hits) < going[target]:
                    return Clue(giver, target, colour, rank)
        raise _NoPreludeClue

    def _engine(self, seat: int) -> int:
        return (seat + self.shift) % self.config.players

    @property
    def state(self) -> GameState:
        return self.table.full

    def slot(self, seat: int, slot: int) -> int:
        """The card id in ``slot`` (1 = newest) of ``seat``."""
        return self.state.hands[self._engine(seat)][slot - 1]

    def face(self, seat: int, slot: int) -> str:
        return str(self.state.faces[self.slot(seat, slot)])

    def clue(self, giver: int, target: int, what: str) -> None:
        colour = COLOURS.get(what)
        rank = None if colour else int(what)
        self.table.apply(Clue(self._engine(giver), self._engine(target), colour, rank))

    def play(self, seat: int, slot: int) -> None:
        self.table.apply(Play(self._engine(seat), self.slot(seat, slot)))

    def discard(self, seat: int, slot: int) -> None:
        self.table.apply(Discard(self._engine(seat), self.slot(seat, slot)))

    def names(self) -> tuple[str, ...]:
        """The players' names by engine seat."""
        n = self.config.players
        return tuple(NAMES[(e - self.shift) % n] for e in range(n))

    def seat_of(self, engine_seat: int) -> int:
        """The scenario seat of an engine seat (as an action names it)."""
        return (engine_seat - self.shift) % self.config.players

    def advice(self, seat: int | None = None, level: int | None = None) -> Advice:
        """What the convention player in ``seat`` (default: the one to move) does now, at
        H-group ``level`` (default: with every convention it knows)."""
        e = self.state.current_seat if seat is None else self._engine(seat)
        return HGroupPlayer(self.config, e, level).advise(self.table.views[e], self.names())

    def take(self, action: TurnAction) -> None:
        self.table.apply(action)

    def player(self, level: int | None = None) -> HGroupPlayer:
        """The convention player of the seat to move (at H-group ``level``; default: with
        every convention it knows), caught up with the game."""
        mover = self.state.current_seat
        player = HGroupPlayer(self.config, mover, level)
        player.sync(self.table.views[mover])
        return player

    def chop(self, seat: int, level: int | None = None) -> int | None:
        """The slot of ``seat``'s chop, as everyone sees it (at H-group ``level``)."""
        hand = self.state.hands[self._engine(seat)]
        chop = self.player(level).chop(self._engine(seat))
        return None if chop is None else hand.index(chop) + 1

    def known(self, seat: int, slot: int, level: int | None = None) -> set[str]:
        """What everyone knows the card in ``slot`` of ``seat`` is (clues and conventions),
        as the player of the seat to move reads it (at H-group ``level``)."""
        player = self.player(level)
        mask = player.public(self.slot(seat, slot))
        return {str(face) for i, face in enumerate(player.table.cards) if mask >> i & 1}
