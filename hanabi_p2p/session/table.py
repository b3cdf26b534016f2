"""The table session: the sans-IO application that turns replicated log entries into a game.

One ``TableSession`` per peer. It is the ``app`` of the log's ``Replica``: the replica checks
signatures and chains and decides *when* an entry may apply (``ready``); the session checks
the game meaning of the entry (``apply``) and writes this peer's own answers into its outbox.
No sockets, clocks or threads: the shell feeds entries in and drains ``take_outbox()`` and
``take_events()``.

Message flow (every message is a signed log entry, broadcast to every peer), one stage of
the session each, one module each, every stage a subclass of the one before:

* state, queries, outbox, phase: ``SessionBase`` (session/base.py);
* lobby: ``LobbyStage`` (session/lobby.py): the table, requests for seats, the seating;
* deck: ``DeckStage`` (session/dealing.py): the shuffle, the lock, the deal;
* turns: ``TurnStage`` (session/turns.py): actions, answers, resignations, hand moves;
* end: ``EndStage`` (session/end.py): seeds, the deck audit, stopping the game;
* ``TableSession`` (this module): when an entry may apply, and to which stage it goes.

The phase changes through one table (session/phase.py); the kinds are listed once, in the
table of session/kinds.py.

Determinism (protocol/SPEC.md 5.4). Every kind has one stage of the game where it applies
(its row in the table of kinds, session/kinds.py), and an entry's *place* — its envelope
turn, its kind's step within a turn, its author and seq (``place``) — is a function of its
content alone. The replica retries held entries in place order, and any two entries that
can be ready at the same time commute: public game state changes only through turn
actions, applied strictly in turn order; deck messages commute (the DeckPeer holds early
ones); table talk is kept in place order; hand reorders do not enter the state hash; an
observer (the log verifier) never stops on a seed. So every honest peer holding the same
entries computes the same state, and the verifier's verdict is a function of the set of
entries (tests/session/test_session_order.py permutes real games to show it).
"""

from __future__ import annotations

from typing import assert_never

from hanabi_p2p.log.entry import Entry, EntryKind
from hanabi_p2p.rules.actions import Clue
from hanabi_p2p.session import bodies as b
from hanabi_p2p.session import kinds as k
from hanabi_p2p.session import pace
from hanabi_p2p.session.base import GameFault
from hanabi_p2p.session.dealing import is_deal
from hanabi_p2p.session.end import EndStage
from hanabi_p2p.session.kinds import Place, Stage, place
from hanabi_p2p.session.phase import Phase
from hanabi_p2p.session.waiting import WaitKind

# The old module-level names stay: the peer and the UI compare phases with them.
LOBBY, DECK, PLAY, OVER, AUDITED, ABORTED = (
    Phase.LOBBY, Phase.DECK, Phase.PLAY, Phase.OVER, Phase.AUDITED, Phase.ABORTED,
)


class TableSession(EndStage):
    """The game as one peer sees it. Feed it entries; read its state, outbox and events."""

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

    def note_own(self, entry: Entry) -> None:
        """Record the purpose of one of our own stored entries (used when resuming)."""
        self._note_purpose(entry)

    def _note_purpose(self, entry: Entry) -> None:
        purpose = _purpose(entry)
        if purpose is not None:
            self._posted.add(purpose)

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
        kind = entry.entry_kind
        stage = k.SPECS[kind].stage
        if kind is EntryKind.TABLE_OPEN:
            return True
        if self.table is None:
            return False
        if stage is Stage.LOBBY or stage is Stage.ANY:
            if kind is EntryKind.LOBBY_SEAT:
                # wait until every seated player's own request for a seat is here, whatever
                # order the entries arrive in
                seating = k.body_of(entry, k.LOBBY_SEAT)
                return all(self.seated_join(s) is not None for s in seating.seats[1:])
            return True
        if not self.seats:
            return False  # every later stage waits for the seating
        if kind is EntryKind.SEED:
            return self._seed_ready(entry)
        if kind is EntryKind.DECK:
            # the deal applies once the deck is locked; the deck steps at once (the
            # DeckPeer holds a step that comes early)
            return self.state is not None or not is_deal(k.body_of(entry, k.DECK))
        state = self.state
        if state is None or self.deck is None:
            return False  # the play stage waits for the deal (a resign too: SPEC 5.4)
        if self.phase == Phase.ABORTED:
            # we stopped the game: every later entry is taken at once, played only if it
            # could be anyway (a resignation), else recorded (its deck messages kept for
            # the audit). Holding one would hold its author's seed behind it, and we would
            # end without auditing (SPEC 5.4)
            return True
        if kind is EntryKind.RESIGN:
            return self._resign_playable(entry)
        if kind is EntryKind.ACTION:
            return self._action_ready(entry)
        if kind is EntryKind.ACK:
            answered = entry.turn < state.turn or (
                self.pending is not None and self.pending.turn == entry.turn
            )
            # an answer to a version of the action we do not hold waits (a fork by the
            # actor, not the acker's fault) until the game stops (SPEC 5.4, 5.5)
            return answered and self._forked_turn(entry, k.body_of(entry, k.ACK)) is None
        if kind is EntryKind.ABANDON:
            return self._abandon_ready(entry)
        # move
        move = k.body_of(entry, k.MOVE)
        return move.card < state.draw_index or state.over

    def names_a_version_we_lack(self, entry: Entry) -> bool:
        """Does this held entry wait because it follows, or answers, a version of a turn's
        action other than the one we applied (a fork, SPEC 5.4)? Its author's entries then
        stop with it until the fork is proven: for the waiting clocks, they no longer reach
        us (a player that names versions nobody holds must not keep the game waiting)."""
        if entry.entry_kind not in (EntryKind.ACK, EntryKind.ACTION):
            return False
        try:
            body = k.body_of(entry, k.SPECS[entry.entry_kind])
        except b.BadBody:
            return False
        return self._forked_turn(entry, body) is not None

    def _resign_playable(self, entry: Entry) -> bool:
        """A resignation applies at the start of its author's turn (nothing pending), or
        once the game is over (SPEC 5.4)."""
        state = self.state
        assert state is not None
        return state.over or (
            self.pending is None
            and state.turn >= entry.turn
            and state.current_seat == self.seat_of(entry.author)
        )

    def _abandon_ready(self, entry: Entry) -> bool:
        """A vote applies at once; the vote that ends the game, like a resignation, at the
        start of its author's turn (nothing pending), and only once every other seat's vote
        is applied: nothing else can move the game on there, so every peer ends it at that
        same point (SPEC 5.4)."""
        if not k.body_of(entry, k.ABANDON).end:
            return True
        state = self.state
        seat = self.seat_of(entry.author)
        assert state is not None
        if seat is None or state.over:
            return True  # (refused, or nothing to end, in apply)
        return (self.pending is None and state.turn >= entry.turn
                and state.current_seat == seat and self._others_voted(seat))

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
        body = k.body_of(entry, k.ACTION)
        if self._forked_turn(entry, body) is not None:
            return False  # it follows a version of the last action we do not hold: a fork
        action = body.for_seat(seat).action
        # (a spectator takes a clue as its target does, by the cards it names: it may not
        # see them, and the players check it anyway)
        if (isinstance(action, Clue) and action.target != self.my_seat
                and not self._spectator_view):
            if not 0 <= action.target < len(state.hands):
                return True
            # wait until we see every card the clue could touch, so we can check it
            return all(state.faces[c] is not None for c in state.hands[action.target])
        return True

    def _playable_after_abort(self, entry: Entry) -> bool:
        """Chat, seeds and a resignation at a point our stopped game reached are played
        after an abort; a resignation from a turn it never reached is only recorded."""
        if entry.entry_kind is not EntryKind.RESIGN:
            return True
        return self.state is not None and self._resign_playable(entry)

    def apply(self, entry: Entry) -> None:
        """Apply one entry the replica found ready. Raises HanabiError to reject it."""
        spec = k.SPECS[entry.entry_kind]
        if spec.turn_zero and entry.turn != 0:
            raise GameFault(
                self._who(entry), f"a {entry.kind} entry belongs to no turn (its turn must be 0)"
            )
        limit = self.side_posts.over_limit(entry.author, spec.kind)
        if limit is not None:  # (every kind counts, whatever the phase: SPEC 5.5)
            raise GameFault(self._who(entry), pace.fault_text(spec.kind, limit))
        if entry.author == self.me:
            self._note_purpose(entry)
        stopped = self.phase == Phase.ABORTED
        if stopped and not (spec.after_abort and self._playable_after_abort(entry)):
            self._record_after_abort(entry, spec)
        else:
            self._handle(entry, k.body_of(entry, spec))
        self.side_posts.note(entry.author, spec.kind)
        if (
            self.audit is not None
            and self.deck is not None
            and len(self.deck.transcript) > self._audited_messages
        ):
            # a deck message that came after the audit (a late answer to the last turn, or
            # one a cheater appended): audited like every other (SPEC 5.3 step 5)
            if self._audit_without_seed:
                self._audit_withheld_seed()
            else:
                self._run_audit()

    def _handle(self, entry: Entry, body: b.Body) -> None:
        """Hand an entry to its stage, by its typed body (one body type per kind)."""
        match body:
            case b.TableOpen():
                self._on_table_open(entry, body)
            case b.LobbyJoin():
                self._on_lobby_join(entry, body)
            case b.LobbySeat():
                self._on_lobby_seat(entry, body)
            case b.DeckBody():
                self._on_deck(entry, body)
            case b.ActionBody():
                self._on_action(entry, body)
            case b.AckBody():
                self._on_ack(entry, body)
            case b.MoveBody():
                self._on_move(entry, body)
            case b.ChatBody():
                self._on_chat(entry, body)
            case b.ResignBody():
                self._on_resign(entry, body)
            case b.SeedBody():
                self._on_seed(entry, body)
            case b.AbandonBody():
                self._on_abandon(entry, body)
            case _:
                assert_never(body)


def _purpose(entry: Entry) -> str | None:
    """The purpose of one of our entries, the same ``_post`` gave it."""
    return k.purpose(entry.entry_kind, entry.turn, entry.body)


__all__ = ["GameFault", "Phase", "Stage", "TableSession", "place"]
