"""The H-group levels a person may pick for the computer players and the coach (``--level``).

H-group players learn their conventions in levels; a table agrees on one, and nobody gives or
reads a convention above it. Our convention player (``hgroup.py``) knows the conventions of
levels 1 to 5 that ``docs/conventions.md`` lists, and two from higher levels (bluffs and
scream discards). With a level picked, the conventions above it are neither given nor read;
with none, it uses every convention it knows but the few that cost points among computer
players (``SELF_PLAY_SKIPS``: the strongest play, and the default). A person at the table
picks a level to have the computer players read and give what people of that level do.
"""

from __future__ import annotations

from enum import Enum

from hanabi_p2p.i18n import N_, _

# The levels a person may pick.
LOWEST_LEVEL = 1
HIGHEST_LEVEL = 5
LEVELS = range(LOWEST_LEVEL, HIGHEST_LEVEL + 1)


# The level of the conventions H-group teaches above the ones a person may pick here.
ABOVE = HIGHEST_LEVEL + 1


class Convention(Enum):
    """A convention whose use depends on the table's level (see ``LEVEL_OF``); the
    conventions of level 1, which every level uses, are not listed."""

    FIVE_STALL = "five_stall"  # early game: a 5 clue off the chop is a stall, not a play
    SELF_FINESSE = "self_finesse"  # a play clue nobody else can connect: my own blind card
    REVERSE_FINESSE = "reverse_finesse"  # the card a focus needs, held after its receiver
    ONES_IN_ORDER = "ones_in_order"  # known 1s: chop focus, then fresh, then oldest first
    SARCASTIC_DISCARD = "sarcastic_discard"  # a known card let go: another clued is that
    TRASH_CHOP_MOVE = "trash_chop_move"  # a clue on known trash only: keep the cards behind
    BLUFF = "bluff"  # a blind play of another playable card, answering a finesse
    SCREAM = "scream"  # a discard instead of a known play, with no token: keep your chop


# The lowest level that uses each convention.
LEVEL_OF = {
    Convention.FIVE_STALL: 2,
    Convention.SELF_FINESSE: 2,
    Convention.REVERSE_FINESSE: 2,
    Convention.ONES_IN_ORDER: 3,
    Convention.SARCASTIC_DISCARD: 3,
    Convention.TRASH_CHOP_MOVE: 4,
    Convention.BLUFF: ABOVE,
    Convention.SCREAM: ABOVE,
}


# Conventions a player with no level picked (None: the strongest play, for a table of
# computer players) does not use, because among computer players they cost points: measured
# on 300 paired games per table size of bench/bots.py's tuning seeds (offset 200,000), self-
# finesses 2p -0.27 ± 0.13, trash chop moves 5p -0.20 ± 0.05. A table that picks a level
# uses them (people give them). Again, paired, tuning seeds 0..999, 1000 games, 3p then 4p:
# with reverse finesses -0.007 ± 0.026, -0.195 ± 0.045 (1 strikeout); with self-finesses
# -0.015 ± 0.035, +0.039 ± 0.027 (4p, seeds 0..1999, EARLY_RICH_TOKENS in: +0.015 ± 0.017);
# with trash chop moves -0.060 ± 0.017, -0.057 ± 0.017; again once the giver's known
# faces stopped going stale after its own clue (h-known's fix, which changed them at levels
# 4-5): -0.012 ± 0.016, -0.022 ± 0.014 (tuning seeds 0..999, 1000 games, 3p then 4p).
SELF_PLAY_SKIPS = frozenset({Convention.SELF_FINESSE, Convention.REVERSE_FINESSE,
                             Convention.TRASH_CHOP_MOVE})


def knows(level: int | None, convention: Convention) -> bool:
    """Does a player at ``level`` (None: every convention it knows but SELF_PLAY_SKIPS) use
    ``convention``?"""
    if level is None:
        return convention not in SELF_PLAY_SKIPS
    return level >= LEVEL_OF[convention]


# What the coach says of the table's conventions (see table_conventions).
TABLE_LEVEL = N_("table conventions: H-group level {level}, none above it")
TABLE_EVERY = N_("table conventions: every H-group convention the computer players know")


def table_conventions(level: int | None) -> str:
    """The table's conventions in words, in the current language (for the hint coach)."""
    if level is None:
        return _(TABLE_EVERY)
    return _(TABLE_LEVEL).format(level=level)


def check_level(level: int | None) -> int | None:
    """``level`` if it is one a person may pick (or None); else a ValueError."""
    if level is not None and level not in LEVELS:
        raise ValueError(f"the level must be {LOWEST_LEVEL} to {HIGHEST_LEVEL}")
    return level


__all__ = ["ABOVE", "HIGHEST_LEVEL", "LEVELS", "LEVEL_OF", "LOWEST_LEVEL", "SELF_PLAY_SKIPS",
           "Convention", "check_level", "knows", "table_conventions"]
