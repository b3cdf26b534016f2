"""A game's verdict and how its variant is named: what `log list` shows of a game.

Apart from the verifier (session/verify.py, which re-exports both) so that what only shows a
cached verdict, `log list` above all, does not import the whole verification pipeline.
"""

from __future__ import annotations

from enum import StrEnum

from hanabi_p2p.rules.cards import GameConfig


class Verdict(StrEnum):
    VALID = "valid"  # every check passed and the game is over and audited
    INVALID = "invalid"  # something is wrong: see GameReport.problems
    UNFINISHED = "unfinished"  # nothing wrong so far, but the game or its audit never ended


def variant_text(config: GameConfig) -> str:
    """'standard' or 'rainbow + empty_clues + choreography'."""
    return " + ".join([config.variant.value, *config.options])
