"""Where a peer is in its life, and the one table that moves it on (h11's `_state.py`).

A player's core goes through `Stage`; a spectator's (`watcher.WatcherCore`) through
`WatchStage`. Each changes only through `Lifecycle.fire`, which looks the trigger up in its
table: a trigger with no row for the current stage is a bug of ours. Tests run strict (it
raises `LocalProtocolError`); a program counts it (`Counters.out_of_stage`) and stays where it
is, because a peer that stops on its own mistake mid-game costs the whole table its game.

`docs/architecture.md` draws these tables; `tests/peer/test_lifecycle.py` checks the drawing
against them.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from hanabi_p2p.errors import LocalProtocolError


class Stage(enum.Enum):
    """A seated player's (or one who hopes to be) life, host and joiner alike."""

    LOBBY = "lobby"  # the table is being set up; we are not seated
    SEAT_ASKED = "seat asked"  # a joiner asked the host for a seat
    DEALING = "dealing"  # seating is final; the deck is being built
    PLAYING = "playing"  # dealt: turns, then the seeds of the end
    LINGERING = "lingering"  # the game is over or stopped: we stay for those who lack it
    DONE = "done"  # finished: the shell closes everything


class WatchStage(enum.Enum):
    """A spectator's life (SPEC §4.8)."""

    FINDING = "finding"  # linked to the table, but the seating has not reached us
    FOLLOWING = "following"  # we know the players and follow their log
    DONE = "done"


class Trigger(enum.Enum):
    ASKED_FOR_SEAT = "asked for a seat"
    SEATED = "seating is final"
    DEALT = "the deck is dealt"
    GAME_ENDED = "the game ended or stopped"
    FINISHED = "finished"


S, W, T = Stage, WatchStage, Trigger

PLAYER_TRANSITIONS: Mapping[tuple[Stage, Trigger], Stage] = {
    (S.LOBBY, T.ASKED_FOR_SEAT): S.SEAT_ASKED,
    (S.LOBBY, T.SEATED): S.DEALING,  # the host seats; a resumed player replays its seating
    (S.SEAT_ASKED, T.SEATED): S.DEALING,
    (S.DEALING, T.DEALT): S.PLAYING,
    # a host's signed fault can stop a table before anyone is seated
    (S.LOBBY, T.GAME_ENDED): S.LINGERING,
    (S.SEAT_ASKED, T.GAME_ENDED): S.LINGERING,
    (S.DEALING, T.GAME_ENDED): S.LINGERING,
    (S.PLAYING, T.GAME_ENDED): S.LINGERING,
    **{(stage, T.FINISHED): S.DONE for stage in Stage if stage is not S.DONE},
}

WATCHER_TRANSITIONS: Mapping[tuple[WatchStage, Trigger], WatchStage] = {
    (W.FINDING, T.SEATED): W.FOLLOWING,
    (W.FINDING, T.FINISHED): W.DONE,
    (W.FOLLOWING, T.FINISHED): W.DONE,
}

StageT = TypeVar("StageT", bound=enum.Enum)


@dataclass
class Lifecycle(Generic[StageT]):
    """One stage variable and the table that alone may change it."""

    stage: StageT
    table: Mapping[tuple[StageT, Trigger], StageT]
    strict: bool = False
    # triggers that had no row, for tests and the status line (see the module docstring)
    missing: int = 0

    def fire(self, trigger: Trigger) -> StageT:
        nxt = self.table.get((self.stage, trigger))
        if nxt is None:
            if self.strict:
                raise LocalProtocolError(f"no transition from {self.stage.name} on {trigger.name}")
            self.missing += 1
            return self.stage
        self.stage = nxt
        return nxt

    def allows(self, trigger: Trigger) -> bool:
        return (self.stage, trigger) in self.table
