"""View models: everything a screen shows, pushed by the session to `App.update`.

Immutable snapshots: the session builds a new one whenever something changes, so a screen is
a pure function of one value and can be rendered (and tested) without a running game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from hanabi_p2p.rules.cards import Card, GameConfig, Rating, Suit
from hanabi_p2p.rules.engine import End, GameState


@dataclass(frozen=True, slots=True)
class LobbySeat:
    name: str
    fingerprint: str  # short identity-key fingerprint, compared aloud if in doubt
    is_host: bool = False
    is_me: bool = False
    connected: bool = True
    # A computer player: the name of the player whose machine runs it (that machine holds
    # its keys, so it could read the cards of this seat). Empty for a person or unknown.
    runner: str = ""  # a computer player: the name of the player whose machine runs it,
    # or OWN_MACHINE for one on a machine of its own; "" for a person
    peer_id: bytes = b""  # who this is, for the host's `kick`
    # another player's name this one reads as (a look-alike: `Sеat1` with a Cyrillic `е`
    # beside `Seat1`), shown as a warning; "" when it reads as nobody else's
    looks_like: str = ""


@dataclass(frozen=True, slots=True)
class WatcherRow:
    """Someone watching the table (a spectator): never seated, never posts."""

    name: str  # as the spectator gave it: sanitise before display
    fingerprint: str  # of its identity key, as the lobby shows a joiner's
    sees_hands: bool  # the table let it see every hand (host --spectators)


class Watching(Enum):
    """What a spectator is shown: every hand (the table's consent) or the public view."""

    HANDS = "hands"
    PUBLIC = "public"


@dataclass(frozen=True, slots=True)
class LobbyView:
    table_name: str
    config: GameConfig  # `players` is the number of seats
    seats: tuple[LobbySeat, ...]  # taken seats, in seat order
    i_am_host: bool
    table_code: str | None = None  # shown once every seat is taken
    address: str | None = None  # where others can join, e.g. "10.0.0.5:7301"
    status: str = ""  # a line from the session, already translated
    # Seating is final: the deck is being shuffled (a live table starts by itself when full).
    seated: bool = False
    waiting_for: tuple[int, ...] = ()  # seats the shuffle waits on, once seated
    stopped: str = ""  # why the game was stopped before the deal; empty while it is on
    watchers: tuple[WatcherRow, ...] = ()
    # the table options everyone should know before the game (host --spectators, --option
    # hints)
    spectators_see_hands: bool = False
    hints_on: bool = False
    turn_timer: int | None = None  # seconds a turn may last (SPEC 5.6), None: no timer
    total_clock: int | None = None  # seconds each player has for all its turns, or None
    watching: Watching | None = None  # we are a spectator of this table, not a player
    # the lines of the log so far (table talk, who left): the lobby shows the last ones
    talk: tuple[str, ...] = ()

    @property
    def free_seats(self) -> int:
        return max(self.config.players - len(self.seats), 0)

    @property
    def can_start(self) -> bool:
        return (
            self.i_am_host
            and not self.seated
            and not self.stopped
            and self.free_seats == 0
            and all(s.connected for s in self.seats)
        )


@dataclass(frozen=True, slots=True)
class TableView:
    config: GameConfig
    my_seat: int
    names: tuple[str, ...]  # per seat
    state: GameState  # the observer's engine state for `my_seat`
    table_name: str = ""
    fingerprints: tuple[str, ...] = ()  # per seat, may be empty
    table_code: str | None = None
    log: tuple[str, ...] = ()  # action log in words and table talk, oldest first
    # seats the session is waiting on (e.g. for a deck step); empty = the player to move
    waiting_for: tuple[int, ...] = ()
    disconnected: frozenset[int] = field(default_factory=frozenset)
    status: str = ""  # a line from the session, already translated
    runners: tuple[str, ...] = ()  # per seat, as `LobbySeat.runner`
    watchers: tuple[WatcherRow, ...] = ()
    turn_timer: int | None = None  # the table's turn timer in seconds (SPEC 5.6), or None
    total_clock: int | None = None  # each player's time for all its turns, or None


@dataclass(frozen=True, slots=True)
class WatchView:
    """The table as a spectator sees it: nobody's seat, every hand with the faces it
    decoded (an unknown face is a card back, never a guess)."""

    config: GameConfig
    names: tuple[str, ...]  # per seat
    state: GameState  # the spectator's engine state: faces it decoded, others None
    watching: Watching
    table_name: str = ""
    log: tuple[str, ...] = ()
    waiting_for: tuple[int, ...] = ()
    disconnected: frozenset[int] = field(default_factory=frozenset)
    status: str = ""
    runners: tuple[str, ...] = ()
    watchers: tuple[WatcherRow, ...] = ()


@dataclass(frozen=True, slots=True)
class EndView:
    config: GameConfig
    score: int
    rating: Rating
    end: End
    fireworks: tuple[tuple[Suit, int], ...]
    strikes: int = 0
    audit_ok: bool | None = None  # None = the audit has not finished
    audit_text: str = ""  # what the audit found, already translated
    log_path: str | None = None
    names: tuple[str, ...] = ()
    log: tuple[str, ...] = ()
    stopped: str = ""  # why the game was stopped (a fault, a peer gone); empty if it ended
    # Every hand face up, per seat (None: a face nobody revealed, e.g. before the audit).
    hands: tuple[tuple[Card | None, ...], ...] = ()
    # The final state and every card's face the audit decoded, for `info` on any card.
    state: GameState | None = None
    faces: dict[int, Card] = field(default_factory=dict)
    my_seat: int = 0  # NO_SEAT for a spectator
    watching: Watching | None = None  # we watched this game rather than played it


ScreenView = LobbyView | TableView | WatchView | EndView

# `my_seat` of a view that belongs to nobody's seat (a spectator's end screen)
NO_SEAT = -1


# `LobbySeat.runner` of a computer player that runs on a machine of its own (no one's name)
OWN_MACHINE = "\u2699"
