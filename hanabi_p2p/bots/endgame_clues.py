"""Clues near the deck's end: between clues of equal value, the one that tells most about the
clued cards still to be played (a "fill-in").

At the deck's end points are lost to time more than to anything else: a clued card whose
holder does not know it is playable when its firework gets there needs one more clue, and by
then the tokens (or the turns) are often gone. Measured over the tuning seeds (bench/bots.py
``--losses``, 3 players), most of the points lost to time were a next card that was clued
but not played in time, often a 4 or 5 known only by its rank.

This changes only which of several clues the conventions rate alike is given (never whether a
clue is given, nor how any clue reads), so a table's partners read it as they would any clue
of that value, at every level.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hanabi_p2p.bots.hgroup_tuning import FILL_IN_EXACT
from hanabi_p2p.rules.actions import Clue

if TYPE_CHECKING:
    from hanabi_p2p.bots.hgroup import HGroupPlayer


def fill_in(p: HGroupPlayer, clue: Clue) -> int:
    """What ``clue`` tells of its receiver's clued cards that are still to be played, as
    everyone knows them (those it touches and those it does not): the faces it rules out,
    and FILL_IN_EXACT more for each card it leaves known exactly (its holder then plays it
    without another clue)."""
    touched = clue.touched or frozenset()
    hit = p._clue_mask(clue)
    trash = p.board.trash
    clued = p.clued
    fi = p.fi
    gain = 0
    for c in p.replica.hands[clue.target]:
        f = fi[c]
        if not clued[c] or f < 0 or 1 << f & trash:
            continue  # (a face this seat does not know: never in a hand it may clue)
        old = p.public(c)
        new = (old & hit if c in touched else old & ~hit) or old
        if new != old:
            gain += old.bit_count() - new.bit_count()
            if new & (new - 1) == 0:
                gain += FILL_IN_EXACT
    return gain


__all__ = ["fill_in"]
