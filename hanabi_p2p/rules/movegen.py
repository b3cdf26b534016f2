"""Building ``legal_actions()`` lists cheaply: interned plays/discards, incremental clues.

Computer players call ``legal_actions()`` on every turn of thousands of games, and most of
its cost used to be constructing the same frozen action objects again and again. Actions are
immutable values, so equal ones can be shared:

* ``plays_and_discards(players, deck_size)`` builds every ``Play``/``Discard`` without an
  announcement once per table shape; the engine picks them by (seat, card).
* Clues to one hand are described by one *bucket mask* per clue kind (bit ``c`` set when the
  kind touches card ``c``). A ``ClueSlot`` remembers the ``Clue`` objects one giver built
  for a given tuple of masks; when the hand changes (a play, a discard, a draw) usually only
  the kinds touching the leaving and the arriving card change, and the other ``Clue``
  objects are reused as they are.

Pure functions and immutable values only, so replicas made by ``GameState.copy()`` may share
them freely.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import NamedTuple

from hanabi_p2p.rules.actions import Clue, Discard, Play
from hanabi_p2p.rules.faces import FaceTable

# card id -> frozenset({card id}), shared by every clue touching one card (no deck has
# more cards than this)
_SINGLETONS = tuple(frozenset((card,)) for card in range(64))

# The slots of ``Clue``, set directly (in build_clue_slot): a frozen dataclass's __init__
# sets each field through object.__setattr__ (it forbids plain assignment), which made
# building clues most of this module's cost; the slot descriptors set the very same fields,
# equal and hashing alike.
_new_object = object.__new__
_SET_SEAT, _SET_TARGET, _SET_COLOUR, _SET_RANK, _SET_TOUCHED = (
    getattr(Clue, field).__set__ for field in ("seat", "target", "colour", "rank", "touched"))


# seat -> card id -> the action
ActionTable = tuple[tuple[Play, ...], ...]
DiscardTable = tuple[tuple[Discard, ...], ...]


@cache
def plays_and_discards(players: int, deck_size: int) -> tuple[ActionTable, DiscardTable]:
    """Every plain ``Play(seat, card)`` and ``Discard(seat, card)``, indexed [seat][card]."""
    plays = tuple(tuple(Play(seat, card) for card in range(deck_size)) for seat in range(players))
    discards = tuple(
        tuple(Discard(seat, card) for card in range(deck_size)) for seat in range(players)
    )
    return plays, discards


def hand_masks(hand: Sequence[int], face_index: Sequence[int], table: FaceTable
               ) -> tuple[int, ...] | None:
    """One bucket mask per clue kind of ``table.clue_kinds``; None if a face is unknown."""
    masks = [0] * len(table.clue_kinds)
    touching = table.clues_touching
    for card in hand:
        face = face_index[card]
        if face < 0:
            return None
        bit = 1 << card
        for kind in touching[face]:
            masks[kind] |= bit
    return tuple(masks)


class ClueSlot(NamedTuple):
    """The clues one giver may give one target whose hand has bucket masks ``masks``."""

    masks: tuple[int, ...]
    by_kind: tuple[Clue | None, ...]  # per clue kind; None when it touches nothing (not legal)
    clues: list[Clue]  # the legal ones, in clue-kind order (never mutated once built)


def build_clue_slot(
    giver: int,
    target: int,
    hand: Sequence[int],
    masks: tuple[int, ...],
    previous: ClueSlot | None,
    table: FaceTable,
    empty_ok: bool,
) -> ClueSlot:
    """The giver's clues to ``hand``, reusing the ``Clue`` objects of ``previous``
    (the same giver and target, an earlier hand) whose kind touches the same cards."""
    kinds = table.clue_kinds
    by_kind: list[Clue | None]
    if previous is None:
        by_kind = [None] * len(kinds)
        old: Sequence[int] = [-1] * len(kinds)  # (no mask: every kind is built)
    else:
        by_kind = list(previous.by_kind)
        old = previous.masks
    for kind, mask in enumerate(masks):
        if mask == old[kind]:
            continue  # the same cards touched: the same clue
        if mask or empty_ok:
            colour, rank = kinds[kind]
            if mask & (mask - 1) == 0 and mask:  # one card: most clues in practice
                touched = _SINGLETONS[mask.bit_length() - 1]
            else:
                touched = frozenset([c for c in hand if mask >> c & 1])
            # Clue(giver, target, colour, rank, touched), through its slots (see above)
            clue: Clue = _new_object(Clue)
            _SET_SEAT(clue, giver)
            _SET_TARGET(clue, target)
            _SET_COLOUR(clue, colour)
            _SET_RANK(clue, rank)
            _SET_TOUCHED(clue, touched)
            by_kind[kind] = clue
        else:
            by_kind[kind] = None
    return ClueSlot(masks, tuple(by_kind), [clue for clue in by_kind if clue is not None])
