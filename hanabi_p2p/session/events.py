"""What the session tells its shell (network loop, UI, bot): small immutable records."""

from __future__ import annotations

from dataclasses import dataclass

from hanabi_p2p.rules.actions import Action
from hanabi_p2p.rules.engine import GameState, Outcome


@dataclass(frozen=True, slots=True)
class Event:
    """Base class of everything the session reports."""


@dataclass(frozen=True, slots=True)
class TableOpened(Event):
    name: str


@dataclass(frozen=True, slots=True)
class PlayerJoined(Event):
    peer_id: bytes
    name: str
    # a joiner that asked again under another name (or address: it came back after the host
    # removed it) before the seating: the name it had ("" for a first request)
    renamed_from: str = ""


@dataclass(frozen=True, slots=True)
class Seated(Event):
    """Seating is final: the shell connects to every seated peer."""


@dataclass(frozen=True, slots=True)
class DeckReady(Event):
    """Both shuffle phases are done and verified; dealing starts."""


@dataclass(frozen=True, slots=True)
class TurnResolved(Event):
    """A turn took effect. `before` is a snapshot of the state it was applied to (slot
    numbers for narration come from it)."""

    turn: int
    action: Action
    outcome: Outcome
    before: GameState


@dataclass(frozen=True, slots=True)
class HandMoved(Event):
    seat: int
    card: int
    to: int


@dataclass(frozen=True, slots=True)
class Chat(Event):
    seat: int  # -1 before the deal (table talk in the lobby)
    text: str
    name: str = ""  # the speaker's name at the table (peer text: sanitise to show it)


@dataclass(frozen=True, slots=True)
class Resigned(Event):
    seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class AbandonVoted(Event):
    """A seat asks to end the game by agreement (the first to ask proposes it)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Abandoned(Event):
    """Every seat agreed: the game ended by agreement at ``turn``, nobody blamed."""

    turn: int


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    end: str
    score: int


@dataclass(frozen=True, slots=True)
class Audited(Event):
    ok: bool
    reason: str
    blamed_seat: int | None = None


@dataclass(frozen=True, slots=True)
class Fault(Event):
    """A peer broke the protocol. `fatal` faults end the game (its log is kept)."""

    peer_id: bytes | None
    reason: str
    fatal: bool = True
