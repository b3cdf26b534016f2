"""What every stage of the table session shares: its state, its queries, its outbox.

The session (``TableSession``, session/table.py) is one class built in stages, one module
each, every stage a subclass of the one before: ``SessionBase`` (this module: the state,
the queries, the outbox and events, the phase), ``LobbyStage`` (session/lobby.py),
``DeckStage`` (session/dealing.py), ``TurnStage`` (session/turns.py), ``EndStage``
(session/end.py), and ``TableSession`` itself, which takes entries in and hands each to
the stage of its kind. A stage calls the stages before it directly; the few calls forward,
to a later stage, are declared here and defined there.

The phase changes only in ``_advance``, through the table of session/phase.py.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from hanabi_p2p import refusals as rf
from hanabi_p2p.deck import DeckMessage
from hanabi_p2p.deck.messages import OwnerKey, PublicKey, SharedKeys
from hanabi_p2p.errors import LocalProtocolError, RemoteProtocolError
from hanabi_p2p.identity import display_name
from hanabi_p2p.log.entry import Entry, EntryKind, Signer
from hanabi_p2p.rules.actions import Discard, Play
from hanabi_p2p.rules.cards import Card, GameConfig
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.session import bodies as b
from hanabi_p2p.session import deckio
from hanabi_p2p.session import events as ev
from hanabi_p2p.session import kinds as k
from hanabi_p2p.session.kinds import Place, Post
from hanabi_p2p.session.pace import SidePosts
from hanabi_p2p.session.phase import START, Phase, Trigger, next_phase

_B = TypeVar("_B", bound=b.Body)  # a typed body, of the kind its entry is posted as


def turn_label(turn: int) -> str:
    """Turns as people count them (1-based), in every message."""
    return f"turn {turn + 1}"


class GameFault(RemoteProtocolError):
    """A seated peer sent a signed entry that breaks the game; the game cannot go on."""


@dataclass
class PendingTurn:
    """A play or discard whose card face is not yet known to everyone."""

    turn: int
    action: Play | Discard


@dataclass(frozen=True, slots=True)
class TurnReveals:
    """What the action of a turn called for, so that its answers can be checked exactly."""

    actor: int
    card: int | None  # played or discarded card (None for a clue)
    draw: int | None  # position drawn to replace it (None for a clue or an empty deck)


MessageKey = tuple[Any, ...]


def message_key(message: DeckMessage) -> MessageKey:
    """A deck message by what it reveals: kind, position and (for shares) owner."""
    if isinstance(message, SharedKeys):
        return (message.KIND, message.position, message.owner)
    if isinstance(message, OwnerKey | PublicKey):
        return (message.KIND, message.position)
    return (message.KIND,)


class SessionBase:
    """The game as one peer sees it: the state and what every stage needs."""

    def __init__(
        self,
        author: Signer,
        table_id: bytes,
        *,
        seed: bytes,
        host_id: bytes | None = None,
        known_faces: dict[int, Card] | None = None,
        audit_at_end: bool = True,
        watching: bool = False,
        old_deck_groups: bool = False,
        public_only: bool = False,
    ) -> None:
        """``known_faces``: for an observer (not seated: the log verifier), every card's face
        as the deck audit decoded it, so turns can be checked in full. ``audit_at_end``:
        False for a verifier that audits the whole transcript itself afterwards.
        ``watching``: a spectator following a live game (never seated, never posting): it
        decodes what its keys open and stops where the players stop.
        ``old_deck_groups``: the log verifier only: accept a 0.2.0 table (edwards25519
        deck); a live peer plays ristretto255 tables alone (SPEC 5.1 `group`).
        ``public_only``: the log verifier of a game whose faces are not all known (a seed
        is missing): it checks the turns as far as public reveals go, decoding the cards
        played and discarded as a spectator does and taking a clue's touched cards as
        named, and, like any verifier, never stops on a seed."""
        self.author = author
        self.watching = watching
        # decodes only what is public (and a spectator's keys), as a spectator does
        self._spectator_view = watching or public_only
        self._old_deck_groups = old_deck_groups
        # a spectator's keys that came before the seating: peer -> position -> k
        self._early_watch_keys: dict[bytes, dict[int, bytes]] = {}
        self._known_faces = known_faces
        self._audit_at_end = audit_at_end
        self.me = author.peer_id
        self.table_id = table_id
        self.host_id = host_id  # None until table.open tells us (a joiner by address)
        self._seed = seed
        self._phase = START  # changed by `_advance` alone
        self.table: b.TableOpen | None = None
        # each joiner's latest request for a seat, in the order of their first one
        self.joins: dict[bytes, b.LobbyJoin] = {}
        # every request for a seat by (author, seq), and the seq of each joiner's latest: a
        # seating names the one it repeats (SPEC 5.1 `lobby.seat`)
        self.join_history: dict[tuple[bytes, int], b.LobbyJoin] = {}
        self.join_seq: dict[bytes, int] = {}
        self.first_join_seq: dict[bytes, int] = {}
        self.seats: tuple[b.Seat, ...] = ()
        self.my_seat: int | None = None
        self.deck: deckio.DeckAdapter | None = None
        self.state: GameState | None = None
        self.pending: PendingTurn | None = None
        # turn -> seat -> state hash at the start of that turn, as each peer reported it
        self.reported_hashes: dict[int, dict[int, bytes]] = {}
        self.my_hashes: dict[int, bytes] = {}
        # the turn that began and whose hash is not computed yet (see `_my_hash`)
        self._hash_due: int | None = None
        self.turn_reveals: dict[int, TurnReveals] = {}
        # turn -> the hash of the action entry we applied for it: what an ack answers and a
        # later action follows (SPEC 5.1 `answers`, `after`)
        self.turn_actions: dict[int, bytes] = {}
        # the first turn whose action we saw answered in another version (a fork by its
        # actor): what came after it on the other branch stays out of our transcript
        self._fork_turn: int | None = None
        self.dealt_by: set[int] = set()  # seats whose deal entry is applied
        self.seeds_from: set[int] = set()
        self.audit: deckio.AuditResult | None = None
        self._audited_messages = 0  # transcript length the audit covered
        self.abort_reason: str | None = None
        self.blamed: bytes | None = None
        self.chat_log: list[tuple[int, str]] = []  # (seat or -1, text), in place order
        self._chat_places: list[Place] = []
        self._posted: set[str] = set()  # purposes of entries already in our chain
        self.side_posts = SidePosts()  # moves and chat lines per author this turn
        self._resign_reason: str | None = None
        # ending by agreement (SPEC 5.3): the seats whose vote is applied, whether we want
        # it, and the turn at which the game ended so (None while it has not)
        self.abandon_votes: set[int] = set()
        self._abandon_wanted = False
        self.abandoned_at: int | None = None
        self._outbox: list[Post] = []  # our entries not yet signed
        self._events: list[ev.Event] = []

    @property
    def config(self) -> GameConfig | None:
        return self.table.config if self.table else None

    @property
    def observer(self) -> bool:
        """Not seated: watches (the log verifier, a joiner left without a seat)."""
        return self.my_seat is None

    def seated_join(self, seat: b.Seat) -> b.LobbyJoin | None:
        """The request for a seat a seat repeats: the one it names, else the joiner's first
        (None while it is not applied)."""
        seq = seat.join if seat.join is not None else self.first_join_seq.get(seat.peer_id)
        return None if seq is None else self.join_history.get((seat.peer_id, seq))

    def seat_of(self, peer_id: bytes) -> int | None:
        for i, seat in enumerate(self.seats):
            if seat.peer_id == peer_id:
                return i
        return None

    def name_of(self, seat: int) -> str:
        return self.seats[seat].name

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    @property
    def turn(self) -> int:
        return self.state.turn if self.state else 0

    @property
    def phase(self) -> Phase:
        """Where the game is (changed by ``_advance`` alone)."""
        return self._phase

    def my_turn(self) -> bool:
        """Our seat is to act and has not acted yet (a peer may send its action before it
        applies it: see ``PeerCore._send_first``)."""
        return (
            self.phase == Phase.PLAY
            and self.state is not None
            and self.pending is None
            and not self.state.over
            and self.state.current_seat == self.my_seat
            and k.purpose(EntryKind.ACTION, self.state.turn, None) not in self._posted
        )

    @property
    def asked_to_abandon(self) -> bool:
        """We asked to end the game by agreement, or agreed to it (SPEC 5.3)."""
        return self._abandon_wanted

    def can_act(self) -> bool:
        """It is our turn and we see every card we are entitled to see (clues need faces)."""
        return self.my_turn() and not self._undecoded_others_cards()

    def deck_checks_pending(self) -> bool:
        """Some deck proof checks have not passed yet (the shell's threads are running
        them, just after the deal). A play or a discard now (its draw is a card beyond the
        deal) would first wait for them on the event loop (SPEC §2.8): a computer player,
        which may choose when to act, waits for them instead."""
        return self.deck is not None and self.deck.checks_pending

    def _undecoded_others_cards(self) -> list[int]:
        """Cards in the other players' hands whose faces we have not decoded yet."""
        state = self.state
        if state is None:
            return []
        return [
            card
            for seat, hand in enumerate(state.hands)
            if seat != self.my_seat
            for card in hand
            if state.faces[card] is None
        ]

    def take_posts(self) -> list[Post]:
        """Entries this peer must sign, store, apply and broadcast, with typed bodies."""
        self._hash_the_turn_start()  # due by now: see `_after_turn`
        out, self._outbox = self._outbox, []
        return out

    def take_outbox(self) -> list[tuple[str, int, Any]]:
        """``take_posts`` as (kind, turn, wire body), the form they are signed in."""
        return [post.wire() for post in self.take_posts()]

    @property
    def has_outbox(self) -> bool:
        return bool(self._outbox)

    def take_events(self) -> list[ev.Event]:
        out, self._events = self._events, []
        return out

    def _check_side_post(self, kind: EntryKind) -> None:
        """Refuse, before it is signed, a move or chat line of ours over the turn's limit
        (session/pace.py): peers would take it for a fault of ours."""
        refusal = self.side_posts.refusal(self.me, kind, [p.kind for p in self._outbox])
        if refusal is not None:
            raise refusal

    def _post(self, spec: k.KindSpec[_B], body: _B, turn: int | None = None) -> None:
        """Queue one of our entries (for the current turn unless ``turn`` says), once per
        purpose (``kinds.purpose``: so a resumed peer never posts twice)."""
        turn = 0 if spec.turn_zero else self.turn if turn is None else turn
        purpose = k.purpose(spec.kind, turn, body.to_wire())
        if purpose is not None:
            if purpose in self._posted:
                return
            self._posted.add(purpose)
        self._outbox.append(Post(spec.kind, turn, body))

    def _post_deck(self, msgs: list[Any]) -> None:
        body = b.DeckBody(tuple(msgs))
        self._post(k.DECK, body)

    @property
    def _names_actions(self) -> bool:
        """Our acks and actions name the action they answer or follow: at every table of
        protocol 4 (one that names its deck group); a 0.2.0 table's bodies never did."""
        return self.table is not None and self.table.deck_group is b.LIVE_DECK_GROUP

    def _forked_turn(self, entry: Entry, body: b.Body) -> int | None:
        """The turn whose action this ack answers (or the action before this action) in a
        version we do not hold, if any: its actor signed two (a fork). Not the entry's
        author's fault: it waits (the fork is proven within a sync interval, SPEC 4.6) and
        is taken without being played once the game is stopped (SPEC 5.5)."""
        if isinstance(body, b.AckBody):
            turn, named = entry.turn, body.answers
        elif isinstance(body, b.ActionBody):
            turn, named = entry.turn - 1, body.after
        else:
            return None
        held = self.turn_actions.get(turn)
        return turn if named is not None and held is not None and held != named else None

    def _advance(self, trigger: Trigger) -> None:
        """The one place the phase changes: by the table of session/phase.py."""
        self._phase = next_phase(self._phase, trigger)

    def _seat_or_fault(self, entry: Entry) -> int:
        seat = self.seat_of(entry.author)
        if seat is None:
            raise GameFault(self._who(entry), "is not seated at this table")
        return seat

    def _decode_deck(self, entry: Entry, wire: Iterable[Any]) -> list[DeckMessage]:
        return self._require_deck().decode(self._seat_or_fault(entry), wire)

    def _expect(self, entry: Entry, msgs: Sequence[DeckMessage], want: list[MessageKey],
                what: str) -> None:
        """The entry's deck messages must reveal exactly `want` (any order): a reveal missing
        or one the game never called for is its author's fault (SPEC 5.5)."""
        got = Counter(message_key(m) for m in msgs)
        if got != Counter(want):
            raise GameFault(self._who(entry), f"{what}: its key shares are not the ones the "
                            f"game calls for (expected {_keys_text(want)}, got "
                            f"{_keys_text(list(got.elements()))})")

    def _hash_the_turn_start(self) -> None:
        """Compute the hash of the turn that began, if it is still due: before anything
        changes the state it is the hash of."""
        if self._hash_due is not None:
            self._my_hash(self._hash_due)

    def _my_hash(self, turn: int) -> bytes | None:
        """Our state hash at the start of ``turn`` (None if we never saw that turn begin)."""
        due = self._hash_due
        if due is not None and due == turn:
            state = self._require_state()
            assert state.turn == due  # nothing applied a turn since: see `_after_turn`
            self.my_hashes[due] = state.public_hash()
            self._hash_due = None
        return self.my_hashes.get(turn)

    def _record_hash(self, turn: int, seat: int, digest: bytes) -> None:
        self.reported_hashes.setdefault(turn, {})[seat] = digest

    def describe(self, peer_id: bytes) -> str:
        """How a peer is named in every message: "Name (K7QF-2M9D)"."""
        return display_name(self.author_name(peer_id) or "unknown player", peer_id)

    def author_name(self, peer_id: bytes) -> str:
        """The name a player goes by at this table: its seat's, else its request for a seat's
        (a joiner in the lobby), else the host's of the table; "" for anyone else."""
        seat = self.seat_of(peer_id)
        join = self.joins.get(peer_id)
        if seat is not None:
            return self.seats[seat].name
        if join is not None:
            return join.name
        if self.table is not None and peer_id == self.host_id:
            return self.table.host_name
        return ""

    def _who(self, entry: Entry) -> str:
        return self.describe(entry.author)

    def _require_state(self) -> GameState:
        if self.state is None:
            raise rf.GameNotStarted()
        return self.state

    def _require_deck(self) -> deckio.DeckAdapter:
        if self.deck is None:
            raise LocalProtocolError("the deck protocol has not started")
        return self.deck

    def _require_seat(self) -> int:
        if self.my_seat is None:
            raise rf.NotSeated()
        return self.my_seat

    # ------------------------------------------------------------ forward calls

    def abort(self, peer: bytes | None, reason: str) -> None:
        """Stop the game for good, blaming ``peer`` (the end stage's: session/end.py)."""
        raise NotImplementedError

    def _try_resolve(self) -> None:
        """Take up the pending turn if its card is known (the turn stage's)."""
        raise NotImplementedError

    def _audit_if_complete(self) -> None:
        """Audit the deck once every seed is in (the end stage's)."""
        raise NotImplementedError


def _keys_text(keys: list[MessageKey]) -> str:
    if not keys:
        return "none"
    return ", ".join(
        f"{key[0].removeprefix('deck.')}({', '.join(str(k) for k in key[1:])})"
        for key in sorted(keys)
    )
