"""Suits, cards, variants and the table configuration: the vocabulary of the game.

Pure data, no state. Every other module (engine, deck protocol, log, UI) names cards and
variants through these types so that a card means the same thing everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum, StrEnum

from hanabi_p2p.errors import UserError
from hanabi_p2p.limits import MAX_PLAYERS, MIN_PLAYERS


class Suit(str, Enum):
    """A suit; the value is the stable wire/label name."""

    RED = "red"
    YELLOW = "yellow"
    GREEN = "green"
    BLUE = "blue"
    WHITE = "white"
    MULTI = "multicolor"

    @property
    def letter(self) -> str:
        """One letter per suit, shown beside colour so colour-blind players can play."""
        return "M" if self is Suit.MULTI else self.value[0].upper()


BASE_SUITS: tuple[Suit, ...] = (Suit.RED, Suit.YELLOW, Suit.GREEN, Suit.BLUE, Suit.WHITE)
RANKS: tuple[int, ...] = (1, 2, 3, 4, 5)
# Copies of each rank in a full suit: three 1s, two 2s/3s/4s, one 5.
FULL_SUIT_COPIES: dict[int, int] = {1: 3, 2: 2, 3: 2, 4: 2, 5: 1}
SHORT_SUIT_COPIES: dict[int, int] = {1: 1, 2: 1, 3: 1, 4: 1, 5: 1}
MAX_CLUE_TOKENS = 8
MAX_STRIKES = 3


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """A card face. Two copies of red 1 are equal faces; identity is the deck position."""

    suit: Suit
    rank: int

    def __str__(self) -> str:
        return f"{self.suit.letter}{self.rank}"


class Variant(str, Enum):
    STANDARD = "standard"
    MULTICOLOR = "multicolor"
    MULTICOLOR_SHORT = "multicolor-short"
    RAINBOW = "rainbow"


# hanab.live's names for variants ours play under another name (the same rules: the sixth
# suit of one copy per number, named in clues like any other, is its "Black (6 Suits)").
# Typed only: a table, its log and its advert always name the variant itself.
VARIANT_ALIASES: dict[str, Variant] = {"black": Variant.MULTICOLOR_SHORT}
VARIANT_CHOICES: tuple[str, ...] = (*(v.value for v in Variant), *VARIANT_ALIASES)


def variant_named(name: str) -> Variant:
    """The variant a typed name means (its own name, or hanab.live's); ValueError if none."""
    return VARIANT_ALIASES[name] if name in VARIANT_ALIASES else Variant(name)


OPTION_NAMES: tuple[str, ...] = ("all_or_nothing", "choreography", "empty_clues")


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Everything fixed at the table before the first card is dealt."""

    players: int
    variant: Variant = Variant.STANDARD
    all_or_nothing: bool = False
    choreography: bool = False
    empty_clues: bool = False

    def __post_init__(self) -> None:
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise UserError(f"Hanabi is for {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                            f"not {self.players}")

    @classmethod
    def from_names(cls, players: int, variant: str, options: Sequence[str] = ()) -> GameConfig:
        """Build from user-facing names, e.g. ("rainbow", ["empty_clues"])."""
        try:
            v = variant_named(variant)
        except ValueError:
            known = ", ".join(VARIANT_CHOICES)
            raise UserError(f"unknown variant {variant!r} (known: {known})") from None
        flags = {}
        for opt in options:
            name = opt.replace("-", "_")
            if name not in OPTION_NAMES:
                raise UserError(f"unknown option {opt!r} (known: {', '.join(OPTION_NAMES)})")
            flags[name] = True
        return cls(players=players, variant=v, **flags)

    @property
    def options(self) -> tuple[str, ...]:
        return tuple(name for name in OPTION_NAMES if getattr(self, name))

    @property
    def suits(self) -> tuple[Suit, ...]:
        if self.variant is Variant.STANDARD:
            return BASE_SUITS
        return (*BASE_SUITS, Suit.MULTI)

    @property
    def hand_size(self) -> int:
        return 5 if self.players <= 3 else 4

    @property
    def max_score(self) -> int:
        return 5 * len(self.suits)

    @property
    def clue_colours(self) -> tuple[Suit, ...]:
        """Colours a clue may name. In rainbow, multicolour is wild and cannot be named."""
        if self.variant is Variant.RAINBOW:
            return BASE_SUITS
        return self.suits

    def copies(self, suit: Suit) -> dict[int, int]:
        if suit is Suit.MULTI and self.variant is Variant.MULTICOLOR_SHORT:
            return SHORT_SUIT_COPIES
        return FULL_SUIT_COPIES

    def deck_composition(self) -> list[tuple[Card, int]]:
        """Every physical card as (face, copy number), in canonical order.

        Canonical order is suit order, then rank, then copy: it is the order in which the
        deck protocol derives card points, so it is part of the protocol.
        """
        out: list[tuple[Card, int]] = []
        for suit in self.suits:
            for rank, count in self.copies(suit).items():
                out.extend((Card(suit, rank), copy) for copy in range(count))
        return out

    def deck_faces(self) -> list[Card]:
        return [card for card, _ in self.deck_composition()]

    @property
    def deck_size(self) -> int:
        return sum(sum(self.copies(s).values()) for s in self.suits)

    def colour_touches(self, colour: Suit, card: Card) -> bool:
        """Does a colour clue naming `colour` touch `card`?"""
        if card.suit is colour:
            return True
        return self.variant is Variant.RAINBOW and card.suit is Suit.MULTI


class Rating(StrEnum):
    """What a final score is called (the words of the rulebook; translated by the UI). A
    StrEnum: its values are the keys the log's JSON and the game summaries write."""

    HORRIBLE = "horrible"
    MEDIOCRE = "mediocre"
    HONOURABLE = "honourable"
    EXCELLENT = "excellent"
    AMAZING = "amazing"
    LEGENDARY = "legendary"
    DIVINE = "divine"
    WIN = "win"  # all_or_nothing: every firework complete
    LOSS = "loss"  # all_or_nothing: anything less


def rating(config: GameConfig, score: int, won: bool | None = None) -> Rating:
    """The rating of a final score; with all_or_nothing only WIN or LOSS."""
    if config.all_or_nothing:
        return Rating.WIN if won else Rating.LOSS
    if score >= 30:
        return Rating.DIVINE
    if score >= 25:
        return Rating.LEGENDARY
    for limit, key in ((5, Rating.HORRIBLE), (10, Rating.MEDIOCRE), (15, Rating.HONOURABLE),
                       (20, Rating.EXCELLENT)):
        if score <= limit:
            return key
    return Rating.AMAZING
