"""`info`: the story of one card - who clued it, with what, on which turn - in words."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hanabi_p2p.i18n import _
from hanabi_p2p.narration.narrator import seat_name
from hanabi_p2p.narration.terms import colour_name
from hanabi_p2p.rules.cards import RANKS, Card
from hanabi_p2p.rules.empathy import card_empathy
from hanabi_p2p.rules.engine import GameState

# Faces listed one by one, with their copies, up to this many (more say little at a glance).
MAX_FACES_COUNTED = 10


def card_story(
    state: GameState,
    card: int,
    names: Sequence[str],
    my_seat: int,
    *,
    faces: Mapping[int, Card] | None = None,
    note: str = "",
) -> list[str]:
    """Lines about `card` as `my_seat` may know it: its face when visible, every clue that
    touched it or passed it by, what its holder can deduce, and our private note."""
    holder = state.holder(card)
    face = state.faces[card] if holder != my_seat else None
    if face is None and faces:
        face = faces.get(card)  # after the audit every face is known, our own included
    shown = str(face) if face is not None else "??"
    if holder is None:
        title = _("Card {face}").format(face=shown)
    else:
        slot = state.hands[holder].index(card) + 1
        if holder == my_seat:
            title = _("Your card in slot {slot}: {face}").format(slot=slot, face=shown)
        else:
            title = _("{name}'s card in slot {slot}: {face}").format(
                name=seat_name(names, holder), slot=slot, face=shown
            )
    lines = [title]
    records = state.clues[card]
    if not records:
        lines.append(_("No clue has been given about it."))
    for record in records:
        value = colour_name(record.colour) if record.colour is not None else str(record.rank)
        giver = seat_name(names, record.giver)
        if record.touched:
            text = _("turn {turn}: {giver} clued {value}, touching this card")
        else:
            text = _("turn {turn}: {giver} clued {value}, not touching this card")
        lines.append("  " + text.format(turn=record.turn + 1, giver=giver, value=value))
    if holder is not None:
        lines.extend(_holder_knows(state, card, holder, my_seat))
    if note:
        lines.append(_("Your note: {note}").format(note=note))
    return lines


def _holder_knows(state: GameState, card: int, holder: int, my_seat: int) -> list[str]:
    """What the holder can tell of its card: clues, less the faces every copy of which it
    sees (never counting our own hand, which we do not see either), and known trash."""
    observer = my_seat if 0 <= my_seat < state.config.players else None
    knows = card_empathy(state, card, holder, observer)
    colours = "".join(s.letter for s in state.config.suits if s in knows.colours)
    ranks = "".join(str(r) for r in RANKS if r in knows.ranks)
    lines = [_("Its holder can tell it is one of: {colours} / {ranks}").format(
        colours=colours, ranks=ranks)]
    if 1 < len(knows.counts) <= MAX_FACES_COUNTED:
        counted = ", ".join(f"{face} \u00d7{left}" for face, left in sorted(knows.counts.items()))
        lines.append("  " + _("copies it can still be: {faces}").format(faces=counted))
    if knows.trash:
        lines.append("  " + _("known trash: its holder can tell it is no longer needed"))
    return lines
