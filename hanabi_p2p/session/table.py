"""The table session: the sans-IO application that turns replicated log entries into a game.

One ``TableSession`` per peer. It is the ``app`` of the log's ``Replica``: the replica checks
signatures and chains and decides *when* an entry may apply (``ready``); the session checks
the game meaning of the entry (``apply``) and writes this peer's own answers into its outbox.
No sockets, clocks or threads: the shell feeds entries in and drains ``take_outbox()`` and
``take_events()``.

Message flow (every message is a signed log entry, broadcast to every peer):

* lobby: the host's ``table.open``; each joiner's ``lobby.join``; the host's ``lobby.seat``
  (seat order = turn order). After seating the host has no more say than anyone else.
* deck: every seated peer runs its ``DeckPeer`` (commit, shuffle, lock) through ``deck``
  entries, then publishes its shares of every dealt card in one ``deck`` entry (the deal).
* a turn ``t``: the player to move posts ``action`` (with its state hash at the start of ``t``
  and, for a play or discard, its public key share of the card and its owner key for the
  replacement card); every other peer answers with ``ack`` (its own state hash, its public
  share of the card, its share of the replacement for everyone but the owner). A play or
  discard resolves once every public share is in, so a turn costs one round of messages.
* end: every peer publishes its deck seed (``seed``); the audit recomputes the whole deck.

Determinism (protocol/SPEC.md 5.4). Every kind has one stage of the game where it applies
(``STAGE_OF_KIND``), and an entry's *place* — its envelope turn, its kind's step within a
turn, its author and seq (``place``) — is a function of its content alone. The replica
retries held entries in place order, and any two entries that can be ready at the same time
commute: public game state changes only through turn actions, applied strictly in turn
order; deck messages commute (the DeckPeer holds early ones); table talk is kept in place
order; hand reorders do not enter the state hash; an observer (the log verifier) never
stops on a seed. So every honest peer holding the same entries computes the same state,
and the verifier's verdict is a function of the set of entries (tests/session/
test_session_order.py permutes real games to show it).
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import Any

from hanabi_p2p.deck import DeckCheatError, DeckMessage
from hanabi_p2p.deck.messages import MAX_DECK_SIZE, OwnerKey, PublicKey, SeedReveal, SharedKeys
from hanabi_p2p.errors import IllegalAction, LocalProtocolError, RemoteProtocolError
from hanabi_p2p.identity import display_name
from hanabi_p2p.limits import MAX_PLAYERS, MAX_REASON_CHARS
from hanabi_p2p.log.entry import Entry, Signer
from hanabi_p2p.rules.actions import Clue, Discard, Move, Play, Terminate, TurnAction
from hanabi_p2p.rules.cards import Card, GameConfig
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.session import bodies as b
from hanabi_p2p.session import deckio
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.waiting import WaitKind


class Phase(StrEnum):
    """Where the game is, as this peer sees it."""

    LOBBY = "lobby"  # table open, players joining
    DECK = "deck"  # seated; the deck is being shuffled and locked
    PLAY = "play"  # dealt; turns
    OVER = "over"  # the game ended; seeds being collected
    AUDITED = "audited"  # every seed in, the deck audited
    ABORTED = "aborted"  # stopped for good (a fault, a player gone)


# The old module-level names stay: the peer and the UI compare phases with them.
LOBBY, DECK, PLAY, OVER, AUDITED, ABORTED = (
    Phase.LOBBY, Phase.DECK, Phase.PLAY, Phase.OVER, Phase.AUDITED, Phase.ABORTED,
)


class Stage(IntEnum):
    """The one stage of the game in which an entry kind may apply (SPEC 5.4)."""

    LOBBY = 0  # before seating: the table, requests for seats, the seating
    DECK = 1  # after seating: the deck steps; the deal once the deck is locked
    PLAY = 2  # once dealt: turns, answers, resignations, hand moves
    ANY = 3  # once the table is open: table talk
    END = 4  # seeds: at the end, or when their author leaves


STAGE_OF_KIND: dict[str, Stage] = {
    "table.open": Stage.LOBBY,
    "lobby.join": Stage.LOBBY,
    "lobby.seat": Stage.LOBBY,
    "deck": Stage.DECK,
    "action": Stage.PLAY,
    "ack": Stage.PLAY,
    "move": Stage.PLAY,
    "resign": Stage.PLAY,
    "chat": Stage.ANY,
    "seed": Stage.END,
}
# Kinds whose envelope turn MUST be 0: they belong to no game turn.
TURN_ZERO_KINDS = frozenset({"table.open", "lobby.join", "lobby.seat", "deck"})
# An entry's step within its turn, the second item of its place: the lobby in the order
# its entries depend on each other, then the deck, then a turn's resignation (at the start
# of the turn), its action, its answers, and what happens beside it.
STEP_OF_KIND: dict[str, int] = {
    kind: step
    for step, kind in enumerate(
        ["table.open", "lobby.join", "chat", "lobby.seat", "deck", "resign", "action", "ack",
         "move", "seed"]
    )
}
UNKNOWN_STEP = len(STEP_OF_KIND)
# Kinds a peer that stopped the game still applies in full; deck-carrying kinds only add
# their messages to the transcript (so the audit sees every message in the log).
AFTER_ABORT_KINDS = frozenset({"chat", "seed", "resign"})
# The deal's messages: what tells a deal entry from a deck-step entry.
DEAL_MESSAGE_KINDS = frozenset({OwnerKey.KIND, SharedKeys.KIND})
STEP_MESSAGE_KINDS = ("deck.commit", "deck.shuffle", "deck.lock")

Place = tuple[int, int, bytes, int]


def place(entry: Entry) -> Place:
    """Where an entry sits in the game, from its content alone: (turn, step of its kind,
    author, seq). The replica retries held entries in this order and the verifier names
    the first bad entry by it."""
    return (entry.turn, STEP_OF_KIND.get(entry.kind, UNKNOWN_STEP), entry.author, entry.seq)


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


def _message_key(message: DeckMessage) -> MessageKey:
    """A deck message by what it reveals: kind, position and (for shares) owner."""
    if isinstance(message, SharedKeys):
        return (message.KIND, message.position, message.owner)
    if isinstance(message, OwnerKey | PublicKey):
        return (message.KIND, message.position)
    return (message.KIND,)


class TableSession:
    """The game as one peer sees it. Feed it entries; read its state, outbox and events."""

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
        self.phase = Phase.LOBBY
        self.table: b.TableOpen | None = None
        self.joins: dict[bytes, b.LobbyJoin] = {}
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
        # the last action body parsed, with its entry and seat: an action's readiness check
        # and its application, one right after the other, parse it once
        self._parsed_action: tuple[Entry, int, b.ActionBody] | None = None
        self.turn_reveals: dict[int, TurnReveals] = {}
        self.dealt_by: set[int] = set()  # seats whose deal entry is applied
        self.seeds_from: set[int] = set()
        self.audit: deckio.AuditResult | None = None
        self._audited_messages = 0  # transcript length the audit covered
        self.abort_reason: str | None = None
        self.blamed: bytes | None = None
        self.chat_log: list[tuple[int, str]] = []  # (seat or -1, text), in place order
        self._chat_places: list[Place] = []
        self._posted: set[str] = set()  # purposes of entries already in our chain
        self._resign_reason: str | None = None
        self._outbox: list[tuple[str, int, Any]] = []  # (kind, turn, body) not yet signed
        self._events: list[ev.Event] = []
        self._handlers: dict[str, Callable[[Entry], None]] = {
            "table.open": self._on_table_open,
            "lobby.join": self._on_lobby_join,
            "lobby.seat": self._on_lobby_seat,
            "deck": self._on_deck,
            "action": self._on_action,
            "ack": self._on_ack,
            "move": self._on_move,
            "chat": self._on_chat,
            "resign": self._on_resign,
            "seed": self._on_seed,
        }

    # ------------------------------------------------------------ queries

    @property
    def config(self) -> GameConfig | None:
        return self.table.config if self.table else None

    @property
    def observer(self) -> bool:
        """Not seated: watches (the log verifier, a joiner left without a seat)."""
        return self.my_seat is None

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

    def my_turn(self) -> bool:
        """Our seat is to act and has not acted yet (a peer may send its action before it
        applies it: see ``PeerCore._send_first``)."""
        return (
            self.phase == Phase.PLAY
            and self.state is not None
            and self.pending is None
            and not self.state.over
            and self.state.current_seat == self.my_seat
            and f"action:{self.state.turn}" not in self._posted
        )

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

    def waiting_for(self) -> list[tuple[int, WaitKind]]:
        """(seat, what) the game is waiting for, for 'waiting for Bob' displays and timeouts."""
        out: list[tuple[int, WaitKind]] = []
        if self.phase == Phase.DECK and self.deck is not None:
            out.extend((s, WaitKind.DECK_SHUFFLE) for s in self.deck.waiting_for())
        elif self.phase == Phase.PLAY and self.state is not None and self.deck is not None:
            lacking: set[int] = set()
            if self.pending is not None:
                lacking.update(self.deck.missing_public(self.pending.action.card))
            # shares of cards we are entitled to see (others' hands): the player to move
            # may need them to give a clue, and we need them to check one
            for card in self._undecoded_others_cards():
                lacking.update(self.deck.missing_keys(card))
            out.extend((s, WaitKind.KEY_SHARE) for s in sorted(lacking))
            if not out and not self.state.over:
                out.append((self.state.current_seat, WaitKind.TURN))
        elif self.phase == Phase.OVER:
            out.extend((s, WaitKind.SEED) for s in range(len(self.seats))
                       if s not in self.seeds_from)
        return out

    # ------------------------------------------------------------ shell interface

    def take_outbox(self) -> list[tuple[str, int, Any]]:
        """Entries (kind, turn, body) this peer must sign, store, apply and broadcast."""
        self._hash_the_turn_start()  # due by now: see `_after_turn`
        out, self._outbox = self._outbox, []
        return out

    @property
    def has_outbox(self) -> bool:
        return bool(self._outbox)

    def take_events(self) -> list[ev.Event]:
        out, self._events = self._events, []
        return out

    def _post(self, purpose: str, kind: str, body: Any, turn: int | None = None) -> None:
        """Queue one of our entries, once per purpose (so a resumed peer never posts twice)."""
        if purpose in self._posted:
            return
        self._posted.add(purpose)
        if kind in TURN_ZERO_KINDS:
            turn = 0
        self._outbox.append((kind, self.turn if turn is None else turn, body))

    def _post_deck(self, msgs: list[Any]) -> None:
        body = b.deck_to_wire(msgs)
        self._post("deck:" + deckio.purpose_of_wire(body), "deck", body)

    # ------------------------------------------------------------ local commands

    def open_table(self, name: str, host_name: str, config: GameConfig,
                   table_options: frozenset[b.TableOption] = frozenset()) -> None:
        if self.table is not None:
            raise LocalProtocolError("the table is already open")
        body = b.TableOpen(name, host_name, config, table_options).to_wire()
        # the same checks peers make: fail here, with the reason, as the user's error
        b.local_value(lambda: b.TableOpen.from_wire(body))
        self._post("open", "table.open", body)

    def request_seat(self, name: str, address: b.Address, runner: bytes | None = None) -> None:
        """Ask for a seat; a computer player gives ``runner`` (see ``LobbyJoin``)."""
        body = b.LobbyJoin(name, address, runner).to_wire()
        b.local_value(lambda: b.LobbyJoin.from_wire(body))
        self._post("join", "lobby.join", body)

    def seat_players(
        self, host_address: b.Address, joiners: Sequence[bytes] | None = None
    ) -> None:
        """Host only: seat itself and the joiners chosen (default: every joiner, in join
        order), once there are enough of them."""
        if self.host_id != self.me or self.table is None:
            raise LocalProtocolError("only the host seats players")
        config = self.table.config
        chosen = list(self.joins) if joiners is None else list(joiners)
        if any(peer_id not in self.joins for peer_id in chosen):
            raise LocalProtocolError("only players who asked for a seat can be seated")
        if len(chosen) + 1 < config.players:
            raise LocalProtocolError("the table is not full yet")
        seats = [b.Seat(self.me, self.table.host_name, host_address)]
        for peer_id in chosen[: config.players - 1]:
            join = self.joins[peer_id]
            seats.append(b.Seat(peer_id, join.name, join.address))
        self._post("seat", "lobby.seat", b.LobbySeat(tuple(seats)).to_wire())

    def take_action(self, action: TurnAction) -> None:
        """Our turn: check the action, then post it. Raises IllegalAction with the rule."""
        state = self._require_state()
        if self.abort_reason:
            raise IllegalAction(f"the game was stopped: {self.abort_reason}")
        if state.over:
            raise IllegalAction("the game is over")
        if not self.my_turn():
            raise IllegalAction(f"it is {self.name_of(state.current_seat)}'s turn")
        if isinstance(action, Clue) and action.touched is None:
            action = self._with_touched(action)
        state.check(action)
        deck = self._require_deck()
        msgs: list[Any] = []
        if isinstance(action, Play | Discard):
            draws = state.draw_index < state.config.deck_size
            if draws and not self._settle_deck_checks():  # (before any share is made)
                raise IllegalAction(f"the game was stopped: {self.abort_reason}")
            msgs.extend(deck.public_share(action.card))
            if draws:
                msgs.extend(deck.deal_shares(state.draw_index, state.current_seat))
        # the hash we computed when this turn began (what the others check it against)
        digest = self._my_hash(state.turn) or state.public_hash()
        body = b.ActionBody(action, digest, tuple(msgs)).to_wire()
        self._post(f"action:{state.turn}", "action", body)

    def _with_touched(self, clue: Clue) -> Clue:
        state = self._require_state()
        if not 0 <= clue.target < len(self.seats):
            raise IllegalAction(f"there is no seat {clue.target}")
        touched = set()
        for card in state.hands[clue.target]:
            face = state.faces[card]
            if face is None:
                raise IllegalAction("you cannot clue your own hand")
            if (clue.colour is not None and state.config.colour_touches(clue.colour, face)) or (
                clue.rank is not None and face.rank == clue.rank
            ):
                touched.add(card)
        return Clue(clue.seat, clue.target, clue.colour, clue.rank, frozenset(touched))

    def add_watch_keys(self, peer_id: bytes, keys: Iterable[tuple[int, bytes]]) -> list[str]:
        """A spectator takes a seated peer's keys (sent over its link at a table that lets
        spectators see the hands) and decodes what they open; returns the reasons of the
        keys refused (a link problem: the frame carries no signature)."""
        if self.deck is None:
            # keys can overtake the entries that seat the table (they come by another
            # path): kept until the seating, one deck's worth from each of a few peers
            if peer_id in self._early_watch_keys or len(self._early_watch_keys) < MAX_PLAYERS:
                early = self._early_watch_keys.setdefault(peer_id, {})
                early.update(list(keys)[: MAX_DECK_SIZE - len(early)])
            return []
        seat = self.seat_of(peer_id)
        if seat is None:
            return ["keys from a peer that is not seated"]
        problems = self.deck.add_watch_keys(seat, keys)
        self._learn_faces()
        return problems

    def spectator_keys(self) -> dict[int, bytes]:
        """What we give a spectator at a table that consents (SPEC §2.12): our key of every
        card we dealt to another seat."""
        if self.deck is None or self.my_seat is None:
            return {}
        return self.deck.spectator_keys()

    def move_card(self, card: int, to: int) -> None:
        state = self._require_state()
        state.check(Move(self._require_seat(), card, to))
        self._outbox.append(("move", self.turn, b.MoveBody(card, to).to_wire()))

    def say(self, text: str) -> None:
        text = b.chat_text(text)
        self._outbox.append(("chat", self.turn, {"text": text}))

    def resign(self, reason: str = "") -> None:
        """End the game for everyone.

        During play it takes effect at our next turn (peers must agree on the exact point),
        so it is posted then: posting it earlier would put it in our chain before answers
        we still owe for the turns in between. Before the deal there is no turn to resign
        at: we leave, which reveals our seed and stops the game for everyone (SPEC 5.3)."""
        if self.my_seat is None or self.phase not in (Phase.DECK, Phase.PLAY):
            raise IllegalAction("there is no game to resign from")
        if self.state is None:
            me = self.name_of(self.my_seat)
            self.abort(None, f"{me} left before the deal" + (f": {reason}" if reason else ""))
            return
        self._resign_reason = reason[:MAX_REASON_CHARS]
        self._post_resign_if_due()

    def _post_resign_if_due(self) -> None:
        if self._resign_reason is not None and self.my_turn():
            self._post("resign", "resign", {"reason": self._resign_reason})

    # ------------------------------------------------------------ replica application

    def note_own(self, entry: Entry) -> None:
        """Record the purpose of one of our own stored entries (used when resuming)."""
        self._posted.add(_purpose(entry))

    def allowed_authors(self) -> frozenset[bytes] | None:
        """Once seating is decided only seated players may write to the log."""
        return frozenset(s.peer_id for s in self.seats) if self.seats else None

    def order_key(self, entry: Entry) -> Place:
        """The replica's retry order: the entry's place (content alone)."""
        return place(entry)

    def ready(self, entry: Entry) -> bool:
        try:
            return self._ready(entry)
        except b.BadBody:
            return True  # malformed: let apply() reject it with the reason

    def _ready(self, entry: Entry) -> bool:
        kind = entry.kind
        stage = STAGE_OF_KIND.get(kind)
        if kind == "table.open" or stage is None:
            return True  # an unknown kind is rejected in apply
        if self.table is None:
            return False
        if stage is Stage.LOBBY or stage is Stage.ANY:
            if kind == "lobby.seat":
                # wait until every seated player's own request for a seat is here, whatever
                # order the entries arrive in
                seating = b.LobbySeat.from_wire(entry.body)
                return all(s.peer_id in self.joins for s in seating.seats[1:])
            return True
        if not self.seats:
            return False  # every later stage waits for the seating
        if kind == "seed":
            return self._seed_ready(entry)
        if kind == "deck":
            # the deal applies once the deck is locked; the deck steps at once (the
            # DeckPeer holds a step that comes early)
            return self.state is not None or not _is_deal(entry.body)
        state = self.state
        if state is None or self.deck is None:
            return False  # the play stage waits for the deal (a resign too: SPEC 5.4)
        if kind == "resign":
            return state.over or (
                self.pending is None
                and state.turn >= entry.turn
                and state.current_seat == self.seat_of(entry.author)
            )
        if kind == "action":
            return self._action_ready(entry)
        if kind == "ack":
            return entry.turn < state.turn or (
                self.pending is not None and self.pending.turn == entry.turn
            )
        # move
        body = b.MoveBody.from_wire(entry.body)
        return body.card < state.draw_index or state.over

    def _seed_ready(self, entry: Entry) -> bool:
        """A seed is posted when its author's game ended at ``entry.turn`` (or when it left).
        A seated peer waits until it is there too, so a peer that simply finished first is
        not taken for one that left, and so does a spectator. The log verifier never stops
        on a seed: at once."""
        if self.observer and not self.watching:
            return True
        state = self.state
        return (
            state is None
            or state.over
            or self.phase == Phase.ABORTED
            or (state.turn >= entry.turn and self.pending is None)
        )

    def _action_ready(self, entry: Entry) -> bool:
        state = self.state
        assert state is not None
        if self.pending is not None:
            # a later turn waits for the pending one; the same turn again is rejected
            return entry.turn <= self.pending.turn
        if entry.turn != state.turn:
            return entry.turn < state.turn  # a stale turn is rejected, a later one waits
        seat = self.seat_of(entry.author)
        if seat is None:
            return True  # rejected in apply
        action = self._action_body(entry, seat).action
        # (a spectator takes a clue as its target does, by the cards it names: it may not
        # see them, and the players check it anyway)
        if (isinstance(action, Clue) and action.target != self.my_seat
                and not self._spectator_view):
            if not 0 <= action.target < len(state.hands):
                return True
            # wait until we see every card the clue could touch, so we can check it
            return all(state.faces[c] is not None for c in state.hands[action.target])
        return True

    def apply(self, entry: Entry) -> None:
        """Apply one entry the replica found ready. Raises HanabiError to reject it."""
        handler = self._handlers.get(entry.kind)
        if handler is None:
            raise GameFault(self._who(entry), f"unknown entry kind {entry.kind!r}")
        if entry.kind in TURN_ZERO_KINDS and entry.turn != 0:
            raise GameFault(
                self._who(entry), f"a {entry.kind} entry belongs to no turn (its turn must be 0)"
            )
        if entry.author == self.me:
            self._posted.add(_purpose(entry))
        if self.phase == Phase.ABORTED and entry.kind not in AFTER_ABORT_KINDS:
            self._record_after_abort(entry)
        else:
            handler(entry)
        if (
            self.audit is not None
            and self.deck is not None
            and len(self.deck.transcript) > self._audited_messages
        ):
            # a deck message that came after the audit (a late answer to the last turn, or
            # one a cheater appended): audited like every other (SPEC 5.3 step 5)
            self._run_audit()

    def _record_after_abort(self, entry: Entry) -> None:
        """We stopped the game: take the entry without playing it, but keep its deck
        messages, so that the audit covers every message in the log."""
        seat = self.seat_of(entry.author)
        if seat is None or self.deck is None:
            return
        wire: tuple[Any, ...] = ()
        if entry.kind == "deck":
            wire = b.deck_from_wire(entry.body)
        elif entry.kind == "action":
            wire = self._action_body(entry, seat).deck
        elif entry.kind == "ack":
            wire = b.AckBody.from_wire(entry.body).deck
        self.deck.record(seat, self._decode_deck(entry, wire))

    # -- lobby

    def _on_table_open(self, entry: Entry) -> None:
        if self.table is not None:
            raise GameFault(self._who(entry), "a second table.open for this table")
        if entry.seq != 0:
            raise GameFault(self._who(entry), "table.open must be its author's first entry")
        if self.host_id is not None and entry.author != self.host_id:
            raise GameFault(self._who(entry), "table.open not signed by the host we contacted")
        table = b.TableOpen.from_wire(entry.body)
        if table.deck_group is not b.LIVE_DECK_GROUP and not self._old_deck_groups:
            # a 0.2.0 table (no `group`): protocol 2, which this program only verifies
            raise b.BadBody(f"table.open: the deck group must be {b.LIVE_DECK_GROUP.value} "
                            f"(this table uses {table.deck_group.value}, protocol 2)")
        self.table = table
        self.host_id = entry.author
        self._events.append(ev.TableOpened(self.table.name))

    def _on_lobby_join(self, entry: Entry) -> None:
        join = b.LobbyJoin.from_wire(entry.body)
        if entry.author == self.host_id:
            raise GameFault(self._who(entry), "the host is seated already")
        if entry.author in self.joins:
            raise GameFault(self._who(entry), "asked for a seat twice")
        if self.seats:
            raise GameFault(self._who(entry), "the table is full: seating is already decided")
        self.joins[entry.author] = join
        self._events.append(ev.PlayerJoined(entry.author, join.name))

    def _on_lobby_seat(self, entry: Entry) -> None:
        assert self.table is not None
        if entry.author != self.host_id:
            raise GameFault(self._who(entry), "only the host seats players")
        if self.seats:
            raise GameFault(self._who(entry), "seating is already decided")
        seating = b.LobbySeat.from_wire(entry.body)
        config = self.table.config
        if len(seating.seats) != config.players:
            raise GameFault(self._who(entry), f"seated {len(seating.seats)} of {config.players}")
        if seating.seats[0].peer_id != self.host_id:
            raise GameFault(self._who(entry), "the host must take seat 0")
        host = seating.seats[0]
        if host.name != self.table.host_name:
            raise GameFault(self._who(entry), "seated the host under another name")
        for seat in seating.seats[1:]:
            join = self.joins.get(seat.peer_id)
            if join is None:
                raise GameFault(self._who(entry), "seated a player who never asked for a seat")
            # SPEC 5.5: each seat repeats its joiner's name and address exactly (the address
            # is where the others connect; the name is what every screen shows)
            if (seat.name, seat.address) != (join.name, join.address):
                raise GameFault(
                    self._who(entry), f"changed {join.name}'s name or address at seating"
                )
        self.seats = seating.seats
        self.my_seat = self.seat_of(self.me)
        self.phase = Phase.DECK
        self._events.append(ev.Seated())
        self.deck = deckio.DeckAdapter(
            config,
            self.table_id,
            [s.peer_id for s in self.seats],
            self.my_seat,
            self._seed,
            known_faces=self._known_faces,
            group=deckio.deck_group(self.table.deck_group),
            watching=self._spectator_view,
        )
        early, self._early_watch_keys = self._early_watch_keys, {}
        for peer_id, keys in sorted(early.items()):
            index = self.seat_of(peer_id)
            if index is not None:  # (the deck holds them until the seat's lock, and drops
                # one that does not fit it then, as it does any key that came early)
                self.deck.add_watch_keys(index, sorted(keys.items()))
        if self.my_seat is not None:
            self._post_deck(self.deck.start())

    # -- deck

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
        got = Counter(_message_key(m) for m in msgs)
        if got != Counter(want):
            raise GameFault(self._who(entry), f"{what}: its key shares are not the ones the "
                            f"game calls for (expected {_keys_text(want)}, got "
                            f"{_keys_text(list(got.elements()))})")

    def _receive_deck(self, seat: int, msgs: Sequence[DeckMessage]) -> list[Any]:
        """Our DeckPeer's answers to a peer's deck messages. A failed check of the entry's
        author refuses the entry; one of ANOTHER seat's message that the DeckPeer held
        until now (it arrived early) must not be blamed on this entry: stop the game,
        blaming the cheater, and take the entry."""
        try:
            return self._require_deck().receive_decoded(seat, msgs)
        except DeckCheatError as exc:
            if exc.seat == seat:
                raise
            self.abort(exc.peer_id, str(exc))
            return []

    def _after_deck(self, out: list[Any]) -> None:
        deck = self._require_deck()
        if out:
            self._post_deck(out)
        if self.phase == Phase.DECK and deck.ready:
            self._start_play()
        self._learn_faces()

    def _settle_deck_checks(self) -> bool:
        """Before a card beyond the first deal is revealed, every deck check must have
        passed (SPEC §2.8). They nearly always have, on the shell's threads; any still
        pending run here now. False when one fails: the game is then stopped, blaming the
        seat whose signed message failed."""
        try:
            out = self._require_deck().settle_checks()
        except DeckCheatError as exc:
            self.abort(exc.peer_id, str(exc))
            return False
        if out:
            self._post_deck(out)
        return True

    def deck_checks_done(self, error: DeckCheatError | None) -> None:
        """The deck checks the shell ran off its event loop (deckio.DeckAdapter.take_checks)
        came back: go on, or stop the game blaming the seat whose signed message failed."""
        try:
            out = self._require_deck().finish_checks(error)
        except DeckCheatError as exc:
            self.abort(exc.peer_id, str(exc))
            return
        self._after_deck(out)

    def _on_deck(self, entry: Entry) -> None:
        seat = self._seat_or_fault(entry)
        msgs = self._decode_deck(entry, b.deck_from_wire(entry.body))
        kinds = {m.KIND for m in msgs}
        if kinds & DEAL_MESSAGE_KINDS:
            self._check_deal(entry, seat, msgs)
        elif not msgs or not kinds <= set(STEP_MESSAGE_KINDS) or len(kinds) != len(msgs):
            raise GameFault(self._who(entry), "a deck entry holds its author's deck steps "
                            "(commit, shuffle, lock; each at most once) or its deal shares")
        answers = self._receive_deck(seat, msgs)
        if kinds & DEAL_MESSAGE_KINDS:
            self.dealt_by.add(seat)
        self._after_deck(answers)

    def _check_deal(self, entry: Entry, seat: int, msgs: Sequence[DeckMessage]) -> None:
        state = self._require_state()
        if seat in self.dealt_by:
            raise GameFault(self._who(entry), "published its deal shares twice")
        hand = state.config.hand_size
        want: list[MessageKey] = []
        for position in range(hand * len(self.seats)):
            owner = position // hand  # SPEC 5.3: seat 0 gets positions 0..H-1, and so on
            if owner == seat:
                want.append((OwnerKey.KIND, position))
            else:
                want.append((SharedKeys.KIND, position, owner))
        self._expect(entry, msgs, want, "the deal")

    def _start_play(self) -> None:
        assert self.table is not None and self.deck is not None
        config = self.table.config
        self.state = GameState(config, [None] * config.deck_size)
        self.phase = Phase.PLAY
        self.my_hashes[0] = self.state.public_hash()
        self._events.append(ev.DeckReady())
        if self.my_seat is not None:
            shares: list[Any] = []
            for owner, hand in enumerate(self.state.hands):
                for card in hand:
                    shares.extend(self.deck.deal_shares(card, owner))
            self._post_deck(shares)

    def _learn_faces(self) -> None:
        if self.state is None or self.deck is None:
            return
        for card, face in self.deck.new_faces():
            self.state.reveal(card, face)
        self._try_resolve()

    # -- turns

    def _on_action(self, entry: Entry) -> None:
        """Checks in the order SPEC 5.5 fixes: the turn, the seat, the end of the game, the
        body, the state hash, the rules, then the key shares (so every verifier names the
        same reason). The end comes after the seat: a resignation leaves the turn and the
        seat to move as they were, so an action by another seat is "not their turn" whether
        it arrived before or after the resignation of the seat to move."""
        state = self._require_state()
        seat = self._seat_or_fault(entry)
        if entry.turn != state.turn or self.pending is not None:
            raise GameFault(
                self._who(entry),
                f"acted for {turn_label(entry.turn)} during {turn_label(state.turn)}",
            )
        if seat != state.current_seat:
            current = self.name_of(state.current_seat)
            raise GameFault(self._who(entry), f"not their turn: it is {current}'s")
        if state.over:
            raise GameFault(self._who(entry), "acted after the game ended")
        body = self._action_body(entry, seat)
        self._check_hash(entry.turn, seat, body.state_hash, entry)
        action = body.action
        try:
            state.check(action)
        except IllegalAction as exc:
            raise GameFault(self._who(entry), f"illegal action: {exc}") from None
        msgs = self._decode_deck(entry, body.deck)
        reveals = self._reveals_of(seat, action)
        want: list[MessageKey] = []
        if reveals.card is not None:
            want.append((PublicKey.KIND, reveals.card))
        if reveals.draw is not None:
            want.append((OwnerKey.KIND, reveals.draw))
        self._expect(entry, msgs, want, "its action")
        if isinstance(action, Clue):
            self._record_hash(entry.turn, seat, body.state_hash)
            self.turn_reveals[entry.turn] = reveals
            self._hash_the_turn_start()  # (done by the check above: the turn ends)
            before = state.copy()
            outcome = state.apply(action)
            self._events.append(ev.TurnResolved(entry.turn, action, outcome, before))
            self._ack(entry.turn, seat, [])
            self._after_turn()
            return
        assert isinstance(action, Play | Discard)
        deck = self._require_deck()
        mine: list[Any] = []
        if self.my_seat is not None:
            # Declare both reveals to our DeckPeer even for our own action: a peer resumed
            # from its log replays its own action without take_action(). Same bytes again.
            mine.extend(deck.public_share(action.card))
            if reveals.draw is not None:
                if not self._settle_deck_checks():
                    return  # a cheat found: the game is stopped, blaming its signer
                mine.extend(deck.deal_shares(reveals.draw, seat))
        # The actor's shares are checked before the turn is taken up: a bad one refuses the
        # entry with no pending turn and no ack of ours left behind.
        answers = self._receive_deck(seat, msgs)
        self._record_hash(entry.turn, seat, body.state_hash)
        self.turn_reveals[entry.turn] = reveals
        self.pending = PendingTurn(entry.turn, action)
        self._ack(entry.turn, seat, mine)
        self._after_deck(answers)

    def _action_body(self, entry: Entry, seat: int) -> b.ActionBody:
        parsed = self._parsed_action
        if parsed is not None and parsed[0] is entry and parsed[1] == seat:
            return parsed[2]
        body = b.ActionBody.from_wire(entry.body, seat)
        self._parsed_action = (entry, seat, body)
        return body

    def _reveals_of(self, seat: int, action: TurnAction) -> TurnReveals:
        state = self._require_state()
        if isinstance(action, Clue):
            return TurnReveals(seat, None, None)
        more = state.draw_index < state.config.deck_size
        return TurnReveals(seat, action.card, state.draw_index if more else None)

    def _ack(self, turn: int, actor: int, deck_msgs: list[Any]) -> None:
        if self.my_seat is None or self.my_seat == actor:
            return
        digest = self._my_hash(turn)
        assert digest is not None  # (computed when the turn began, or at its action's check)
        body = b.AckBody(digest, tuple(deck_msgs)).to_wire()
        self._post(f"ack:{turn}", "ack", body, turn=turn)

    def _on_ack(self, entry: Entry) -> None:
        seat = self._seat_or_fault(entry)
        reveals = self.turn_reveals.get(entry.turn)
        if reveals is None:
            raise GameFault(self._who(entry), f"answered {turn_label(entry.turn)}, "
                            "which had no action")
        if seat == reveals.actor:
            raise GameFault(self._who(entry), f"answered its own {turn_label(entry.turn)}")
        body = b.AckBody.from_wire(entry.body)
        self._check_hash(entry.turn, seat, body.state_hash, entry)
        msgs = self._decode_deck(entry, body.deck)
        want: list[MessageKey] = []
        if reveals.card is not None:
            want.append((PublicKey.KIND, reveals.card))
        if reveals.draw is not None:
            want.append((SharedKeys.KIND, reveals.draw, reveals.actor))
        self._expect(entry, msgs, want, "its answer")
        answers = self._receive_deck(seat, msgs)
        self._record_hash(entry.turn, seat, body.state_hash)
        self._after_deck(answers)

    def _check_hash(self, turn: int, seat: int, digest: bytes, entry: Entry) -> None:
        """Raise GameFault, changing nothing, if the reported hash is a second or a wrong one."""
        if seat in self.reported_hashes.get(turn, {}):
            raise GameFault(
                self._who(entry), f"reported a second state hash for {turn_label(turn)}"
            )
        mine = self._my_hash(turn)
        if mine is not None and digest != mine:
            raise GameFault(
                self._who(entry),
                f"game state diverged at {turn_label(turn)}: {self.name_of(seat)} computed "
                f"{digest.hex()[:12]}, we computed {mine.hex()[:12]}",
            )

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

    def _try_resolve(self) -> None:
        state, pending = self.state, self.pending
        if state is None or pending is None or state.faces[pending.action.card] is None:
            return
        self.pending = None
        self._hash_the_turn_start()  # (done when its action was checked: the turn ends)
        before = state.copy()
        outcome = state.apply(pending.action)
        self._events.append(ev.TurnResolved(pending.turn, pending.action, outcome, before))
        self._after_turn()

    def _after_turn(self) -> None:
        state = self._require_state()
        # The new turn's hash is first needed to check its action (or to take it), a
        # moment away: it is computed then, or when we next post (an ack, once every entry
        # that arrived together is taken in), not on the path of the entry that ended the
        # turn. Only a turn changes the public state, so it is the same hash either way.
        self._hash_due = state.turn
        if state.over:
            self._my_hash(state.turn)  # the final state's: the game's record, at once
            self._game_over()
        else:
            self._post_resign_if_due()

    def _game_over(self) -> None:
        state = self._require_state()
        self.phase = Phase.OVER
        self._events.append(ev.GameOver(state.end.value, state.score))
        if self.my_seat is not None:
            seed = b.SeedBody(tuple(self._require_deck().seed_reveal()))
            self._post("seed", "seed", seed.to_wire())
        self._audit_if_complete()

    # -- outside the turn

    def _on_move(self, entry: Entry) -> None:
        seat = self._seat_or_fault(entry)
        body = b.MoveBody.from_wire(entry.body)
        state = self._require_state()
        if state.over:
            return
        try:
            state.apply(Move(seat, body.card, body.to))
        except IllegalAction:
            # Moves are cosmetic and race with plays (the card may have left the hand by the
            # time a peer applies the move): one that no longer fits is simply dropped.
            return
        self._events.append(ev.HandMoved(seat, body.card, body.to))

    def _on_chat(self, entry: Entry) -> None:
        seat = self.seat_of(entry.author)
        text = b.chat_from_wire(entry.body)
        if seat is None and entry.author != self.host_id and entry.author not in self.joins:
            raise GameFault(self._who(entry), "is not at this table")
        shown = seat if seat is not None else -1
        # kept in place order: chats from different players commute
        index = bisect.bisect(self._chat_places, place(entry))
        self._chat_places.insert(index, place(entry))
        self.chat_log.insert(index, (shown, text))
        self._events.append(ev.Chat(shown, text))

    def _on_resign(self, entry: Entry) -> None:
        seat = self._seat_or_fault(entry)
        reason = b.resign_from_wire(entry.body)
        state = self._require_state()
        self._events.append(ev.Resigned(seat, reason))
        if not state.over:
            self._hash_the_turn_start()  # the state of this turn's start is ending
            state.apply(Terminate(seat))
            self._after_turn()

    def _on_seed(self, entry: Entry) -> None:
        seat = self._seat_or_fault(entry)
        if seat in self.seeds_from:
            raise GameFault(self._who(entry), "revealed its seed twice")
        body = b.SeedBody.from_wire(entry.body)
        msgs = self._decode_deck(entry, body.deck)
        if [_message_key(m) for m in msgs] != [(SeedReveal.KIND,)]:
            raise GameFault(self._who(entry), "a seed entry holds exactly its deck seed")
        self.seeds_from.add(seat)
        self._require_deck().receive_decoded(seat, msgs)  # a seed is answered by nothing
        if self.phase in (Phase.DECK, Phase.PLAY) and (not self.observer or self.watching):
            # its secrets are public now: every card it locked decodes, so play cannot go
            # on. (The log verifier goes on checking what the others wrote meanwhile.)
            who = self.describe(entry.author)
            if body.reason:
                claim = f"{who} stopped the game: {body.reason}"
            else:
                claim = f"{who} revealed its deck seed and left the game"
            self.abort(None, claim)
        self._audit_if_complete()

    def _audit_if_complete(self) -> None:
        if (
            self._audit_at_end
            and self.audit is None
            and self.deck is not None  # a game stopped in the lobby has no deck to audit
            and len(self.seeds_from) == len(self.seats)
            and self.phase in (Phase.OVER, Phase.ABORTED)
        ):
            self._run_audit()

    def _run_audit(self) -> None:
        deck = self._require_deck()
        result = deck.audit()
        self._audited_messages = len(deck.transcript)
        changed = self.audit is None or (result.ok, result.reason) != (
            self.audit.ok, self.audit.reason)
        self.audit = result
        if self.phase == Phase.OVER:
            self.phase = Phase.AUDITED
        if changed:
            self._events.append(ev.Audited(result.ok, result.reason, result.blamed_seat))

    # ------------------------------------------------------------ faults

    def abort(self, peer: bytes | None, reason: str) -> None:
        """Stop the game for good (a cheat, a divergence, a peer gone): reveal our seed."""
        if self.phase == Phase.ABORTED:
            return
        self.abort_reason = reason
        self.blamed = peer
        self.phase = Phase.ABORTED
        self._events.append(ev.Fault(peer, reason, fatal=True))
        if self.my_seat is not None and self.deck is not None:
            seed = b.SeedBody(
                tuple(self.deck.seed_reveal()), reason=b.clean_reason(reason), blame=peer
            )
            self._post("seed", "seed", seed.to_wire())
        self._audit_if_complete()

    def describe(self, peer_id: bytes) -> str:
        """How a peer is named in every message: "Name (K7QF-2M9D)"."""
        seat = self.seat_of(peer_id)
        join = self.joins.get(peer_id)
        if seat is not None:
            name = self.seats[seat].name
        elif join is not None:
            name = join.name
        elif self.table is not None and peer_id == self.host_id:
            name = self.table.host_name
        else:
            name = "unknown player"
        return display_name(name, peer_id)

    def _who(self, entry: Entry) -> str:
        return self.describe(entry.author)

    def _require_state(self) -> GameState:
        if self.state is None:
            raise IllegalAction("the game has not started yet")
        return self.state

    def _require_deck(self) -> deckio.DeckAdapter:
        if self.deck is None:
            raise LocalProtocolError("the deck protocol has not started")
        return self.deck

    def _require_seat(self) -> int:
        if self.my_seat is None:
            raise IllegalAction("you are not seated at this table")
        return self.my_seat


def _is_deal(body: Any) -> bool:
    """Whether a deck entry's body (unchecked) holds deal shares, by its messages' kinds."""
    msgs = body.get("deck") if isinstance(body, dict) else None
    return isinstance(msgs, list) and any(
        isinstance(m, list) and m and m[0] in DEAL_MESSAGE_KINDS for m in msgs
    )


def _keys_text(keys: list[MessageKey]) -> str:
    if not keys:
        return "none"
    return ", ".join(
        f"{key[0].removeprefix('deck.')}({', '.join(str(k) for k in key[1:])})"
        for key in sorted(keys)
    )


def _purpose(entry: Entry) -> str:
    """The purpose key of one of our entries, the same key ``_post`` used."""
    kind = entry.kind
    if kind == "table.open":
        return "open"
    if kind == "lobby.join":
        return "join"
    if kind == "lobby.seat":
        return "seat"
    if kind == "action":
        return f"action:{entry.turn}"
    if kind == "ack":
        return f"ack:{entry.turn}"
    if kind in ("seed", "resign"):
        return kind
    if kind == "deck":
        return "deck:" + deckio.purpose_of_wire(entry.body)
    return f"{kind}:{entry.seq}"


__all__ = ["GameFault", "Phase", "Stage", "TableSession", "place"]
