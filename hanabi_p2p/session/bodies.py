"""Entry bodies of the game: their wire form and their validation.

Every body is a msgpack map with short str keys (the log layer sorts them canonically).
Decoding a body from a peer validates types, sizes and ranges and raises ``BadBody`` (a
``RemoteProtocolError``) naming the field, and nothing else: whatever a peer sends, a parser
returns a typed value or raises that one error (tests/session/test_bodies_fuzz.py holds
every kind to it). Nothing else ever reads an unvalidated body. Game legality (whose turn,
which cards) is checked later by the session against the rules engine.

Text rules are defined by fixed code point sets, not by a language's string methods, so a
client in another language checks exactly the same (protocol/SPEC.md 5.1).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

from hanabi_p2p.errors import RemoteProtocolError, UserError
from hanabi_p2p.limits import (
    MAX_CHAT_CHARS,
    MAX_PLAYER_NAME_CHARS,
    MAX_PORT,
    MAX_REASON_CHARS,
    MAX_SEQ,
    MAX_TABLE_NAME_CHARS,
    PEER_ID_BYTES,
)
from hanabi_p2p.limits import MAX_PLAYERS as MAX_SEATS
from hanabi_p2p.limits import MIN_PLAYERS as MIN_SEATS
from hanabi_p2p.log.entry import EntryKind
from hanabi_p2p.rules.actions import Clue, Discard, Play, TurnAction
from hanabi_p2p.rules.cards import OPTION_NAMES, RANKS, GameConfig, Suit, Variant

MAX_HOST_LEN = 64
MAX_DECK_MSGS = 128  # one deal entry carries at most 5 hands x 5 cards of shares, plus slack
MAX_CARD_ID = 59  # largest deck is 60 cards
HASH_LEN = 32
MAX_TOUCHED = 6  # a hand holds at most 5 cards; one slack as the wire format always had
MAX_OPTIONS = len(OPTION_NAMES)
MAX_SLOT = 4  # hands hold at most 5 cards

_T = TypeVar("_T")


# The Unicode White_Space property (PropList.txt; stable since Unicode 6.3): a text made of
# these only counts as empty. Written out so that no language's notion of "space" decides.
WHITE_SPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
# Control characters no text may hold: C0 except TAB (line structure of every display).
# Other controls are legal on the wire; every display sanitises peer text (safe_text).
_CONTROL_RANGES = ((0x00, 0x08), (0x0A, 0x1F))
# What a table name may not hold besides those (it is shown in adverts and headers): line
# and paragraph separators, bidirectional and other invisible format controls. Fixed ranges
# (a subset of general category Cf/Zl/Zp that is stable across Unicode versions).
_INVISIBLE_RANGES = (
    (0x00AD, 0x00AD), (0x061C, 0x061C), (0x180E, 0x180E), (0x200B, 0x200F),
    (0x2028, 0x202E), (0x2060, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB),
)


class BadBody(RemoteProtocolError):
    """An entry body does not have the fields, types or ranges its kind requires. From a
    peer it is that peer's fault (the session names the author); the local commands turn
    it into a ``UserError`` (a value the user must change)."""

    def __init__(self, reason: str, peer: str = "unknown author") -> None:
        super().__init__(peer, reason)
        self.args = (reason,)  # str(exc) is the reason: the caller knows who sent it


def local_value(check: Callable[[], _T]) -> _T:
    """Run a body check on a value the user typed: a failure is the user's to fix."""
    try:
        return check()
    except BadBody as exc:
        raise UserError(exc.reason) from None


def _in_ranges(char: str, ranges: tuple[tuple[int, int], ...]) -> bool:
    code = ord(char)
    return any(lo <= code <= hi for lo, hi in ranges)


def is_blank(text: str) -> bool:
    """Empty, or only White_Space characters."""
    return all(c in WHITE_SPACE for c in text)


def _map(
    body: Any, kind: EntryKind, keys: set[str], optional: set[str] | None = None
) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise BadBody(f"{kind}: body must be a map")
    allowed = keys | (optional or set())
    extra = [k for k in body if k not in allowed]  # keys may be anything hashable
    missing = keys - set(body)
    if extra:
        raise BadBody(f"{kind}: unexpected field(s) {sorted(map(repr, extra))}")
    if missing:
        raise BadBody(f"{kind}: missing field(s) {sorted(missing)}")
    return body


def _str(value: Any, what: str, max_len: int, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        raise BadBody(f"{what} must be text")
    if len(value) > max_len:
        raise BadBody(f"{what} longer than {max_len} characters")
    if not allow_empty and is_blank(value):
        raise BadBody(f"{what} must not be empty")
    if any(_in_ranges(c, _CONTROL_RANGES) for c in value):
        raise BadBody(f"{what} contains control characters")
    return value


def _name(value: Any, what: str, max_len: int) -> str:
    text = _str(value, what, max_len)
    if any((c != " " and c in WHITE_SPACE) or _in_ranges(c, _INVISIBLE_RANGES) for c in text):
        raise BadBody(f"{what} must be printable (no tabs, line breaks or invisible marks)")
    return text


def spectator_name(value: Any) -> str:
    """The name a spectator gives itself (SPEC 4.8): the rules of a table name, as short as
    a player's name."""
    return _name(value, "spectator name", MAX_PLAYER_NAME_CHARS)


def _enum_text(value: Any, what: str, allowed: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise BadBody(f"unknown {what} {value!r}"[:MAX_REASON_CHARS])
    return value


def _int(value: Any, what: str, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise BadBody(f"{what} must be an integer from {lo} to {hi}")
    return value


def _bytes(value: Any, what: str, length: int) -> bytes:
    if not isinstance(value, bytes) or len(value) != length:
        raise BadBody(f"{what} must be {length} bytes")
    return value


def _list(value: Any, what: str, max_len: int) -> list[Any]:
    if not isinstance(value, list | tuple) or len(value) > max_len:
        raise BadBody(f"{what} must be a list of at most {max_len} items")
    return list(value)


# ---------------------------------------------------------------- lobby


# The longest turn timer a table may set (a day): longer is no timer at all.
MAX_TURN_TIMER_S = 86400
# The longest total clock a table may give each player (a day, as the turn timer).
MAX_TOTAL_CLOCK_S = 86400


class TableOption(StrEnum):
    """How the table is run, beyond the rules (SPEC 5.1 `table`): agreed by everyone who sits
    down, since every player sees them in the lobby before the game starts."""

    HINTS = "hints"  # `hint` (our computer player's advice) works at this table
    SPECTATORS = "spectators"  # seated peers give spectators their key shares: hands visible


# The wire order of table options (each at most once, in this order: one encoding per table).
TABLE_OPTION_ORDER: tuple[TableOption, ...] = tuple(TableOption)


class DeckGroupName(StrEnum):
    """The group the table's deck runs in (SPEC 5.1 `group`, SPEC 1 "Group")."""

    RISTRETTO255 = "ristretto255"  # every table of protocol 3: `group` names it
    EDWARDS25519 = "edwards25519"  # a 0.2.0 table (protocol 2): its table.open has no `group`


# What this program opens and joins; the older group is only ever verified and replayed.
LIVE_DECK_GROUP = DeckGroupName.RISTRETTO255


@dataclass(frozen=True, slots=True)
class TableOpen:
    name: str
    host_name: str
    config: GameConfig
    table_options: frozenset[TableOption] = field(default_factory=frozenset)
    deck_group: DeckGroupName = LIVE_DECK_GROUP
    # seconds a player's turn may last before every other peer ends the game "timed out",
    # nobody blamed (SPEC 5.6); None: a thinking player is never timed out
    turn_timer: int | None = None
    # seconds each player has for all its turns together (a chess clock without increment):
    # once a player's turns have lasted longer, the game ends "timed out" (SPEC 5.6)
    total_clock: int | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "name": self.name,
            "host": self.host_name,
            "players": self.config.players,
            "variant": self.config.variant.value,
            "options": list(self.config.options),
        }
        # absent when empty, so a table without them encodes as it always did
        if self.table_options:
            wire["table"] = [o.value for o in TABLE_OPTION_ORDER if o in self.table_options]
        # edwards25519 is said by leaving `group` out: a 0.2.0 table encodes as it always did
        if self.deck_group is not DeckGroupName.EDWARDS25519:
            wire["group"] = self.deck_group.value
        if self.turn_timer is not None:  # (absent without one: as every table before it)
            wire["timer"] = self.turn_timer
        if self.total_clock is not None:  # (likewise)
            wire["clock"] = self.total_clock
        return wire

    @classmethod
    def from_wire(cls, body: Any) -> TableOpen:
        m = _map(body, EntryKind.TABLE_OPEN, {"name", "host", "players", "variant", "options"},
                 optional={"table", "group", "timer", "clock"})
        options = [
            _enum_text(o, "option", OPTION_NAMES)
            for o in _list(m["options"], "options", MAX_OPTIONS)
        ]
        # each option once, in OPTION_NAMES order: one table has one encoding
        if options != [o for o in OPTION_NAMES if o in options]:
            raise BadBody("options must be listed once each, in the order of the protocol")
        table_options: list[TableOption] = []
        if "table" in m:
            names = [_enum_text(o, "table option", [t.value for t in TABLE_OPTION_ORDER])
                     for o in _list(m["table"], "table", len(TABLE_OPTION_ORDER))]
            table_options = [TableOption(n) for n in names]
            if not table_options or table_options != [
                    o for o in TABLE_OPTION_ORDER if o in table_options]:
                raise BadBody("table options must be listed once each, in the order of the "
                              "protocol (and the list left out when empty)")
        # one encoding per table: edwards25519 only by absence (the 0.2.0 form)
        deck_group = (DeckGroupName(_enum_text(m["group"], "deck group",
                                               [DeckGroupName.RISTRETTO255.value]))
                      if "group" in m else DeckGroupName.EDWARDS25519)
        variant = _enum_text(m["variant"], "variant", [v.value for v in Variant])
        players = _int(m["players"], "players", MIN_SEATS, MAX_SEATS)
        return cls(
            name=_name(m["name"], "table name", MAX_TABLE_NAME_CHARS),
            host_name=_str(m["host"], "host name", MAX_PLAYER_NAME_CHARS),
            config=GameConfig.from_names(players, variant, options),
            table_options=frozenset(table_options),
            deck_group=deck_group,
            turn_timer=(_int(m["timer"], "turn timer", 1, MAX_TURN_TIMER_S)
                        if "timer" in m else None),
            total_clock=(_int(m["clock"], "total clock", 1, MAX_TOTAL_CLOCK_S)
                         if "clock" in m else None),
        )


@dataclass(frozen=True, slots=True)
class Address:
    host: str
    port: int

    def to_wire(self) -> list[Any]:
        return [self.host, self.port]

    @classmethod
    def from_wire(cls, value: Any) -> Address:
        v = _list(value, "address", 2)
        if len(v) != 2:
            raise BadBody("address must be [host, port]")
        return cls(_str(v[0], "address host", MAX_HOST_LEN), _int(v[1], "port", 1, MAX_PORT))


@dataclass(frozen=True, slots=True)
class LobbyJoin:
    name: str
    address: Address
    # A computer player says so, and on whose machine it runs: the peer id of that player
    # (whose machine then holds its keys too), or b"" for a machine of its own. None: a
    # person. Informational: everyone at the table sees it.
    runner: bytes | None = None

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "addr": self.address.to_wire()}
        if self.runner is not None:
            out["bot"] = self.runner
        return out

    @classmethod
    def from_wire(cls, body: Any) -> LobbyJoin:
        m = _map(body, EntryKind.LOBBY_JOIN, {"name", "addr"}, optional={"bot"})
        runner = m.get("bot")
        if runner is not None and not (
            isinstance(runner, bytes) and len(runner) in (0, PEER_ID_BYTES)
        ):
            raise BadBody(f"bot must be empty or a {PEER_ID_BYTES}-byte peer id")
        return cls(_str(m["name"], "player name", MAX_PLAYER_NAME_CHARS),
                   Address.from_wire(m["addr"]), runner)


@dataclass(frozen=True, slots=True)
class Seat:
    peer_id: bytes
    name: str
    address: Address
    # the seq of the joiner's `lobby.join` this seat repeats, when not its first (a joiner
    # may ask again under another name before the seating); None, and nothing on the wire,
    # for its first request, so a seating of joiners who asked once is encoded as before
    # (SPEC 5.1)
    join: int | None = None


@dataclass(frozen=True, slots=True)
class LobbySeat:
    """The host's final seating: seat order is turn order. After it the host has no say."""

    seats: tuple[Seat, ...]

    def to_wire(self) -> dict[str, Any]:
        return {
            "seats": [[s.peer_id, s.name, *s.address.to_wire(),
                       *([] if s.join is None else [s.join])] for s in self.seats],
        }

    @classmethod
    def from_wire(cls, body: Any) -> LobbySeat:
        m = _map(body, EntryKind.LOBBY_SEAT, {"seats"})
        seats = []
        for raw in _list(m["seats"], "seats", MAX_SEATS):
            item = _list(raw, "seat", 5)
            if len(item) not in (4, 5):
                raise BadBody("seat must be [peer_id, name, host, port] or [..., join seq]")
            join = None
            if len(item) == 5:
                join = _int(item[4], "seat join seq", 1, MAX_SEQ)
            seats.append(
                Seat(
                    _bytes(item[0], "seat peer id", PEER_ID_BYTES),
                    _str(item[1], "seat name", MAX_PLAYER_NAME_CHARS),
                    Address.from_wire(item[2:4]),
                    join,
                )
            )
        if len(seats) < MIN_SEATS:
            raise BadBody(f"a table seats {MIN_SEATS} to {MAX_SEATS} players")
        if len({s.peer_id for s in seats}) != len(seats):
            raise BadBody("a player is seated twice")
        return cls(tuple(seats))


# ---------------------------------------------------------------- turn actions


def action_to_wire(action: TurnAction) -> list[Any]:
    if isinstance(action, Play):
        return ["play", action.card, action.announce.value if action.announce else None]
    if isinstance(action, Discard):
        return ["discard", action.card]
    if action.touched is None:
        raise ValueError("a clue sent to peers must list the cards it touches")
    if action.colour is not None:
        return ["clue", action.target, "colour", action.colour.value, sorted(action.touched)]
    return ["clue", action.target, "rank", action.rank, sorted(action.touched)]


def action_from_wire(value: Any, seat: int) -> TurnAction:
    """Decode an action taken by `seat` (the author's seat, never taken from the wire)."""
    v = _list(value, "action", 5)
    if not v or not isinstance(v[0], str):
        raise BadBody("action must start with its name")
    name = v[0]
    suits = [s.value for s in Suit]
    if name == "play" and len(v) == 3:
        announce = None
        if v[2] is not None:
            announce = Suit(_enum_text(v[2], "colour", suits))
        return Play(seat, _int(v[1], "card", 0, MAX_CARD_ID), announce)
    if name == "discard" and len(v) == 2:
        return Discard(seat, _int(v[1], "card", 0, MAX_CARD_ID))
    if name == "clue" and len(v) == 5:
        target = _int(v[1], "clue target", 0, MAX_SEATS - 1)
        touched_list = [
            _int(c, "touched card", 0, MAX_CARD_ID) for c in _list(v[4], "touched", MAX_TOUCHED)
        ]
        touched = frozenset(touched_list)
        if len(touched) != len(touched_list) or touched_list != sorted(touched_list):
            raise BadBody("touched cards must be listed once each, in ascending order")
        if v[2] == "colour":
            colour = Suit(_enum_text(v[3], "colour", suits))
            return Clue(seat, target, colour=colour, touched=touched)
        if v[2] == "rank":
            return Clue(seat, target, rank=_int(v[3], "rank", RANKS[0], RANKS[-1]), touched=touched)
    raise BadBody(f"malformed {name[:MAX_REASON_CHARS]!r} action")


@dataclass(frozen=True, slots=True)
class ActionBody:
    """A turn action, with the author's state hash at the start of the turn and its deck
    messages (for a play/discard: its public key share of the card and its owner key for the
    replacement card, so a turn needs one round of messages only)."""

    action: TurnAction
    state_hash: bytes
    deck: tuple[Any, ...]
    # the hash of the entry of the previous turn's action, which this one follows (protocol
    # 4, SPEC 5.1): a peer holding another version of it learns of a fork, not a divergence
    after: bytes | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "act": action_to_wire(self.action),
            "hash": self.state_hash,
            "deck": list(self.deck),
        }
        if self.after is not None:
            wire["after"] = self.after
        return wire

    @classmethod
    def from_wire(cls, body: Any, seat: int) -> ActionBody:
        """The body of an action taken by ``seat`` (the author's seat, never on the wire)."""
        m = _map(body, EntryKind.ACTION, {"act", "hash", "deck"}, optional={"after"})
        after = m.get("after")
        return cls(
            action_from_wire(m["act"], seat),
            _bytes(m["hash"], "state hash", HASH_LEN),
            tuple(_list(m["deck"], "deck messages", MAX_DECK_MSGS)),
            None if after is None else _bytes(after, "action followed", HASH_LEN),
        )

    @classmethod
    def unseated(cls, body: Any) -> ActionBody:
        """The body parsed before its author's seat is known (the table of kinds parses every
        body alike): its action says seat 0 until ``for_seat`` names the author's."""
        return cls.from_wire(body, UNSEATED)

    def for_seat(self, seat: int) -> ActionBody:
        """The same body, its action taken by ``seat``."""
        if self.action.seat == seat:
            return self
        return dataclasses.replace(self, action=dataclasses.replace(self.action, seat=seat))


# The seat an action parsed by `ActionBody.unseated` says (any seat would do: it is replaced).
UNSEATED = 0


@dataclass(frozen=True, slots=True)
class AckBody:
    """A peer's answer to turn `turn`: its state hash at the start of that turn (so any
    divergence is noticed at once) and the deck shares the action needs from it."""

    state_hash: bytes
    deck: tuple[Any, ...]
    # the hash of the action entry it answers (protocol 4, SPEC 5.1): a peer holding another
    # version of that action learns of a fork by the actor, not of a fault of the acker
    answers: bytes | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"hash": self.state_hash, "deck": list(self.deck)}
        if self.answers is not None:
            wire["answers"] = self.answers
        return wire

    @classmethod
    def from_wire(cls, body: Any) -> AckBody:
        m = _map(body, EntryKind.ACK, {"hash", "deck"}, optional={"answers"})
        answers = m.get("answers")
        return cls(
            _bytes(m["hash"], "state hash", HASH_LEN),
            tuple(_list(m["deck"], "deck messages", MAX_DECK_MSGS)),
            None if answers is None else _bytes(answers, "action answered", HASH_LEN),
        )


@dataclass(frozen=True, slots=True)
class DeckBody:
    """A `deck` entry: its author's deck steps, or its shares of the deal."""

    msgs: tuple[Any, ...]

    def to_wire(self) -> dict[str, Any]:
        return {"deck": list(self.msgs)}

    @classmethod
    def from_wire(cls, body: Any) -> DeckBody:
        m = _map(body, EntryKind.DECK, {"deck"})
        return cls(tuple(_list(m["deck"], "deck messages", MAX_DECK_MSGS)))


@dataclass(frozen=True, slots=True)
class SeedBody:
    """The end-of-game seed reveal; after an abort also why its author stopped the game and
    whom it blames (a claim of the author, shown as such: it proves nothing by itself)."""

    deck: tuple[Any, ...]
    reason: str | None = None
    blame: bytes | None = None

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"deck": list(self.deck)}
        if self.reason is not None:
            out["reason"] = self.reason[:MAX_REASON_CHARS]
        if self.blame is not None:
            out["blame"] = self.blame
        return out

    @classmethod
    def from_wire(cls, body: Any) -> SeedBody:
        m = _map(body, EntryKind.SEED, {"deck"}, optional={"reason", "blame"})
        reason = m.get("reason")
        blame = m.get("blame")
        return cls(
            tuple(_list(m["deck"], "deck messages", MAX_DECK_MSGS)),
            # only a resign may give an empty reason: a seed's reason is there to be read
            None if reason is None else _str(reason, "reason", MAX_REASON_CHARS),
            None if blame is None else _bytes(blame, "blamed peer", PEER_ID_BYTES),
        )


@dataclass(frozen=True, slots=True)
class MoveBody:
    card: int
    to: int

    def to_wire(self) -> dict[str, Any]:
        return {"card": self.card, "to": self.to}

    @classmethod
    def from_wire(cls, body: Any) -> MoveBody:
        m = _map(body, EntryKind.MOVE, {"card", "to"})
        return cls(_int(m["card"], "card", 0, MAX_CARD_ID), _int(m["to"], "slot", 0, MAX_SLOT))


def clean_reason(text: str) -> str:
    """A reason of ours (often an error message) fit for a seed body: controls become
    spaces, cut to the limit, never empty."""
    cleaned = "".join(" " if _in_ranges(c, _CONTROL_RANGES) else c for c in text)
    cleaned = cleaned[:MAX_REASON_CHARS]
    return "stopped the game" if is_blank(cleaned) else cleaned


def chat_text(text: str) -> str:
    """Check table talk typed locally with the same rules peers apply (UserError)."""
    return local_value(lambda: _str(text, "message", MAX_CHAT_CHARS))


@dataclass(frozen=True, slots=True)
class ChatBody:
    """Table talk."""

    text: str

    def to_wire(self) -> dict[str, Any]:
        return {"text": self.text}

    @classmethod
    def from_wire(cls, body: Any) -> ChatBody:
        m = _map(body, EntryKind.CHAT, {"text"})
        return cls(_str(m["text"], "chat text", MAX_CHAT_CHARS))


@dataclass(frozen=True, slots=True)
class ResignBody:
    """A resignation, with its reason (which may be empty)."""

    reason: str

    def to_wire(self) -> dict[str, Any]:
        return {"reason": self.reason}

    @classmethod
    def from_wire(cls, body: Any) -> ResignBody:
        m = _map(body, EntryKind.RESIGN, {"reason"})
        return cls(_str(m["reason"], "reason", MAX_REASON_CHARS, allow_empty=True))


@dataclass(frozen=True, slots=True)
class AbandonBody:
    """A vote to end the game by agreement (SPEC 5.3). ``end``: the vote of the seat to
    move, in place of its action, once every other seat has voted: the game ends there."""

    end: bool

    def to_wire(self) -> dict[str, Any]:
        return {"end": self.end}

    @classmethod
    def from_wire(cls, body: Any) -> AbandonBody:
        m = _map(body, EntryKind.ABANDON, {"end"})
        if not isinstance(m["end"], bool):
            raise BadBody("end must be true or false")
        return cls(m["end"])


# Every typed body: what the table of kinds (session/kinds.py) parses an entry's body into.
Body = (TableOpen | LobbyJoin | LobbySeat | DeckBody | ActionBody | AckBody | MoveBody
        | ChatBody | ResignBody | SeedBody | AbandonBody)


def validate_body(kind: str, body: Any) -> None:
    """Check a body's shape for its kind (raises BadBody): the parser of its row in the
    table of kinds. (Kept for the peer core, which calls it on every entry a peer sends,
    before the entry is held, applied, stored or relayed; ``kinds.parse_entry`` does the
    same and keeps the typed body with the entry, so that it is parsed once.)"""
    from hanabi_p2p.session.kinds import parse_body  # (kinds imports this module)

    parse_body(kind, body)
