"""The session's phases and the one table of how they change.

A session's phase changes only through ``next_phase(phase, trigger)``: each row of
``TRANSITIONS`` says which phase a trigger leads to from which phase, and a trigger with no
row there is a bug of ours (``LocalProtocolError``), never a peer's fault: every trigger
comes from a check the session has already made.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum, StrEnum

from hanabi_p2p.errors import LocalProtocolError


class Phase(StrEnum):
    """Where the game is, as this peer sees it."""

    LOBBY = "lobby"  # table open, players joining
    DECK = "deck"  # seated; the deck is being shuffled and locked
    PLAY = "play"  # dealt; turns
    OVER = "over"  # the game ended; seeds being collected
    AUDITED = "audited"  # every seed in, the deck audited
    ABORTED = "aborted"  # stopped for good (a fault, a player gone)


class Trigger(Enum):
    """What moves a session from one phase to the next."""

    SEATED = "the host's seating applied"
    DEALT = "the deck is locked: the deal begins"
    GAME_ENDED = "the last turn was taken, or a resignation applied"
    AUDITED = "the deck audit ran (again after late deck messages)"
    STOPPED = "the game was stopped for good"


START = Phase.LOBBY  # every session's first phase

TRANSITIONS: Mapping[tuple[Phase, Trigger], Phase] = {
    (Phase.LOBBY, Trigger.SEATED): Phase.DECK,
    (Phase.DECK, Trigger.DEALT): Phase.PLAY,
    (Phase.PLAY, Trigger.GAME_ENDED): Phase.OVER,
    # A resignation applies in full after we stopped the game (it is table-wide news), and
    # ends the game there too: the session then counts the game as over, as it always has.
    (Phase.ABORTED, Trigger.GAME_ENDED): Phase.OVER,
    (Phase.OVER, Trigger.AUDITED): Phase.AUDITED,
    (Phase.AUDITED, Trigger.AUDITED): Phase.AUDITED,  # a late deck message, audited again
    (Phase.ABORTED, Trigger.AUDITED): Phase.ABORTED,  # a stopped game stays stopped
    **{(phase, Trigger.STOPPED): Phase.ABORTED
       for phase in (Phase.LOBBY, Phase.DECK, Phase.PLAY, Phase.OVER, Phase.AUDITED)},
}


def next_phase(phase: Phase, trigger: Trigger) -> Phase:
    """The phase ``trigger`` leads to from ``phase``; raises LocalProtocolError if none."""
    try:
        return TRANSITIONS[phase, trigger]
    except KeyError:
        raise LocalProtocolError(
            f"the session cannot go from {phase.value} on {trigger.name}") from None


__all__ = ["START", "TRANSITIONS", "Phase", "Trigger", "next_phase"]
