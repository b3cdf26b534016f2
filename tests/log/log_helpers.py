"""Shared pieces for the log tests: fixed identities, entry chains and a toy application."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hanabi_p2p.errors import IllegalAction
from hanabi_p2p.identity import Identity
from hanabi_p2p.log import canonical
from hanabi_p2p.log.entry import ZERO_HASH, Entry, make_entry

# RFC 8032 section 7.1 test keys 1 and 2, and one more: published values that other
# implementations can check our known-answer vectors against.
ALICE = Identity.from_seed(
    bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
)
BOB = Identity.from_seed(
    bytes.fromhex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb")
)
CAROL = Identity.from_seed(bytes(range(32)))
DAVE = Identity.from_seed(bytes(range(1, 33)))
TABLE = bytes(range(16))
OTHER_TABLE = bytes(range(100, 116))


class Author:
    """Signs one author's chain in order, keeping seq and prev right."""

    def __init__(self, identity: Identity, table_id: bytes = TABLE) -> None:
        self.identity = identity
        self.table_id = table_id
        self.seq = 0
        self.prev = ZERO_HASH

    @property
    def peer_id(self) -> bytes:
        return self.identity.peer_id

    def write(self, kind: str, body: Any = None, turn: int = 0) -> Entry:
        entry = make_entry(
            self.identity,
            table_id=self.table_id,
            seq=self.seq,
            prev=self.prev,
            turn=turn,
            kind=kind,
            body=body,
        )
        self.seq += 1
        self.prev = entry.hash
        return entry


@dataclass
class ToyApp:
    """A tiny turn-based game with the shape of the real session.

    table.open (anyone, first) -> lobby.join (any peer) -> lobby.seat by the opener, listing
    peers who joined -> actions strictly in turn order by the seat to move -> chat at any
    time after seating (kept as a set: chats commute). An action with {"illegal": True} is
    refused, like an illegal move.
    """

    host: bytes | None = None
    joined: set[bytes] = field(default_factory=set)
    seats: list[bytes] | None = None
    turn: int = 0
    actions: list[tuple[int, bytes, Any]] = field(default_factory=list)
    chats: set[tuple[bytes, int, str]] = field(default_factory=set)

    def allowed_authors(self) -> frozenset[bytes] | None:
        return None if self.seats is None else frozenset(self.seats)

    def ready(self, entry: Entry) -> bool:
        if entry.kind == "table.open":
            return True
        if self.host is None:
            return False
        if entry.kind == "lobby.join":
            return True
        if entry.kind == "lobby.seat":
            return self.seats is None and set(entry.body["seats"]) <= self.joined | {self.host}
        if self.seats is None:
            return False
        if entry.kind == "action":
            return entry.turn == self.turn
        return entry.turn <= self.turn  # chat: not about the future

    def apply(self, entry: Entry) -> None:
        if entry.kind == "table.open":
            if self.host is not None:
                raise IllegalAction("table already open")
            self.host = entry.author
        elif entry.kind == "lobby.join":
            if self.seats is not None:
                raise IllegalAction("seating is decided")
            self.joined.add(entry.author)
        elif entry.kind == "lobby.seat":
            if entry.author != self.host:
                raise IllegalAction("only the host seats players")
            self.seats = list(entry.body["seats"])
        elif entry.kind == "action":
            assert self.seats is not None
            if entry.author != self.seats[self.turn % len(self.seats)]:
                raise IllegalAction("not your turn")
            if isinstance(entry.body, dict) and entry.body.get("illegal"):
                raise IllegalAction("that move is illegal")
            self.actions.append((self.turn, entry.author, entry.body))
            self.turn += 1
        elif entry.kind == "chat":
            self.chats.add((entry.author, entry.turn, entry.body))
        else:
            raise IllegalAction(f"toy app does not know {entry.kind}")

    def state_bytes(self) -> bytes:
        """The replicated state, canonically encoded: equal bytes = equal state."""
        return canonical.pack(
            [
                self.host,
                self.seats,
                self.turn,
                [list(a) for a in self.actions],
                sorted([list(c) for c in self.chats]),
            ]
        )


def play_script(
    identities: list[Identity], turns: int, chats: Sequence[tuple[int, int]] = ()
) -> list[Entry]:
    """An honest game log in creation order: open, joins, seating, ``turns`` actions, and
    ``chats`` as (turn, player index) pairs said during that turn."""
    authors = [Author(i) for i in identities]
    host, others = authors[0], authors[1:]
    out = [host.write("table.open", {"name": "toy"})]
    out += [a.write("lobby.join", {"name": f"p{i}"}) for i, a in enumerate(others, 1)]
    out.append(host.write("lobby.seat", {"seats": [a.peer_id for a in authors]}))
    pending = sorted(chats)
    for turn in range(turns + 1):
        while pending and pending[0][0] == turn:
            _, who = pending.pop(0)
            out.append(authors[who % len(authors)].write("chat", f"hi at {turn}", turn))
        if turn < turns:
            actor = authors[turn % len(authors)]
            out.append(actor.write("action", {"n": turn}, turn))
    return out
