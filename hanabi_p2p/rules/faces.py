"""Per-configuration lookup tables that let the engine work on small ints instead of objects.

A face (a ``Card``) gets an index ``suit_index * 5 + rank - 1`` in the variant's suit
order; a *face mask* is an int with bit ``i`` set for each face index ``i`` in a set. Clue
knowledge is kept as one face mask per card: a clue that touched a card ANDs its mask with
the clue's mask, a clue that missed it ANDs with the complement. That one rule covers
positive and negative information in every variant, rainbow included (a "red" clue's mask
holds the red faces and, in rainbow, the multicolour ones).

Tables are built once per ``GameConfig`` (frozen, hashable) and shared by every game.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from hanabi_p2p.rules.cards import RANKS, Card, GameConfig, Suit

RANKS_PER_SUIT = len(RANKS)


@dataclass(frozen=True, slots=True)
class FaceTable:
    suits: tuple[Suit, ...]
    suit_index: dict[Suit, int]
    cards: tuple[Card, ...]  # face index -> Card
    copies: tuple[int, ...]  # face index -> copies of that face in the deck
    all_faces: int  # mask of every face of the variant
    colour_mask: dict[Suit, int]  # faces a colour clue / announcement naming the suit touches
    rank_mask: tuple[int, ...]  # rank -> faces of that rank (index 0 unused)
    # every clue a player may give, as (colour, rank): the clue colours, then ranks 1-5
    clue_kinds: tuple[tuple[Suit | None, int | None], ...]
    # face index -> indices into clue_kinds of the clues that touch that face
    clues_touching: tuple[tuple[int, ...], ...]
    # face index -> (suit name, rank), as the public state hash writes a known face
    hash_faces: tuple[tuple[str, int], ...]

    def index(self, card: Card) -> int:
        return self.suit_index[card.suit] * RANKS_PER_SUIT + card.rank - 1

    def faces_in(self, mask: int) -> frozenset[Card]:
        cards = self.cards
        return frozenset(cards[i] for i in range(len(cards)) if mask >> i & 1)


@cache
def face_table(config: GameConfig) -> FaceTable:
    suits = config.suits
    cards = tuple(Card(suit, rank) for suit in suits for rank in RANKS)
    copies = tuple(config.copies(card.suit)[card.rank] for card in cards)
    colour_mask = {
        colour: sum(1 << i for i, card in enumerate(cards) if config.colour_touches(colour, card))
        for colour in suits
    }
    rank_mask = (0, *(sum(1 << i for i, c in enumerate(cards) if c.rank == r) for r in RANKS))
    clue_kinds: tuple[tuple[Suit | None, int | None], ...] = (
        *((colour, None) for colour in config.clue_colours),
        *((None, rank) for rank in RANKS),
    )
    clues_touching = tuple(
        tuple(k for k, (colour, rank) in enumerate(clue_kinds)
              if (config.colour_touches(colour, card) if colour is not None
                  else card.rank == rank))
        for card in cards
    )
    return FaceTable(
        suits=suits,
        suit_index={suit: i for i, suit in enumerate(suits)},
        cards=cards,
        copies=copies,
        all_faces=(1 << len(cards)) - 1,
        colour_mask=colour_mask,
        rank_mask=rank_mask,
        clue_kinds=clue_kinds,
        clues_touching=clues_touching,
        hash_faces=tuple((card.suit.value, card.rank) for card in cards),
    )
