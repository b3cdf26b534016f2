"""A player's core: everything a player's peer decides, with no IO (h11's shape).

In: `handle(input)` with one of the records of `inputs` (a resumed log, links coming up and
down, frames, our player's commands, deck checks done, time passing). Out: `drain()` -> the
effects for the shell to carry out in order (store, send, connect, notify the front end,
finish). Time is whatever the input says ``now`` is.

This class is a router over small machines, each owning its own state:

* `lifecycle`: where we are (`Stage`), changed only through its table;
* `replication`: HAVE/WANT with every connected peer, relaying anyone's entries;
* `admission`: whose entries we keep at all, and how fast one link may feed us;
* `lobby`: the host seating players (`HostLobby`), a joiner asking (`JoinerLobby`);
* `waiting`: a player thinking is never timed out; an unreachable one is, without blame;
* `ending`: stay until every seated peer holds every entry (bounded), then finish;
* `spectators`: serving `hanabi-p2p watch` (the spectator's own core is `WatcherCore`).

Blame: a player is blamed only for an entry carrying their valid signature (`base`).
"""

from __future__ import annotations

from collections.abc import Mapping

from hanabi_p2p import refusals as rf
from hanabi_p2p.errors import LocalProtocolError, Refusal
from hanabi_p2p.log.entry import Entry, EntryKind, make_entry
from hanabi_p2p.net import frames as fr
from hanabi_p2p.net.handshake import Signer
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer import inputs as ins
from hanabi_p2p.peer import watchwire as ww
from hanabi_p2p.peer.base import CoreBase, TopicRoute
from hanabi_p2p.peer.context import Timing
from hanabi_p2p.peer.ending import COMPLETE_TOPIC, Ending
from hanabi_p2p.peer.lifecycle import PLAYER_TRANSITIONS, Lifecycle, Stage, Trigger
from hanabi_p2p.peer.lobby import (
    LEFT_TOPIC,
    REMOVED_TOPIC,
    HostLobby,
    in_lobby,
)
from hanabi_p2p.peer.lobbywire import OUT_TOPIC
from hanabi_p2p.peer.spectators import GUEST_LINKS, Spectators
from hanabi_p2p.peer.waiting import Waiting
from hanabi_p2p.ratelimit import SlidingWindow
from hanabi_p2p.rules.actions import Move, TurnAction
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.bodies import Address
from hanabi_p2p.session.kinds import Post
from hanabi_p2p.session.table import ABORTED, AUDITED, DECK, OVER, PLAY, TableSession

# Our own table talk: at most this many messages per window.
CHAT_BURST = 5
CHAT_WINDOW_S = 10.0
# Rounds of "post, apply, react" one input may cause; each round posts or reports something.
MAX_SETTLE_ROUNDS = 10_000

_BEFORE_SEATING = frozenset({Stage.LOBBY, Stage.SEAT_ASKED})
_ALIVE = frozenset(set(Stage) - {Stage.DONE})


class PeerCore(CoreBase[Stage]):
    """One player's decisions. See the module docstring."""

    def __init__(
        self,
        identity: Signer,
        session: TableSession,
        *,
        address: Address,
        now: float,
        timing: Timing | None = None,
        auto_start: bool = True,
        player_name: str = "",
        runner: bytes | None = None,
        strict: bool = False,
    ) -> None:
        super().__init__(identity, session, address=address, now=now, timing=timing,
                         player_name=player_name,
                         lifecycle=Lifecycle(Stage.LOBBY, PLAYER_TRANSITIONS, strict))
        self.auto_start = auto_start
        self.joining.runner = runner
        self.hosting = HostLobby(self.ctx)
        self.waiting = Waiting(self.ctx, now)
        self.spectators = Spectators(self.ctx)
        self.ending = Ending(self.ctx, self.replication.have, self.replication.have_frame,
                             self._not_waited_for, lambda: self.caught,
                             self.spectators.one_lacks, self._finish)
        self._chat = SlidingWindow(CHAT_BURST, CHAT_WINDOW_S)
        # our turn action, signed, stored and sent but not applied yet: see `_send_first`
        self._unapplied: Entry | None = None
        self._stored_early: set[bytes] = set()  # hashes of such actions not applied yet
        self._routes: Mapping[str, TopicRoute[Stage]] = {
            COMPLETE_TOPIC: TopicRoute(self._on_complete, _ALIVE),
            REMOVED_TOPIC: TopicRoute(self._on_removed, _BEFORE_SEATING),
            LEFT_TOPIC: TopicRoute(self._on_left, _BEFORE_SEATING | {Stage.DEALING}),
            OUT_TOPIC: TopicRoute(self.joining.host_says_out, _BEFORE_SEATING),
            ww.WATCH_TOPIC: TopicRoute(self._on_watch, _ALIVE),
            ww.WATCHERS_TOPIC: TopicRoute(self.reported.on_report, _ALIVE),
            # a spectator's topics: a player hears them in no stage
            ww.WATCH_KEYS_TOPIC: TopicRoute(self._ignore, frozenset()),
            ww.WATCH_REFUSED_TOPIC: TopicRoute(self._ignore, frozenset()),
        }

    # ================================================================ queries

    @property
    def runner(self) -> bytes | None:
        """A computer player: whose machine runs it (`LobbyJoin.runner`)."""
        return self.joining.runner

    @runner.setter
    def runner(self, runner: bytes | None) -> None:
        self.joining.runner = runner

    @property
    def banned(self) -> set[bytes]:
        return self.hosting.banned

    @property
    def left_lobby(self) -> set[bytes]:
        return self.hosting.left

    @property
    def action_unapplied(self) -> bool:
        """Our turn action is with the shell: once stored and sent, say so (`ActionSent`)."""
        return self._unapplied is not None

    def left_out(self) -> set[bytes]:
        # a joiner lists the lobby as its host does (lobby.out): the host alone knows whom it
        # removed, and the removed joiner's signed request for a seat stays in every copy
        return self.hosting.left_out() | self.joining.out_by_host

    def watchers(self) -> tuple[fx.Watcher, ...]:
        return self.reported.listing(self.spectators.linked)

    def _kicked(self) -> set[bytes]:
        # only the banned: a joiner removed with `kick` may ask again, so its entries count
        return self.hosting.banned

    def _not_waited_for(self) -> set[bytes]:
        # never wait for a player caught cheating: it has nothing to learn from us
        return self.caught | self.hosting.left

    def _topics(self) -> Mapping[str, TopicRoute[Stage]]:
        return self._routes

    # ================================================================ inputs

    def _before_input(self) -> None:
        """Apply our turn action that `_send_first` had sent, and settle what follows: every
        input does this first, so nothing sees our state without it."""
        entry, self._unapplied = self._unapplied, None
        if entry is None:
            return
        self._apply_result(self.replica.add(entry), source=None)
        self._settle()

    def _peer_up(self, event: ins.PeerUp) -> None:
        self._before_input()
        peer_id = event.peer_id
        if not self.hosting.came_back(peer_id):
            return
        ctx = self.ctx
        ctx.connected.add(peer_id)
        ctx.up_at[peer_id] = ctx.now
        self.hosting.linked()
        self.waiting.link_up(peer_id)
        self.joining.link_up(peer_id)
        self.admission.link_up(peer_id)
        ctx.send(peer_id, self.replication.have_frame())
        for frame in self.ending.frames_for_a_new_link():
            ctx.send(peer_id, frame)
        if self.spectators.linked and self.session.seat_of(peer_id) is not None:
            ctx.send(peer_id, self.spectators.frame())
        ctx.event(fx.PeerLink(peer_id, up=True))
        if self.auto_start and peer_id in self.session.joins and in_lobby(ctx):
            # a joiner not seated while its link was down (see `HostLobby.start_game`) is back
            self.hosting.start_game(by_command=False)
            self._settle()
            return
        ctx.flush_events()

    def _peer_down(self, event: ins.PeerDown) -> None:
        self._before_input()
        peer_id, ctx = event.peer_id, self.ctx
        ctx.connected.discard(peer_id)
        self.admission.link_down(peer_id)
        self.spectators.link_down(peer_id)
        self.joining.link_down(peer_id)
        seated = self.session.seat_of(peer_id) is not None
        if seated:
            self.waiting.link_down(peer_id)
        self.replication.link_down(peer_id, seated=seated)
        ctx.event(fx.PeerLink(peer_id, up=False, reason=event.reason))
        ctx.flush_events()

    def _is_guest(self, peer_id: bytes) -> bool:
        """A peer we serve but do not sync with: a spectator, and anyone not seated once
        the table is."""
        return peer_id in self.spectators.linked or (
            bool(self.session.seats) and self.session.seat_of(peer_id) is None)

    def _on_have(self, peer_id: bytes, theirs: dict[bytes, int],
                 heads: Mapping[bytes, bytes]) -> None:
        if self._is_guest(peer_id):
            # a spectator (or a stranger): served what it lacks, never counted in what the
            # players hold, so nothing it claims can make us wait for or time out a player
            if peer_id in self.spectators.linked:
                self.spectators.holds[peer_id] = theirs  # bounds only our own linger
            self.replication.serve(peer_id, theirs, asked=False)
            return
        self.replication.on_have(peer_id, theirs, heads)
        self._check_linger()

    def _on_want(self, peer_id: bytes, theirs: dict[bytes, int]) -> None:
        if self._is_guest(peer_id):
            self.replication.serve(peer_id, theirs, asked=True)
        else:
            self.replication.answer(peer_id, theirs)

    def _command(self, event: ins.Command) -> None:
        self._before_input()
        command, session = event.command, self.session
        if self.stage is Stage.DONE and not isinstance(command, fx.Leave):
            raise rf.TableClosed()
        if isinstance(command, fx.Act):
            action = command.action
            if isinstance(action, Move):
                session.move_card(action.card, action.to)
            else:
                if session.my_turn() and not session.can_act():
                    raise rf.CardBeingRevealed()
                assert isinstance(action, TurnAction)
                session.take_action(action)
        elif isinstance(command, fx.Say):
            if not self._chat.allows(event.now):
                raise rf.SlowDown(CHAT_BURST, CHAT_WINDOW_S)
            session.say(command.text)  # (a refused text is not counted)
            self._chat.record(event.now)
        elif isinstance(command, fx.Resign):
            session.resign(command.reason)
        elif isinstance(command, fx.Abandon):
            session.abandon()
        elif isinstance(command, fx.Start):
            self.hosting.start_game(by_command=True)
        elif isinstance(command, fx.Kick):
            self.hosting.kick(command.peer_id, ban=command.ban)
        elif isinstance(command, fx.Rename):
            self.joining.rename(command.name)
        elif isinstance(command, fx.Leave):
            # a lobby left for good leaves nothing to resume or list; a game always does
            forget = command.forget and not session.seats
            self._finish(fx.EndKind.LEFT, command.reason, forget=forget, chosen=True)
            return
        self._settle()

    def _tick(self, _event: ins.Tick) -> None:
        if self.waiting.was_suspended():
            # we were not running: what we timed before the gap says nothing about others
            self.replication.reset_clocks()
            self.waiting.restart_down_clocks()
            self.joining.suspended()
        self._before_input()
        self.replication.tick(served=self._is_guest)
        if self.stage is not Stage.DONE:
            self.joining.check_lobby_timeout()
            self.joining.check_host_reachable()
            self.waiting.check()
            self._check_linger()
            self.admission.drop_silent_guests()
        self._settle()

    # ================================================================ messages

    def _ignore(self, _peer_id: bytes, _body: bytes) -> None:
        """(Never called: the topic's route has no stage.)"""

    def _on_removed(self, peer_id: bytes, body: bytes) -> None:
        self.joining.removed(peer_id, body)

    def _on_complete(self, peer_id: bytes, body: bytes) -> None:
        self.ending.on_complete(peer_id, body)
        self._check_linger()

    def _on_watch(self, peer_id: bytes, body: bytes) -> None:
        if self.spectators.on_watch(peer_id, body, kicked=self.hosting.banned):
            self.admission.said_it_watches(peer_id)

    def _on_left(self, peer_id: bytes, _body: bytes) -> None:
        """A peer left the lobby: if it is the host, the table is gone (stop, saying so);
        if it is a joiner of ours, it no longer waits for a seat. Only on its own link, and
        only before the seating — or as it was being seated (see
        `HostLobby.left_during_the_deal`)."""
        session = self.session
        if (session.phase == DECK and peer_id != self.me
                and session.seat_of(peer_id) is not None and session.my_seat is not None):
            self.hosting.left_during_the_deal(peer_id)
            return
        if not in_lobby(self.ctx):
            return
        self.joining.host_left(peer_id)
        self.hosting.joiner_left(peer_id)

    # ================================================================ posting and settling

    def _sign(self, post: Post) -> Entry:
        seq, prev = self.replica.next_link(self.me)
        kind, turn, body = post.wire()
        entry = make_entry(self.identity, table_id=self.session.table_id, seq=seq,
                           prev=prev, turn=turn, kind=kind, body=body)
        self.replication.made(entry)
        return entry

    def _send_first(self, outbox: list[Post]) -> bool:
        """Our turn action alone: store and send it before applying it ourselves. The others
        are waiting for it, and our own application of it (the rules, the deck, the events
        for our screen) changes nothing in its bytes: the session checked the action against
        the rules before posting it. The shell says when it has sent it (`ActionSent`), and
        every other input applies it first, so nothing sees our state without it; the
        session meanwhile says it is not our turn (we have acted)."""
        if len(outbox) != 1 or outbox[0].kind is not EntryKind.ACTION or self._loading:
            return False
        entry = self._sign(outbox[0])
        self.counters.applied_at.setdefault(entry.hash, self.ctx.now)  # (when it was made)
        self._unapplied = entry
        self._stored_early.add(entry.hash)
        self.ctx.emit(fx.StoreEntry(entry, own=True))
        self.replication.broadcast(entry)
        return True

    def _stored_already(self, entry: Entry) -> bool:
        if entry.author == self.me and entry.hash in self._stored_early:
            self._stored_early.discard(entry.hash)  # stored and sent before
            return True
        return False

    def _settle(self) -> None:
        """Sign and apply what the session wants to post, pass its events on, react to them
        (lobby decisions), until nothing more happens; then check whether we are done."""
        session = self.session
        for _ in range(MAX_SETTLE_ROUNDS):
            outbox = session.take_posts()
            if self._send_first(outbox):
                return  # the rest once the shell has sent it (`ActionSent`, or any input)
            for post in outbox:
                self._apply_result(self.replica.add(self._sign(post)), source=None)
            events = session.take_events()
            self.ctx.events.extend(events)  # first: what they cause is reported after them
            self._on_session_events(events)
            self._maybe_request_seat()
            if not session.has_outbox:
                break
        else:
            raise LocalProtocolError("the session keeps posting: a loop in the peer core")
        self.ctx.flush_events(always=True)
        self.spectators.send_keys()
        self._hand_out_deck_checks()
        if self.stage is Stage.DEALING and session.phase in (PLAY, OVER):
            self.lifecycle.fire(Trigger.DEALT)
        if self.stage is not Stage.DONE and session.phase in (AUDITED, ABORTED):
            if self.stage is not Stage.LINGERING:
                # a peer cut off during the audit may need our entries until it would give
                # up on us itself, and one we gave up on may come back and must learn why
                # the game ended: stay as long as either bound
                self.lifecycle.fire(Trigger.GAME_ENDED)
                self.ending.start()
            self._check_linger()

    def _check_linger(self) -> None:
        if self.stage is Stage.LINGERING:
            self.ending.check()

    def _on_session_events(self, events: list[ev.Event]) -> None:
        for event in events:
            if isinstance(event, ev.PlayerJoined):
                if event.peer_id in self.left_out():
                    continue
                self.hosting.changed()
                if self.auto_start:
                    self.hosting.start_game(by_command=False)
            elif isinstance(event, ev.Seated):
                self._on_seated()

    def _on_seated(self) -> None:
        asked = self.stage is Stage.SEAT_ASKED
        self._seated_effects(GUEST_LINKS)  # a player takes a few spectators
        seated = self.ctx.seated()
        for peer_id in [p for p in self.ctx.sync.peers if p not in seated]:
            self.ctx.sync.forget(peer_id)  # what a joiner or spectator claimed counts no more
        for peer_id in sorted(self.connected - seated - set(self.spectators.linked)):
            self.ctx.emit(fx.Disconnect(peer_id, "not seated at this table"))
        if self.session.my_seat is None and self.session.host_id != self.me:
            if asked or self.me in self.session.joins:
                self._finish(fx.EndKind.LEFT, str(full := rf.TableFull()), refusal=full)
            else:
                # we came after the seating and never asked: nothing of ours to keep
                begun = rf.TableFullGameBegun()
                self._finish(fx.EndKind.LEFT, str(begun), forget=True, refusal=begun)

    def _maybe_request_seat(self) -> None:
        """Joiner: ask for a seat once we hold everything the host has told us of."""
        if self.stage is Stage.LOBBY and self.joining.may_ask():
            self.lifecycle.fire(Trigger.ASKED_FOR_SEAT)
            self.joining.ask_for_seat()

    def _finish(self, kind: fx.EndKind, failure: str | None, *, forget: bool = False,
                chosen: bool = False, refusal: Refusal | None = None) -> None:
        if self.stage is Stage.DONE:
            return
        if kind is fx.EndKind.AUDITED and failure is None and self.late_fault is not None:
            failure = f"after the audit, {self.late_fault}"
        if in_lobby(self.ctx):
            # whoever waits with us for this table learns at once that we are gone
            self.ctx.emit(fx.Broadcast(fr.Message(LEFT_TOPIC, b"")))
        self._end(kind, failure, forget, chosen, refusal)
