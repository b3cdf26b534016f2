"""What a card can be, counted: clue knowledge narrowed by the copies its holder can see.

A holder knows from clues which faces a card may have (a face mask). A face every copy of
which the holder can see elsewhere (on the fireworks, in the discard pile, in the hands it
sees) is ruled out as well: that is hanab.live's "empathy by elimination". A card is *known
trash* when every face still possible for it is no longer needed (already on its firework,
or a lower rank of its suit is gone for good).

Only what the viewer may know is used. The cards counted are the public ones and the faces
of the hands other than the holder's and the observer's: the observer (whoever looks at the
screen) never sees its own hand, so those faces are left out even when this replica happens
to know them (a local game knows every face), and an answer about a teammate's card never
depends on the observer's own cards. With no observer (a replay, a spectator) the holder's
own view is counted whole: every other hand, as far as this replica knows its faces.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from hanabi_p2p.rules.cards import Card, Suit
from hanabi_p2p.rules.copies import still_needed
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.rules.faces import FaceTable, face_table


@dataclass(frozen=True, slots=True)
class Empathy:
    """What a card's holder can tell of it."""

    # every face still possible, with the copies of it the holder cannot account for
    counts: Mapping[Card, int]
    trash: bool  # every possible face is no longer needed: safe to discard

    @property
    def faces(self) -> frozenset[Card]:
        return frozenset(self.counts)

    @property
    def colours(self) -> frozenset[Suit]:
        return frozenset(face.suit for face in self.counts)

    @property
    def ranks(self) -> frozenset[int]:
        return frozenset(face.rank for face in self.counts)


def eliminate(table: FaceTable, clue_mask: int, seen: Sequence[int]) -> dict[Card, int]:
    """The faces of `clue_mask` not all of whose copies are `seen` (per face index), with
    the copies left unseen of each."""
    return {
        card: left
        for index, card in enumerate(table.cards)
        if clue_mask >> index & 1 and (left := table.copies[index] - seen[index]) > 0
    }


def seen_counts(state: GameState, holder: int, observer: int | None) -> list[int]:
    """Per face index: copies `holder` sees outside its own hand, as far as `observer` may
    know them (the observer's own hand is never counted)."""
    table = face_table(state.config)
    seen = [0] * len(table.cards)

    def count(card: int) -> None:
        face = state.faces[card]
        if face is not None:
            seen[table.index(face)] += 1

    for card in (*state.played, *state.discard_pile):
        count(card)
    for seat, hand in enumerate(state.hands):
        if seat not in (holder, observer):
            for card in hand:
                count(card)
    return seen


def is_known_trash(state: GameState, faces: frozenset[Card]) -> bool:
    """Every face of `faces` (at least one) is no longer needed by the fireworks."""
    return bool(faces) and not any(still_needed(state, face) for face in faces)


def card_empathy(
    state: GameState,
    card: int,
    holder: int,
    observer: int | None,
    seen: Sequence[int] | None = None,
) -> Empathy:
    """What `holder` can tell of its `card`, counted from what `observer` may know.

    `seen`: `seen_counts(state, holder, observer)`, when the caller has it already (it is
    the same for every card of one hand)."""
    table = face_table(state.config)
    if seen is None:
        seen = seen_counts(state, holder, observer)
    counts = eliminate(table, state.possible_mask(card), seen)
    return Empathy(counts=counts, trash=is_known_trash(state, frozenset(counts)))


def public_empathy(state: GameState, card: int) -> Empathy:
    """What everyone can tell of `card` from clues and public cards alone (hanab.live's
    "globally known"): the fireworks and the discard pile, no hand."""
    table = face_table(state.config)
    seen = [0] * len(table.cards)
    for public in (*state.played, *state.discard_pile):
        face = state.faces[public]
        if face is not None:
            seen[table.index(face)] += 1
    counts = eliminate(table, state.possible_mask(card), seen)
    return Empathy(counts=counts, trash=is_known_trash(state, frozenset(counts)))
