"""The table of entry kinds: for each kind, where it applies and how its body is read.

One row per ``EntryKind`` says everything the session and the verifier need to know about a
kind apart from its game meaning: the stage of the game in which it applies, its step within
a turn (the second item of an entry's place, SPEC 5.4), whether its envelope turn must be 0,
whether a peer that stopped the game still applies it in full, whether its body carries deck
messages, and the parser of its body into a typed value (session/bodies.py). Every other
list of kinds is derived from these rows.

Why here and not in the log. The log (hanabi_p2p/log/entry.py) sits below the session: it
names the kinds (``EntryKind``, each wire string written once, there) and refuses an entry
of any other, but a body's meaning is the game's. The rows hold session types (stages,
typed bodies), so they live in the session, which imports the log and never the reverse.

A body is parsed once per entry: ``parse_entry`` keeps the typed value with the entry
(``Entry.parsed``), so the readiness check, the application and the verifier share it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Generic, TypeVar

from hanabi_p2p.limits import MAX_REASON_CHARS
from hanabi_p2p.log.entry import Entry, EntryKind
from hanabi_p2p.session import bodies as b
from hanabi_p2p.session.deckio import purpose_of_wire

BodyT_co = TypeVar("BodyT_co", bound=b.Body, covariant=True)


class Stage(IntEnum):
    """The one stage of the game in which an entry kind may apply (SPEC 5.4)."""

    LOBBY = 0  # before seating: the table, requests for seats, the seating
    DECK = 1  # after seating: the deck steps; the deal once the deck is locked
    PLAY = 2  # once dealt: turns, answers, resignations, hand moves
    ANY = 3  # once the table is open: table talk
    END = 4  # seeds: at the end, or when their author leaves


@dataclass(frozen=True, slots=True)
class KindSpec(Generic[BodyT_co]):
    """One row of the table: what is fixed about entries of ``kind``."""

    kind: EntryKind
    stage: Stage
    # Its step within its turn, the second item of its place: the lobby in the order its
    # entries depend on each other, then the deck, then a turn's resignation (at the start
    # of the turn), its action, its answers, and what happens beside it.
    step: int
    turn_zero: bool  # its envelope turn MUST be 0: it belongs to no game turn
    # A peer that stopped the game still applies it in full (other kinds only add their
    # deck messages to the transcript, so that the audit sees every message in the log).
    after_abort: bool
    carries_deck: bool  # its body holds deck messages in a "deck" list
    parse: Callable[[Any], BodyT_co]  # the body's check and typed value (raises BadBody)


TABLE_OPEN = KindSpec(EntryKind.TABLE_OPEN, Stage.LOBBY, step=0, turn_zero=True,
                      after_abort=False, carries_deck=False, parse=b.TableOpen.from_wire)
LOBBY_JOIN = KindSpec(EntryKind.LOBBY_JOIN, Stage.LOBBY, step=1, turn_zero=True,
                      after_abort=False, carries_deck=False, parse=b.LobbyJoin.from_wire)
CHAT = KindSpec(EntryKind.CHAT, Stage.ANY, step=2, turn_zero=False,
                after_abort=True, carries_deck=False, parse=b.ChatBody.from_wire)
LOBBY_SEAT = KindSpec(EntryKind.LOBBY_SEAT, Stage.LOBBY, step=3, turn_zero=True,
                      after_abort=False, carries_deck=False, parse=b.LobbySeat.from_wire)
DECK = KindSpec(EntryKind.DECK, Stage.DECK, step=4, turn_zero=True,
                after_abort=False, carries_deck=True, parse=b.DeckBody.from_wire)
RESIGN = KindSpec(EntryKind.RESIGN, Stage.PLAY, step=5, turn_zero=False,
                  after_abort=True, carries_deck=False, parse=b.ResignBody.from_wire)
ACTION = KindSpec(EntryKind.ACTION, Stage.PLAY, step=6, turn_zero=False,
                  after_abort=False, carries_deck=True, parse=b.ActionBody.unseated)
ACK = KindSpec(EntryKind.ACK, Stage.PLAY, step=7, turn_zero=False,
               after_abort=False, carries_deck=True, parse=b.AckBody.from_wire)
MOVE = KindSpec(EntryKind.MOVE, Stage.PLAY, step=8, turn_zero=False,
                after_abort=False, carries_deck=False, parse=b.MoveBody.from_wire)
SEED = KindSpec(EntryKind.SEED, Stage.END, step=9, turn_zero=False,
                after_abort=True, carries_deck=True, parse=b.SeedBody.from_wire)
# (its step is the last: a vote commutes with everything, and the vote that ends the game
# waits for every other vote, at the start of its author's turn, where nothing else can
# move the game on; adding it last leaves every other kind's place as it was)
ABANDON = KindSpec(EntryKind.ABANDON, Stage.PLAY, step=10, turn_zero=False,
                   after_abort=False, carries_deck=False, parse=b.AbandonBody.from_wire)

SPECS: Mapping[EntryKind, KindSpec[b.Body]] = {
    spec.kind: spec
    for spec in (TABLE_OPEN, LOBBY_JOIN, CHAT, LOBBY_SEAT, DECK, RESIGN, ACTION, ACK, MOVE, SEED,
                 ABANDON)
}
# The step of a kind no row names (a verifier's problem about a malformed entry): last.
UNKNOWN_STEP = len(SPECS)


def spec_of(kind: str) -> KindSpec[b.Body] | None:
    """The row of a kind's wire string, or None for a string that names no kind."""
    try:
        return SPECS[EntryKind(kind)]
    except ValueError:
        return None


def step_of(kind: str) -> int:
    spec = spec_of(kind)
    return UNKNOWN_STEP if spec is None else spec.step


def parse_body(kind: str, body: Any) -> b.Body:
    """A body's typed value by the parser of its kind; raises BadBody (and nothing else)."""
    spec = spec_of(kind)
    if spec is None:
        raise b.BadBody(f"unknown entry kind {kind[:MAX_REASON_CHARS]!r}")
    return spec.parse(body)


def body_of(entry: Entry, spec: KindSpec[BodyT_co]) -> BodyT_co:
    """The typed body of an entry of ``spec``'s kind, parsed once per entry (BadBody)."""
    return entry.parsed(spec.parse)


def parse_entry(entry: Entry) -> b.Body:
    """The typed body of any entry, parsed once per entry (raises BadBody): what a peer
    checks an entry with before it holds, applies, stores or relays it."""
    return body_of(entry, SPECS[entry.entry_kind])


def purpose(kind: EntryKind, turn: int, wire_body: Any) -> str | None:
    """What one of our entries is for, from its kind, envelope turn and wire body: two of
    ours with the same purpose would be one answer posted twice, and a resumed peer knows
    by it what it posted before a crash. None for the kinds posted any number of times."""
    if kind is EntryKind.MOVE or kind is EntryKind.CHAT:
        return None
    if kind is EntryKind.ACTION or kind is EntryKind.ACK:
        return f"{kind.value}:{turn}"  # one action, one answer per turn
    if kind is EntryKind.DECK:
        return f"{kind.value}:{purpose_of_wire(wire_body)}"  # by the messages it holds
    if kind is EntryKind.ABANDON:  # a vote once, and once the vote that ends the game
        end = isinstance(wire_body, dict) and wire_body.get("end") is True
        return f"{kind.value}:{'end' if end else 'vote'}"
    if kind is EntryKind.LOBBY_JOIN and isinstance(wire_body, dict):
        # once per name and address: a joiner may ask again under a new name, or from a new
        # address after the host removed it (SPEC 5.3), but never repeats a request
        return f"{kind.value}:{wire_body.get('name')!r}:{wire_body.get('addr')!r}"
    return kind.value  # once: the table, the seating, a resign, a seed


@dataclass(frozen=True, slots=True)
class Post:
    """One of our entries before it is signed: its kind, envelope turn and typed body."""

    kind: EntryKind
    turn: int
    body: b.Body

    def wire(self) -> tuple[str, int, Any]:
        """(kind, turn, body) as they are signed: the kind's string, the body's wire form."""
        return (self.kind.value, self.turn, self.body.to_wire())


Place = tuple[int, int, bytes, int]


def place(entry: Entry) -> Place:
    """Where an entry sits in the game, from its content alone: (turn, step of its kind,
    author, seq). The replica retries held entries in this order and the verifier names
    the first bad entry by it."""
    return (entry.turn, step_of(entry.kind), entry.author, entry.seq)


__all__ = [
    "ABANDON", "ACK", "ACTION", "CHAT", "DECK", "LOBBY_JOIN", "LOBBY_SEAT", "MOVE", "RESIGN",
    "SEED", "SPECS", "TABLE_OPEN", "UNKNOWN_STEP", "KindSpec", "Place", "Post", "Stage", "body_of",
    "parse_body", "parse_entry", "place", "purpose", "spec_of", "step_of",
]
