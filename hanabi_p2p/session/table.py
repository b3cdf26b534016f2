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
  entries, then publishes its shares of every dealt card in one ``deck`` entry.
* a turn ``t``: the player to move posts ``action`` (with its state hash at the start of ``t``
  and, for a play or discard, its public key share of the card and its owner key for the
  replacement card); every other peer answers with ``ack`` (its own state hash, its public
  share of the card, its share of the replacement for everyone but the owner). A play or
  discard resolves once every public share is in, so a turn costs one round of messages.
* end: every peer publishes its deck seed (``seed``); the audit recomputes the whole deck.

Determinism: public game state changes only through turn actions, applied strictly in turn
order; deck messages commute (the DeckPeer holds early ones); hand reorders do not enter the
state hash. So every honest peer holding the same entries computes the same state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from hanabi_p2p.deck import DeckCheatError
from hanabi_p2p.errors import IllegalAction, LocalProtocolError, RemoteProtocolError
from hanabi_p2p.identity import display_name
from hanabi_p2p.log.entry import Entry, Signer
from hanabi_p2p.rules.actions import Clue, Discard, Move, Play, Terminate, TurnAction
from hanabi_p2p.rules.cards import Card, GameConfig
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.session import bodies as b
from hanabi_p2p.session import deckio
from hanabi_p2p.session import events as ev

LOBBY, DECK, PLAY, OVER, AUDITED, ABORTED = "lobby", "deck", "play", "over", "audited", "aborted"


class GameFault(RemoteProtocolError):
    """A seated peer sent a signed entry that breaks the game; the game cannot go on."""


@dataclass
class PendingTurn:
    """A play or discard whose card face is not yet known to everyone."""

    turn: int
    action: Play | Discard


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
    ) -> None:
        """``known_faces``: for an observer (not seated: the log verifier), every card's face
        as the deck audit decoded it, so turns can be checked in full."""
        self.author = author
        self._known_faces = known_faces
        self.me = author.peer_id
        self.table_id = table_id
        self.host_id = host_id  # None until table.open tells us (a joiner by address)
        self._seed = seed
        self.phase = LOBBY
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
        self.seeds_from: set[int] = set()
        self.audit: deckio.AuditResult | None = None
        self.abort_reason: str | None = None
        self.blamed: bytes | None = None
        self.chat_log: list[tuple[int, str]] = []
        self._posted: set[str] = set()  # purposes of entries already in our chain
        self._resign_reason: str | None = None
        self._outbox: list[tuple[str, int, Any]] = []  # (kind, turn, body) not yet signed
        self._events: list[ev.Event] = []

    # ------------------------------------------------------------ queries

    @property
    def config(self) -> GameConfig | None:
        return self.table.config if self.table else None

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
        return (
            self.phase == PLAY
            and self.state is not None
            and self.pending is None
            and not self.state.over
            and self.state.current_seat == self.my_seat
        )

    def can_act(self) -> bool:
        """It is our turn and we see every card we are entitled to see (clues need faces)."""
        return self.my_turn() and not self._undecoded_others_cards()

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

    def waiting_for(self) -> list[tuple[int, str]]:
        """(seat, what) the game is waiting for, for 'waiting for Bob' displays and timeouts."""
        out: list[tuple[int, str]] = []
        if self.phase == DECK and self.deck is not None:
            out.extend((s, "deck shuffle") for s in self.deck.waiting_for())
        elif self.phase == PLAY and self.state is not None and self.deck is not None:
            lacking: set[int] = set()
            if self.pending is not None:
                lacking.update(self.deck.missing_public(self.pending.action.card))
            # shares of cards we are entitled to see (others' hands): the player to move
            # may need them to give a clue, and we need them to check one
            for card in self._undecoded_others_cards():
                lacking.update(self.deck.missing_keys(card))
            out.extend((s, "key share") for s in sorted(lacking))
            if not out and not self.state.over:
                out.append((self.state.current_seat, "turn"))
        elif self.phase == OVER:
            out.extend((s, "seed") for s in range(len(self.seats)) if s not in self.seeds_from)
        return out

    # ------------------------------------------------------------ shell interface

    def take_outbox(self) -> list[tuple[str, int, Any]]:
        """Entries (kind, turn, body) this peer must sign, store, apply and broadcast."""
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
        self._outbox.append((kind, self.turn if turn is None else turn, body))

    def _post_deck(self, msgs: list[Any]) -> None:
        body = b.deck_to_wire(msgs)
        self._post("deck:" + deckio.purpose_of_wire(body), "deck", body)

    # ------------------------------------------------------------ local commands

    def open_table(self, name: str, host_name: str, config: GameConfig) -> None:
        if self.table is not None:
            raise LocalProtocolError("the table is already open")
        body = b.TableOpen(name, host_name, config).to_wire()
        # the same checks peers make: fail here, with the reason, as the user's error
        b.local_value(lambda: b.TableOpen.from_wire(body))
        self._post("open", "table.open", body)

    def request_seat(self, name: str, address: b.Address) -> None:
        body = b.LobbyJoin(name, address).to_wire()
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
            msgs.extend(deck.public_share(action.card))
            if state.draw_index < state.config.deck_size:
                msgs.extend(deck.deal_shares(state.draw_index, state.current_seat))
        body = b.ActionBody(action, state.public_hash(), tuple(msgs)).to_wire()
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

    def move_card(self, card: int, to: int) -> None:
        state = self._require_state()
        state.check(Move(self._require_seat(), card, to))
        self._outbox.append(("move", self.turn, b.MoveBody(card, to).to_wire()))

    def say(self, text: str) -> None:
        text = b.chat_text(text)
        self._outbox.append(("chat", self.turn, {"text": text}))

    def resign(self, reason: str = "") -> None:
        """End the game for everyone. During play it takes effect at our next turn (peers
        must agree on the exact point), so it is posted then: posting it earlier would put it
        in our chain before answers we still owe for the turns in between."""
        if self.my_seat is None or self.phase not in (DECK, PLAY):
            raise IllegalAction("there is no game to resign from")
        self._resign_reason = reason[: b.MAX_REASON]
        self._post_resign_if_due()

    def _post_resign_if_due(self) -> None:
        if self._resign_reason is None:
            return
        if self.state is None or self.my_turn():
            self._post("resign", "resign", {"reason": self._resign_reason})

    # ------------------------------------------------------------ replica application

    def note_own(self, entry: Entry) -> None:
        """Record the purpose of one of our own stored entries (used when resuming)."""
        self._posted.add(_purpose(entry))

    def allowed_authors(self) -> frozenset[bytes] | None:
        """Once seating is decided only seated players may write to the log."""
        return frozenset(s.peer_id for s in self.seats) if self.seats else None

    def ready(self, entry: Entry) -> bool:
        try:
            return self._ready(entry)
        except b.BadBody:
            return True  # malformed: let apply() reject it with the reason

    def _ready(self, entry: Entry) -> bool:
        kind = entry.kind
        if kind == "table.open":
            return True
        if self.table is None:
            return False
        if kind == "lobby.seat":
            # wait until every seated player's own request for a seat is here, whatever
            # order the entries arrive in
            seating = b.LobbySeat.from_wire(entry.body)
            return all(s.peer_id in self.joins for s in seating.seats[1:])
        if kind in ("lobby.join", "chat"):
            return True
        if not self.seats:
            return kind == "resign"  # a resign before seating is rejected in apply
        if kind == "deck":
            return True
        if kind == "seed":
            # a seed is posted when its author's game ended at turn entry.turn: wait until we
            # are there too, so a peer that simply finished first is not taken for one that
            # left (a seed at a turn we have passed, in a game not over, means it left)
            return (
                self.state is None
                or self.state.over
                or self.phase == ABORTED
                or (self.state.turn >= entry.turn and self.pending is None)
            )
        if kind == "resign":
            return self._resign_ready(entry)
        if self.state is None or self.deck is None:
            return False
        if kind == "action":
            return self._action_ready(entry)
        if kind == "ack":
            return entry.turn < self.state.turn or (
                self.pending is not None and self.pending.turn == entry.turn
            )
        if kind == "move":
            body = b.MoveBody.from_wire(entry.body)
            return body.card < self.state.draw_index or self.state.over
        return True

    def _resign_ready(self, entry: Entry) -> bool:
        """A resignation takes effect at a point every peer agrees on: at the start of the
        resigner's first turn from the entry's turn on (so concurrent actions never race
        it); before the deal or after the end, at once."""
        state = self.state
        seat = self.seat_of(entry.author)
        if state is None or state.over or seat is None:
            return True
        return (
            self.pending is None and state.turn >= entry.turn and state.current_seat == seat
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
        try:
            body = b.ActionBody.from_wire(entry.body, seat)
        except b.BadBody:
            return True  # rejected in apply
        action = body.action
        if isinstance(action, Clue) and action.target != self.my_seat:
            if not 0 <= action.target < len(state.hands):
                return True
            # wait until we see every card the clue could touch, so we can check it
            return all(state.faces[c] is not None for c in state.hands[action.target])
        return True

    def apply(self, entry: Entry) -> None:
        """Apply one entry the replica found ready. Raises HanabiError to reject it."""
        handler: Callable[[Entry], None] = getattr(self, "_on_" + entry.kind.replace(".", "_"))
        if entry.author == self.me:
            self._posted.add(_purpose(entry))
        if self.phase == ABORTED and entry.kind not in ("chat", "seed", "resign"):
            return
        handler(entry)

    # -- lobby

    def _on_table_open(self, entry: Entry) -> None:
        if self.table is not None:
            raise GameFault(self._who(entry), "a second table.open for this table")
        if entry.seq != 0:
            raise GameFault(self._who(entry), "table.open must be its author's first entry")
        if self.host_id is not None and entry.author != self.host_id:
            raise GameFault(self._who(entry), "table.open not signed by the host we contacted")
        self.table = b.TableOpen.from_wire(entry.body)
        self.host_id = entry.author
        self._events.append(ev.TableOpened(self.table.name))

    def _on_lobby_join(self, entry: Entry) -> None:
        join = b.LobbyJoin.from_wire(entry.body)
        if self.seats:
            raise GameFault(self._who(entry), "the table is full: seating is already decided")
        if entry.author == self.host_id:
            raise GameFault(self._who(entry), "the host is seated already")
        if entry.author in self.joins:
            raise GameFault(self._who(entry), "asked for a seat twice")
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
            if (seat.name, seat.address) != (join.name, join.address):
                raise GameFault(
                    self._who(entry), f"changed {join.name}'s name or address at seating"
                )
        self.seats = seating.seats
        self.my_seat = self.seat_of(self.me)
        self.phase = DECK
        self._events.append(ev.Seated())
        self.deck = deckio.DeckAdapter(
            config,
            self.table_id,
            [s.peer_id for s in self.seats],
            self.my_seat,
            self._seed,
            known_faces=self._known_faces,
        )
        if self.my_seat is not None:
            self._post_deck(self.deck.start())

    # -- deck

    def _seat_or_fault(self, entry: Entry) -> int:
        seat = self.seat_of(entry.author)
        if seat is None:
            raise GameFault(self._who(entry), "is not seated at this table")
        return seat

    def _feed_deck(self, seat: int, msgs: Iterable[Any]) -> None:
        """Hand a peer's deck messages to our DeckPeer; post whatever it answers."""
        self._after_deck(self._receive_deck(seat, msgs))

    def _receive_deck(self, seat: int, msgs: Iterable[Any]) -> list[Any]:
        """Our DeckPeer's answers to a peer's deck messages. A failed check of the entry's
        author refuses the entry; one of ANOTHER seat's message that the DeckPeer held
        until now (it arrived early) must not be blamed on this entry: stop the game,
        blaming the cheater, and take the entry."""
        try:
            return self._require_deck().receive(seat, msgs)
        except DeckCheatError as exc:
            if exc.seat == seat:
                raise
            self.abort(exc.peer_id, str(exc))
            return []

    def _after_deck(self, out: list[Any]) -> None:
        deck = self._require_deck()
        if out:
            self._post_deck(out)
        if self.phase == DECK and deck.ready:
            self._start_play()
        self._learn_faces()

    def _on_deck(self, entry: Entry) -> None:
        seat = self._seat_or_fault(entry)
        self._feed_deck(seat, b.deck_from_wire(entry.body))

    def _start_play(self) -> None:
        assert self.table is not None and self.deck is not None
        config = self.table.config
        self.state = GameState(config, [None] * config.deck_size)
        self.phase = PLAY
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
        state = self._require_state()
        seat = self._seat_or_fault(entry)
        if state.over:
            raise GameFault(self._who(entry), "acted after the game ended")
        if entry.turn != state.turn or self.pending is not None:
            raise GameFault(
                self._who(entry), f"acted for turn {entry.turn} during turn {state.turn}"
            )
        if seat != state.current_seat:
            current = self.name_of(state.current_seat)
            raise GameFault(self._who(entry), f"not their turn: it is {current}'s")
        body = b.ActionBody.from_wire(entry.body, seat)
        action = body.action
        try:
            state.check(action)
        except IllegalAction as exc:
            raise GameFault(self._who(entry), f"illegal action: {exc}") from None
        self._check_hash(entry.turn, seat, body.state_hash, entry)
        if isinstance(action, Clue):
            self._record_hash(entry.turn, seat, body.state_hash)
            before = state.copy()
            outcome = state.apply(action)
            self._events.append(ev.TurnResolved(entry.turn, action, outcome, before))
            self._ack(entry.turn, seat, [])
            self._after_turn()
            return
        deck = self._require_deck()
        mine: list[Any] = []
        if self.my_seat is not None:
            # Declare both reveals to our DeckPeer even for our own action: a peer resumed
            # from its log replays its own action without take_action(). Same bytes again.
            mine.extend(deck.public_share(action.card))
            if state.draw_index < state.config.deck_size:
                mine.extend(deck.deal_shares(state.draw_index, seat))
        # The actor's shares are checked before the turn is taken up: a bad one refuses the
        # entry with no pending turn and no ack of ours left behind.
        answers = self._receive_deck(seat, body.deck)
        self._record_hash(entry.turn, seat, body.state_hash)
        self.pending = PendingTurn(entry.turn, action)
        self._ack(entry.turn, seat, mine)
        self._after_deck(answers)

    def _ack(self, turn: int, actor: int, deck_msgs: list[Any]) -> None:
        if self.my_seat is None or self.my_seat == actor:
            return
        body = b.AckBody(self.my_hashes[turn], tuple(deck_msgs)).to_wire()
        self._post(f"ack:{turn}", "ack", body, turn=turn)

    def _on_ack(self, entry: Entry) -> None:
        seat = self._seat_or_fault(entry)
        body = b.AckBody.from_wire(entry.body)
        self._check_hash(entry.turn, seat, body.state_hash, entry)
        answers = self._receive_deck(seat, body.deck)
        self._record_hash(entry.turn, seat, body.state_hash)
        self._after_deck(answers)

    def _check_hash(self, turn: int, seat: int, digest: bytes, entry: Entry) -> None:
        """Raise GameFault, changing nothing, if the reported hash is a second or a wrong one."""
        if seat in self.reported_hashes.get(turn, {}):
            raise GameFault(self._who(entry), f"reported a second state hash for turn {turn}")
        mine = self.my_hashes.get(turn)
        if mine is not None and digest != mine:
            raise GameFault(
                self._who(entry),
                f"game state diverged at turn {turn}: {self.name_of(seat)} computed "
                f"{digest.hex()[:12]}, we computed {mine.hex()[:12]}",
            )

    def _record_hash(self, turn: int, seat: int, digest: bytes) -> None:
        self.reported_hashes.setdefault(turn, {})[seat] = digest

    def _try_resolve(self) -> None:
        state, pending = self.state, self.pending
        if state is None or pending is None or state.faces[pending.action.card] is None:
            return
        self.pending = None
        before = state.copy()
        outcome = state.apply(pending.action)
        self._events.append(ev.TurnResolved(pending.turn, pending.action, outcome, before))
        self._after_turn()

    def _after_turn(self) -> None:
        state = self._require_state()
        self.my_hashes[state.turn] = state.public_hash()
        if state.over:
            self._game_over()
        else:
            self._post_resign_if_due()

    def _game_over(self) -> None:
        state = self._require_state()
        self.phase = OVER
        self._events.append(ev.GameOver(state.end.value, state.score))
        if self.my_seat is not None:
            seed = b.SeedBody(tuple(self._require_deck().seed_reveal()))
            self._post("seed", "seed", seed.to_wire())

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
        self.chat_log.append((shown, text))
        self._events.append(ev.Chat(shown, text))

    def _on_resign(self, entry: Entry) -> None:
        seat = self._seat_or_fault(entry)
        reason = b.resign_from_wire(entry.body)
        self._events.append(ev.Resigned(seat, reason))
        if self.state is not None and not self.state.over:
            self.state.apply(Terminate(seat))
            self._after_turn()
        elif self.state is None:
            self.abort(None, f"{self.name_of(seat)} left before the deal: {reason}")

    def _on_seed(self, entry: Entry) -> None:
        seat = self._seat_or_fault(entry)
        if seat in self.seeds_from:
            raise GameFault(self._who(entry), "revealed its seed twice")
        body = b.SeedBody.from_wire(entry.body)
        self.seeds_from.add(seat)
        self._require_deck().receive(seat, body.deck)  # a seed reveal is answered by nothing
        if self.phase in (DECK, PLAY) and seat != self.my_seat:
            # its secrets are public now: every card it locked decodes, so play cannot go on
            who = self.describe(entry.author)
            if body.reason:
                claim = f"{who} stopped the game: {body.reason}"
            else:
                claim = f"{who} revealed its deck seed and left the game"
            self.abort(None, claim)
        if len(self.seeds_from) == len(self.seats) and self.phase in (OVER, ABORTED):
            self._run_audit()

    def _run_audit(self) -> None:
        result = self._require_deck().audit()
        self.audit = result
        if self.phase == OVER:
            self.phase = AUDITED
        self._events.append(ev.Audited(result.ok, result.reason, result.blamed_seat))

    # ------------------------------------------------------------ faults

    def abort(self, peer: bytes | None, reason: str) -> None:
        """Stop the game for good (a cheat, a divergence, a peer gone): reveal our seed."""
        if self.phase == ABORTED:
            return
        self.abort_reason = reason
        self.blamed = peer
        self.phase = ABORTED
        self._events.append(ev.Fault(peer, reason, fatal=True))
        if self.my_seat is not None and self.deck is not None:
            seed = b.SeedBody(tuple(self.deck.seed_reveal()), reason=reason, blame=peer)
            self._post("seed", "seed", seed.to_wire())

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


__all__ = ["GameFault", "TableSession"]
