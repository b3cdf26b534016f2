"""The peer core: everything a peer decides, with no IO (h11's shape).

In: ``load`` (a resumed log), ``peer_up``/``peer_down``/``link_failed`` (the mesh),
``receive(peer, frame)``, ``command(...)`` (the player) and ``tick(now)`` (time passing).
Out: ``drain()`` -> effects for the shell to carry out in order (store, send, connect,
notify the front end, finish); the shell draws again once it has carried them all out,
until it gets none. Time is whatever the caller says ``now`` is.

What it decides:

* sync: HAVE/WANT with every connected peer, relaying anyone's entries to whoever lacks
  them, so entries travel by every live path;
* admission: whose entries we hold at all (strangers get a small fixed budget in the lobby
  and nothing once the table is seated), and how fast one link may feed us;
* blame: a player is blamed only for an entry carrying their valid signature (an illegal
  action, a bad proof, two entries with one number). Anything else - bytes that do not
  decode, a link that drops, a peer we cannot reach - is a link problem or "unreachable";
* waiting: a player thinking is never timed out; an unreachable one is, without blame;
* the lobby: the host seats players (on ``Start``, or by itself when the table fills);
* spectators (SPEC §4.8): a peer that says ``watch`` gets the log read-only (never a seat,
  never an entry of its own taken), a bounded number of them, and at a table with the
  ``spectators`` option our keys of the cards we dealt to others; players tell each other
  who watches. A core made with ``watching=True`` is such a spectator;
* the end: stay until every seated peer holds every entry (bounded), then finish.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field

from hanabi_p2p.errors import HanabiError, IllegalAction, LocalProtocolError
from hanabi_p2p.limits import MAX_PLAYER_NAME_CHARS, MAX_WATCHERS, PEER_ID_BYTES
from hanabi_p2p.log.entry import Entry, decode_entry, make_entry
from hanabi_p2p.log.replica import AddResult, Replica, Status
from hanabi_p2p.net import frames as fr
from hanabi_p2p.net.handshake import Signer
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer import watchwire as ww
from hanabi_p2p.peer.sync import SyncTracker
from hanabi_p2p.peer.waits import WaitClock
from hanabi_p2p.ratelimit import SlidingWindow, TokenBucket
from hanabi_p2p.rules.actions import Move, TurnAction
from hanabi_p2p.safe_text import fold_marks, safe
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.bodies import Address, TableOption, validate_body
from hanabi_p2p.session.table import ABORTED, AUDITED, DECK, LOBBY, PLAY, TableSession

# How often we tell every peer what we hold, so gaps left by a dropped link get filled.
SYNC_INTERVAL_S = 1.0
# Entries sent in answer to one HAVE/WANT; the rest follow on the next round.
MAX_ENTRIES_PER_ANSWER = 256
# After the game, how long (at least) we stay for peers that still lack some of our entries;
# at most as long as the wait timeout, when that is longer (a peer cut off during the audit
# waits that long for what it lacks).
LINGER_S = 20.0
# After the game, how long (at most) we also stay for the spectators linked to us that still
# lack some of it (their HAVE says what they hold), so that one who came late, or is still
# catching up, sees the end of the game. Players come first: this never shortens the wait
# for them; and a spectator that claims to lack entries for ever keeps us this long at most.
SPECTATOR_LINGER_S = 10.0
# A spectator let see the hands that holds the whole game waits at most this long for the
# keys of cards still in a hand that are on their way to it (`_hand_keys_on_their_way`).
HAND_KEYS_WAIT_S = 3.0
# A spectator that knows the game is over (players told it they hold all of it) and has had
# no link to any player for this long gives up: nobody is left who could send the rest.
SPECTATOR_ALONE_S = 5.0
# A spectator that knows no player yet (it has not had the seating) and has had no link this
# long gives up: the table closed (a game that ended as it arrived) or cannot be reached.
SPECTATOR_UNLINKED_S = 15.0
# A connected peer that sent no HAVE for this long is not answering (a live one sends one
# every sync interval, even while its player thinks).
SILENCE_S = 10 * SYNC_INTERVAL_S
# Entries of an author that someone else holds and we lack for this long are not reaching us.
STALL_S = 5 * SYNC_INTERVAL_S
# A gap this long between two ticks means we were suspended (SIGSTOP, a sleeping laptop).
SUSPEND_GAP_S = 5.0
# Lobby admission: joiners we keep entries of, and entries we keep of each before seating
# (an honest joiner writes one lobby.join and maybe a little chat).
MAX_LOBBY_JOINERS = 8
MAX_LOBBY_ENTRIES_PER_JOINER = 16
# Entry frames one link may feed us: a burst, then a steady rate (tokens per second). What
# is over is dropped unread and fetched again later by HAVE/WANT, so nothing is lost.
ENTRY_BURST = 2000
ENTRY_RATE_PER_S = 500.0
# Our own table talk: at most this many messages per window.
CHAT_BURST = 5
CHAT_WINDOW_S = 10.0
# Answers to a peer's HAVE with our own HAVE, at most this often (no ping-pong).
HAVE_ECHO_S = 0.2
# Every seated peer is linked to every other, so an entry applied this recently, while the
# link to a peer was up, is still on its way to that peer from its author: a HAVE that lacks
# it is not answered with it, nor is it asked for from a peer that claims it. Each entry then
# crosses each link once instead of two or three times; one that is really lost goes with
# the first HAVE after this long (a sync interval later at most).
IN_FLIGHT_S = 0.5

# MSG topic after the game: the peer ids (32 bytes each) the sender knows hold every entry.
COMPLETE_TOPIC = "complete"
# MSG topic in the lobby, host -> a joiner it removed (`kick`), just before closing the link:
# the joiner stops at once instead of waiting for a table that will not take it. Empty body.
REMOVED_TOPIC = "lobby.removed"
# MSG topic in the lobby, from a peer leaving a table that has seated nobody yet, to every peer
# it is linked to: the host's joiners stop (the table is gone), the host stops counting a
# joiner that left (until it links up again). Empty body.
LEFT_TOPIC = "lobby.left"

TABLE_FILLED = "the table is full: the host seated other players before our request came"
TABLE_STARTED = "the table is full and its game has begun (hanabi-p2p watch follows it)"
REMOVED_BY_HOST = "the host removed you from the table"
HOST_LEFT = "the host closed the table"
# Once seated, a link of a peer that is not a player must say ``watch`` within this long.
WATCH_HELLO_S = 5.0
# A link we serve as a spectator (not a player) is answered at most this often, so a
# spectator's HAVE/WANT cannot make us send the log over and over.
SPECTATOR_ANSWER_S = 0.2
# More than this many links of unseated peers are refused by the mesh itself (spectators,
# and strangers not yet said what they are).
GUEST_LINKS = MAX_WATCHERS + 2


@dataclass
class Timing:
    """Tunables; tests shorten them."""

    sync_interval: float = SYNC_INTERVAL_S
    # give up on what keeps the game waiting this long (seconds; None = never)
    wait_timeout: float | None = 600.0
    linger: float = LINGER_S
    spectator_linger: float = SPECTATOR_LINGER_S
    # end a lobby nobody completes within this long (None = wait for ever, as people do)
    lobby_timeout: float | None = None


@dataclass
class Counters:
    """What the core refused or saw go wrong, for screens and tests."""

    link_problems: int = 0
    strangers_refused: int = 0
    rate_dropped: int = 0
    # entry hash -> the core's time when it applied the entry: the `now` of the call that
    # did (a frame's arrival at the core, or our own command), not when that call returned
    applied_at: dict[bytes, float] = field(default_factory=dict)


class PeerCore:
    """One peer's decisions. See the module docstring."""

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
        watching: bool = False,
    ) -> None:
        self.identity = identity
        self.watching = watching  # a spectator: never seated, never posts
        self.me = identity.peer_id
        self.session = session
        self.address = address
        self.timing = timing or Timing()
        self.auto_start = auto_start
        self.player_name = player_name
        self.runner = runner  # a computer player: whose machine runs it (LobbyJoin.runner)
        self.replica = Replica(session.table_id, session)
        self.sync = SyncTracker()
        self.waits = WaitClock(self.timing.wait_timeout)
        self.counters = Counters()
        self.connected: set[bytes] = set()
        self.kicked: set[bytes] = set()
        # joiners that said they left the lobby (lobby.left), until they link up again
        self.left_lobby: set[bytes] = set()
        self.finished: fx.Finished | None = None
        self._effects: list[fx.Effect] = []
        self._events: list[ev.Event] = []
        self._started_at = now
        self._last_tick: float | None = None
        self._last_have_sent = now
        self._have_echo_at: dict[bytes, float] = {}
        self._down_since: dict[bytes, float] = {}
        # a joiner's host, unreachable in the lobby since (None: linked, or not a joiner)
        self._host_down_since: float | None = None
        self._up_at: dict[bytes, float] = {}  # when each peer's current link came up
        self._applied_from: dict[bytes, float] = {}  # author -> when we last applied its entry
        self._got_at: dict[bytes, float] = {}  # entry hash -> when we made or first received it
        self._buckets: dict[bytes, TokenBucket] = {}
        self._chat = SlidingWindow(CHAT_BURST, CHAT_WINDOW_S)
        self._linger_until: float | None = None
        self._spectators_until: float | None = None
        self._seat_requested = False
        self._caught: set[bytes] = set()  # players blamed on their own signed entries
        # after the game: who holds all of it, as we told others and as others told us
        self._told_complete: frozenset[bytes] = frozenset()
        self._known_complete: set[bytes] = set()
        self._loading = False
        # our turn action, signed, stored and sent but not applied yet: see `_send_first`
        self._unapplied: Entry | None = None
        self._stored_early: set[bytes] = set()  # hashes of such actions not applied yet
        self._checks_out = False  # a CheckDeck is with the shell
        self._now = now
        # spectators linked to us (peer -> its name), and those other players reported
        self._watchers: dict[bytes, str] = {}
        self._reported_watchers: dict[bytes, dict[bytes, str]] = {}
        self._keys_sent: dict[bytes, set[int]] = {}
        self._hand_keys_wait_until: float | None = None  # a spectator's, after the game
        self._guest_since: dict[bytes, float] = {}
        self._served_at: dict[bytes, float] = {}
        # what each spectator linked to us last said it holds (its HAVE), for the linger
        self._watcher_holds: dict[bytes, dict[bytes, int]] = {}
        # a spectator: since when no player is linked to us (None while one is)
        self._alone_since: float | None = None

    # ================================================================ inputs

    def load(self, entries: list[Entry]) -> None:
        """Replay our stored entries (a resumed peer) before going online."""
        for entry in entries:
            if entry.author == self.me:
                self.session.note_own(entry)
        self._loading = True
        try:
            for entry in entries:
                self._handle(self.replica.add(entry), source=None)
        finally:
            self._loading = False
        self._settle()

    def start(self, now: float) -> None:
        """Go online: post whatever the session wants to say and greet nobody yet."""
        self._now = now
        self._apply_sent()
        self._settle()

    def peer_up(self, peer_id: bytes, now: float) -> None:
        self._now = now
        self._apply_sent()
        if peer_id in self.kicked:  # (it came back: tell it again)
            self._remove(peer_id)
            return
        if peer_id in self.left_lobby:  # it came back to the lobby it had left
            self.left_lobby.discard(peer_id)
            self._event(fx.LobbyChanged(len(self.lobby())))
        self.connected.add(peer_id)
        self._up_at[peer_id] = now
        self._down_since.pop(peer_id, None)
        if peer_id == self.session.host_id:
            self._host_down_since = None
        if self.watching:
            self._effects.append(fx.Send(peer_id, fr.Message(
                ww.WATCH_TOPIC, ww.encode_watch(self.player_name))))
        elif self.session.seats and self.session.seat_of(peer_id) is None:
            self._guest_since.setdefault(peer_id, now)  # must say what it is, soon
        self._effects.append(fx.Send(peer_id, fr.Have(self._have())))
        if self._told_complete:
            self._effects.append(fx.Send(peer_id, self._complete_frame()))
        if self._watchers and self.session.seat_of(peer_id) is not None:
            self._effects.append(fx.Send(peer_id, self._watchers_frame()))
        self._event(fx.PeerLink(peer_id, up=True))
        if self.auto_start and peer_id in self.session.joins and self._in_lobby():
            # a joiner not seated while its link was down (see `_start_game`) is back
            self._start_game(by_command=False)
            self._settle()
            return
        self._flush_events()

    def peer_down(self, peer_id: bytes, reason: str, now: float) -> None:
        self._now = now
        self._apply_sent()
        self.connected.discard(peer_id)
        self._buckets.pop(peer_id, None)
        self._guest_since.pop(peer_id, None)
        self._served_at.pop(peer_id, None)
        self._watcher_holds.pop(peer_id, None)
        if self._watchers.pop(peer_id, None) is not None:
            self._keys_sent.pop(peer_id, None)
            self._watchers_changed()
        if peer_id == self.session.host_id and self._host_down_since is None:
            self._host_down_since = now
        if self.session.seat_of(peer_id) is not None:
            self._down_since.setdefault(peer_id, now)
        else:  # a stranger (or a joiner before seating) leaves nothing behind
            self._have_echo_at.pop(peer_id, None)
            self.sync.forget(peer_id)
        self._event(fx.PeerLink(peer_id, up=False, reason=reason))
        self._flush_events()

    def link_failed(self, reason: str, *, address: str = "", peer_id: bytes | None = None,
                    now: float) -> None:
        """A connection that never became a link, or one closed for misbehaving bytes."""
        self._now = now
        self._apply_sent()
        self.counters.link_problems += 1
        self._event(fx.LinkProblem(peer_id, reason, address))
        self._flush_events()

    def receive(self, peer_id: bytes, frame: fr.Frame, now: float, *,
                answer: bool = True) -> None:
        """Take a frame in. With ``answer=False`` an entry is applied (stored, relayed) but
        what it makes us say (an ack, a deck step) waits for ``answer_now``: a shell takes
        in every entry that has arrived before it signs anything."""
        self._now = now
        self._apply_sent()
        if isinstance(frame, fr.Entry):
            self._on_entry_frame(peer_id, frame)
            if not answer:
                return
        elif isinstance(frame, fr.Have):
            self._on_have(peer_id, dict(frame.next_seq))
        elif isinstance(frame, fr.Want):
            if self._is_guest(peer_id):
                self._serve(peer_id, dict(frame.from_seq))
            else:
                self._answer(peer_id, dict(frame.from_seq))
        elif isinstance(frame, fr.Message) and frame.topic == COMPLETE_TOPIC:
            self._on_complete(peer_id, frame.body)
        elif isinstance(frame, fr.Message) and frame.topic == REMOVED_TOPIC:
            self._on_removed(peer_id)
        elif isinstance(frame, fr.Message) and frame.topic == LEFT_TOPIC:
            self._on_left_lobby(peer_id)
        elif isinstance(frame, fr.Message) and frame.topic == ww.WATCH_TOPIC:
            self._on_watch(peer_id, frame.body)
        elif isinstance(frame, fr.Message) and frame.topic == ww.WATCH_KEYS_TOPIC:
            self._on_watch_keys(peer_id, frame.body)
        elif isinstance(frame, fr.Message) and frame.topic == ww.WATCHERS_TOPIC:
            self._on_watchers_report(peer_id, frame.body)
        elif isinstance(frame, fr.Message) and frame.topic == ww.WATCH_REFUSED_TOPIC:
            self._on_watch_refused(peer_id, frame.body)
        self._settle()

    @property
    def answer_due(self) -> bool:
        """Whether ``answer_now`` may sign something for the entries taken in with
        ``receive(answer=False)``: an ack or a deck step the session posts, or, before the
        game is in play, what the lobby decides (asking for a seat, seating). False: it
        would only pass their events on, and may be called at once."""
        return self.session.has_outbox or self.session.phase is not PLAY

    def answer_now(self, now: float) -> None:
        """Sign and send what the entries taken in with ``receive(answer=False)`` call for."""
        self._now = now
        self._apply_sent()
        self._settle()

    def command(self, command: fx.Command, now: float) -> None:
        """Carry out a command of our player; raises HanabiError (nothing sent) if refused."""
        self._now = now
        self._apply_sent()
        if self.finished is not None and not isinstance(command, fx.Leave):
            raise IllegalAction("the table is closed: nothing more can be sent")
        if self.watching and not isinstance(command, fx.Leave):
            raise IllegalAction("spectators watch: they cannot play, talk or start the game")
        session = self.session
        if isinstance(command, fx.Act):
            action = command.action
            if isinstance(action, Move):
                session.move_card(action.card, action.to)
            else:
                if session.my_turn() and not session.can_act():
                    raise IllegalAction("one moment: the last card is still being revealed")
                assert isinstance(action, TurnAction)
                session.take_action(action)
        elif isinstance(command, fx.Say):
            if not self._chat.allows(now):
                raise IllegalAction(
                    f"slow down: at most {CHAT_BURST} messages every {CHAT_WINDOW_S:g} s")
            session.say(command.text)  # (a refused text is not counted)
            self._chat.record(now)
        elif isinstance(command, fx.Resign):
            session.resign(command.reason)
        elif isinstance(command, fx.Start):
            self._start_game(by_command=True)
        elif isinstance(command, fx.Kick):
            self._kick(command.peer_id)
        elif isinstance(command, fx.Leave):
            # a lobby left for good leaves nothing to resume or list; a game always does
            forget = command.forget and not session.seats
            self._finish(fx.EndKind.LEFT, command.reason, forget=forget, chosen=True)
            return
        self._settle()

    def deck_checked(self, outcome: fx.CheckOutcome, now: float) -> None:
        """The shell ran the jobs of our last CheckDeck (see there)."""
        self._now = now
        self._apply_sent()
        self._checks_out = False
        self.session.deck_checks_done(outcome)
        self._settle()

    def tick(self, now: float) -> None:
        """Time passed: sync, time out waits, finish lingering."""
        if self._last_tick is not None and now - self._last_tick > SUSPEND_GAP_S:
            # we were not running: what we timed before the gap says nothing about others
            self.waits.restart(now)
            self.sync.reset_clocks(now)
            for peer_id in self._down_since:
                self._down_since[peer_id] = now
            if self._alone_since is not None:
                self._alone_since = now
            if self._host_down_since is not None:
                self._host_down_since = now
        self._last_tick = now
        self._now = now
        self._apply_sent()
        if now - self._last_have_sent >= self.timing.sync_interval:
            self._last_have_sent = now
            have = fr.Have(self._have())
            for peer_id in sorted(self.connected):
                self._effects.append(fx.Send(peer_id, have))
        if self.finished is None:
            self._check_lobby_timeout(now)
            self._check_host_reachable(now)
            if not self.watching:  # a spectator times nobody out: it is not in the game
                self._check_waiting(now)
            else:
                self._check_alone(now)
            self._check_linger(now)
            self._drop_silent_guests(now)
        self._settle()

    def drain(self) -> list[fx.Effect]:
        """The effects to carry out, in order. Once the shell has carried out all it was
        given (our turn action stored and sent), drawing again applies that action."""
        if not self._effects:
            self._apply_sent()
        out, self._effects = self._effects, []
        return out

    # ================================================================ queries

    def describe(self, peer_id: bytes) -> str:
        return self.session.describe(peer_id)

    def members(self) -> frozenset[bytes]:
        """Authors whose entries we keep and sync: the seated players. Before seating, the
        host keeps the joiners it admitted; a joiner, linked to the host alone, keeps
        whatever the host passes on (the host is the lobby's gatekeeper)."""
        session = self.session
        seats = session.seats
        if seats:
            return frozenset(s.peer_id for s in seats)
        out = {self.me, *session.joins}
        if session.host_id is not None:
            out.add(session.host_id)
        if session.host_id != self.me:
            out.update(self.replica.have())
        return frozenset(out - self.kicked)

    def watchers(self) -> tuple[fx.Watcher, ...]:
        """Who watches this table, as far as we know: the spectators linked to us and those
        the other players report (a player is never listed; sorted by name)."""
        seated = {s.peer_id for s in self.session.seats}
        sees = self._hands_visible()
        merged: dict[bytes, str] = {}
        for reported in self._reported_watchers.values():
            merged.update(reported)
        merged.update(self._watchers)
        return tuple(sorted((fx.Watcher(p, name, sees) for p, name in merged.items()
                             if p not in seated and p != self.me),
                            key=lambda w: (fold_name(w.name), w.peer_id)))

    def lobby(self) -> list[tuple[bytes, str]]:
        """Joiners waiting for a seat, in join order (host's view), without those the host
        will not seat (`left_out`)."""
        excluded = self.left_out()
        return [(p, j.name) for p, j in self.session.joins.items() if p not in excluded]

    # ================================================================ entries

    def _on_entry_frame(self, peer_id: bytes, frame: fr.Entry) -> None:
        bucket = self._buckets.get(peer_id)
        if bucket is None:
            bucket = self._buckets[peer_id] = TokenBucket.full(
                ENTRY_RATE_PER_S, ENTRY_BURST, self._now)
        if not bucket.take(self._now):
            self.counters.rate_dropped += 1  # fetched again by HAVE/WANT when it calms down
            return
        try:
            entry = decode_entry(frame.data)
            validate_body(entry.kind, entry.body)
        except HanabiError as exc:
            # bytes without a valid signature are nobody's word: a link problem, not a cheat
            self.counters.link_problems += 1
            self._event(fx.LinkProblem(peer_id, f"sent an entry that does not verify: {exc}"))
            return
        if not self._admit(entry):
            self.counters.strangers_refused += 1
            return
        self._got_at.setdefault(entry.hash, self._now)
        result = self.replica.add(entry)
        self._handle(result, source=peer_id)
        if result.status is Status.HELD and self.replica.has_gaps():
            wants = self._wants()
            if wants:
                self._effects.append(fx.Send(peer_id, fr.Want(wants)))

    def _admit(self, entry: Entry) -> bool:
        """Strangers never cost the honest table anything: before seating the host keeps a
        few joiners with a few entries each; after it, only the seated players count."""
        author = entry.author
        if author in self.kicked:
            return False
        session = self.session
        if session.seats:
            return author in self.members()
        if author in (session.host_id, self.me):
            return True
        if entry.seq >= MAX_LOBBY_ENTRIES_PER_JOINER:
            return False
        if session.host_id != self.me or author in session.joins:
            return True
        # a newcomer's first entry must be its request for a seat, and there must be room
        if entry.seq != 0 or entry.kind != "lobby.join":
            return False
        return len(self.lobby()) < MAX_LOBBY_JOINERS

    def _handle(self, result: AddResult, source: bytes | None) -> None:
        for entry in result.applied:
            own = entry.author == self.me
            self.counters.applied_at.setdefault(entry.hash, self._now)
            self._applied_from[entry.author] = self._now
            if self._loading:
                continue
            if own and entry.hash in self._stored_early:
                self._stored_early.discard(entry.hash)  # stored and sent before
                continue
            self._effects.append(fx.StoreEntry(entry, own=own))
            frame = fr.Entry(entry.encoded)
            if own:
                self._effects.append(fx.Broadcast(frame))
            else:
                self._relay(entry, frame, source)
        if result.status is Status.REJECTED and result.error is not None:
            if result.permanent:
                self._signed_fault(result.error.author, result.reason)
            else:  # may be fine later or elsewhere: never blame the author for it
                self._warn(result.error.author, result.reason)
        for bad in result.dropped:
            self._signed_fault(bad.author, bad.reason)
        if result.equivocation is not None:
            author = result.equivocation.first.author
            self._signed_fault(author, "signed two different entries with the same number")

    def _relay(self, entry: Entry, frame: fr.Entry, source: bytes | None) -> None:
        """In the lobby joiners know only the host: the host passes their entries on at once.
        Once seated, every peer is linked to every other, and whatever one of them misses
        (a link down, a relay that cuts it) it gets from anyone by HAVE/WANT within a sync
        interval."""
        if self.session.seats or self.session.host_id != self.me:
            return
        for peer_id in sorted(self.connected - {source, entry.author}):
            self._effects.append(fx.Send(peer_id, frame))

    def _signed_fault(self, author: bytes | None, reason: str) -> None:
        """An entry signed by ``author`` was refused for good: evidence against its author.
        From a seated player (or the host, in the lobby) it ends the game; from anyone else
        it is only reported."""
        seated = {s.peer_id for s in self.session.seats}
        member = author in seated if seated else author == self.session.host_id
        if author is not None and member and self.session.phase not in (ABORTED, AUDITED):
            self._caught.add(author)
            self.session.abort(author, f"{self.describe(author)}: {reason}")
        else:
            self._warn(author, reason)

    def _warn(self, author: bytes | None, reason: str) -> None:
        who = self.describe(author) if author is not None else "an unknown peer"
        self._event(ev.Fault(author, f"{who}: {reason}", fatal=False))

    # ================================================================ sync

    def _have(self) -> dict[bytes, int]:
        members = self.members()
        have = {a: n for a, n in self.replica.have().items() if a in members}
        if len(have) > fr.MAX_AUTHORS:  # only a hostile host can make a joiner hold this many
            keep = sorted(have, key=lambda a: (a not in (self.me, self.session.host_id), a))
            have = {a: have[a] for a in keep[: fr.MAX_AUTHORS]}
        return have

    def _wants(self) -> dict[bytes, int]:
        members = self.members()
        wants = {a: self.replica.next_seq(a) for a in self._have()}
        for author, start in self.replica.gap_starts().items():
            if author in members:
                wants[author] = min(wants.get(author, start), start)
        return wants

    def _on_have(self, peer_id: bytes, theirs: dict[bytes, int]) -> None:
        session = self.session
        if self._is_guest(peer_id):
            # a spectator (or a stranger): served what it lacks, never counted in what the
            # players hold, so nothing it claims can make us wait for or time out a player
            if peer_id in self._watchers:
                self._watcher_holds[peer_id] = theirs  # bounds only our own linger
            self._serve(peer_id, theirs)
            return
        if session.seats or session.host_id == self.me or peer_id != session.host_id:
            # (a joiner in the lobby takes the host's word for who is there)
            members = self.members()
            theirs = {a: n for a, n in theirs.items() if a in members}
        self.sync.on_have(peer_id, theirs, self._now)
        self._answer(peer_id, theirs, in_flight_too=False)
        ours = self._have()
        self.sync.update_missing(ours, self._now)
        # tell a peer that differs what we hold, so both sides converge quickly (rate
        # limited: a peer holding entries we refuse must not start a ping-pong)
        if theirs != ours and self._now - self._have_echo_at.get(peer_id, -1e9) > HAVE_ECHO_S:
            self._have_echo_at[peer_id] = self._now
            self._effects.append(fx.Send(peer_id, fr.Have(ours)))
        if any(n > self.replica.next_seq(a) and not self._on_its_way(a)
               for a, n in theirs.items()):
            wants = self._wants()
            if wants:
                self._effects.append(fx.Send(peer_id, fr.Want(wants)))
        self._check_linger(self._now)

    def _answer(self, peer_id: bytes, their_next: dict[bytes, int], *,
                in_flight_too: bool = True) -> None:
        """Send the peer the entries it lacks: all of them when it asked (WANT); in answer
        to a HAVE, not those still on their way to it (`IN_FLIGHT_S`)."""
        members = self.members()
        # authors the peer did not name: it holds none of theirs yet
        wanted = {a: their_next.get(a, 0) for a in members}
        up_at = self._up_at.get(peer_id, self._now)
        for entry in self.replica.missing(wanted, limit=MAX_ENTRIES_PER_ANSWER):
            if entry.author not in members:
                continue
            if not in_flight_too:
                at = self._got_at.get(entry.hash, -1e9)
                if at >= up_at and self._now - at < IN_FLIGHT_S:
                    continue  # (an author's later entries came later still)
            self._effects.append(fx.Send(peer_id, fr.Entry(entry.encoded)))

    def _on_its_way(self, author: bytes) -> bool:
        """Some peer holds entries of ``author`` we lack, but the author is linked to us and
        its entries are still coming in (or we learnt of them only just): what we lack is
        behind them on the same link, no need to ask anyone for it."""
        if author not in self.connected:
            return False
        since = self.sync.missing_since(author)
        latest = max(since if since is not None else -1e9,
                     self._applied_from.get(author, -1e9))
        return self._now - latest < IN_FLIGHT_S

    # ================================================================ lobby

    def left_out(self) -> set[bytes]:
        """Joiners the host will not seat: kicked, gone from the lobby, or caught signing
        two entries as one."""
        return self.kicked | self.left_lobby | self.replica.equivocators

    def _start_game(self, *, by_command: bool) -> None:
        session = self.session
        if session.host_id != self.me:
            if by_command:
                raise IllegalAction("only the host starts the game")
            return
        if session.table is None or session.seats or session.has_outbox:
            if by_command and session.seats:
                raise IllegalAction("the game has started already")
            return
        players = session.table.config.players
        # two joiners who raced for one name: the first keeps it, the other is not seated
        names = {fold_name(session.table.host_name)}
        waiting = []
        for peer_id, name in self.lobby():
            if peer_id not in self.connected:
                # its program ended without a word (a crash, a laptop closed), or its link is
                # being made again: seated, it would hold the whole table up for the wait
                # timeout; it is seated when it links up again, if there is room
                continue
            if fold_name(name) not in names:
                names.add(fold_name(name))
                waiting.append(peer_id)
        if 1 + len(waiting) < players:
            if by_command:
                missing = players - 1 - len(waiting)
                raise IllegalAction(f"waiting for {missing} more player(s) to sit down")
            return
        session.seat_players(self.address, joiners=waiting[: players - 1])

    def _maybe_request_seat(self) -> None:
        """Joiner: ask for a seat once we hold everything the host has told us of (the table
        and the joins before ours), under a name nobody at the table has yet: "Dave 2" if
        Dave is taken. Names are unique at a table, so players can name each other."""
        session = self.session
        if (session.host_id in (None, self.me) or session.table is None or session.seats
                or self._seat_requested or self.watching):
            return
        assert session.host_id is not None
        told = self.sync.peers.get(session.host_id)
        if told is None:
            return
        ours = self.replica.have()
        if any(ours.get(author, 0) < n for author, n in told.seqs.items()):
            return  # still catching up with the lobby
        self._seat_requested = True
        taken = [session.table.host_name, *(j.name for p, j in session.joins.items()
                                           if p != self.me)]
        session.request_seat(unique_name(self.player_name, taken), self.address, self.runner)

    def _kick(self, peer_id: bytes) -> None:
        session = self.session
        if session.host_id != self.me:
            raise IllegalAction("only the host removes players")
        if session.seats:
            raise IllegalAction("the game has started: nobody can be removed now")
        if peer_id not in session.joins:
            raise IllegalAction("nobody like that is waiting in the lobby")
        self.kicked.add(peer_id)
        self.connected.discard(peer_id)
        self._remove(peer_id)
        self._event(fx.LobbyChanged(len(self.lobby())))

    def _remove(self, peer_id: bytes) -> None:
        """Tell a joiner the host removed that it is out, then close its link (the frames
        queued before the close go first)."""
        self._effects.append(fx.Send(peer_id, fr.Message(REMOVED_TOPIC, b"")))
        self._effects.append(fx.Disconnect(peer_id, "removed from the table by the host"))

    def _on_removed(self, peer_id: bytes) -> None:
        """The host removed us from its lobby: stop, saying so. Only the host's word, and
        only before the seating (after it, a seat is decided and nobody can be removed)."""
        session = self.session
        if (self.watching or peer_id != session.host_id or session.host_id == self.me
                or session.seats):
            return
        self._finish(fx.EndKind.LEFT, REMOVED_BY_HOST, forget=True)

    def _in_lobby(self) -> bool:
        """At a table (as a player) that has seated nobody yet."""
        session = self.session
        return not self.watching and session.table is not None and not session.seats

    def _on_left_lobby(self, peer_id: bytes) -> None:
        """A peer left the lobby: if it is the host, the table is gone (stop, saying so);
        if it is a joiner of ours, it no longer waits for a seat. Only on its own link, and
        only before the seating. One that left as it was being seated (the seating crossed
        its message) is gone for good, keeping nothing of the table: the game stops at once,
        blaming nobody, rather than wait the wait timeout for it."""
        session = self.session
        if (session.phase == DECK and not self.watching and peer_id != self.me
                and session.seat_of(peer_id) is not None and session.my_seat is not None):
            self.left_lobby.add(peer_id)  # (nothing to linger for: it keeps no copy)
            session.abort(None, f"{self.describe(peer_id)} left before the deal")
            return
        if not self._in_lobby():
            return
        if peer_id == session.host_id and session.host_id != self.me:
            self._finish(fx.EndKind.LEFT, HOST_LEFT, forget=True)
        elif (session.host_id == self.me and peer_id in session.joins
              and peer_id not in self.left_lobby):
            self.left_lobby.add(peer_id)
            self._event(fx.JoinerLeft(peer_id, session.joins[peer_id].name))
            self._event(fx.LobbyChanged(len(self.lobby())))

    def _on_session_events(self, events: list[ev.Event]) -> None:
        for event in events:
            if isinstance(event, ev.PlayerJoined):
                if event.peer_id in self.left_out():
                    continue
                self._event(fx.LobbyChanged(len(self.lobby())))
                if self.auto_start:
                    self._start_game(by_command=False)
            elif isinstance(event, ev.Seated):
                self._on_seated()

    def _on_seated(self) -> None:
        seats = self.session.seats
        # a spectator dials every player and takes no links; a player takes a few spectators
        guests = 0 if self.watching else GUEST_LINKS
        self._effects.append(fx.AdmitOnly(tuple(s.peer_id for s in seats), guests))
        if self.session.deck is not None:
            self.session.deck.defer_checks()  # the shell runs them: see CheckDeck
        for seat in seats:
            if seat.peer_id != self.me:
                self._effects.append(fx.Connect(seat.peer_id, seat.address.host, seat.address.port))
        if self.watching:
            return
        seated = {s.peer_id for s in seats}
        for peer_id in [p for p in self.sync.peers if p not in seated]:
            self.sync.forget(peer_id)  # what a joiner or spectator claimed counts no more
        for peer_id in sorted(self.connected - seated - set(self._watchers)):
            self._effects.append(fx.Disconnect(peer_id, "not seated at this table"))
        if self.session.my_seat is None and self.session.host_id != self.me:
            if self._seat_requested or self.me in self.session.joins:
                self._finish(fx.EndKind.LEFT, TABLE_FILLED)
            else:
                # we came after the seating and never asked: nothing of ours to keep
                self._finish(fx.EndKind.LEFT, TABLE_STARTED, forget=True)

    def _check_lobby_timeout(self, now: float) -> None:
        limit = self.timing.lobby_timeout
        if limit is None or self.session.phase != LOBBY or self.session.seats:
            return
        if now - self._started_at > limit:
            self._finish(fx.EndKind.LEFT, f"the table did not fill within {limit:g} s")

    def _check_host_reachable(self, now: float) -> None:
        """A joiner whose host has been out of reach in the lobby as long as a player would
        wait for a player (the host's program ended without a word: a crash, a machine
        switched off) stops and says so, instead of waiting for ever (nobody is seated:
        should the table come back, it joins it again)."""
        limit, since = self.timing.wait_timeout, self._host_down_since
        if limit is None or since is None or not self._in_lobby():
            return
        if self.session.host_id == self.me or now - since < limit:
            return
        self._finish(fx.EndKind.LEFT, f"the host has been unreachable for {int(now - since)} s: "
                     "its table has closed, or cannot be reached from here")

    # ================================================================ waiting

    def _silent_since(self, seat: int) -> float | None:
        """None while the player in ``seat`` is reachable and its entries reach us."""
        peer_id = self.session.seats[seat].peer_id
        if peer_id not in self.connected:
            return self._down_since.get(peer_id, self._started_at)
        have = self.sync.peers.get(peer_id)
        if have is None or self._now - have.at > SILENCE_S:
            return have.at if have is not None else self._started_at
        if peer_id in self.sync.stalled_authors(self._now, STALL_S):
            return self.sync.missing_since(peer_id)
        return None

    def _check_waiting(self, now: float) -> None:
        session = self.session
        self.waits.update(session.waiting_for(), now)
        if session.phase in (ABORTED, AUDITED):
            return
        overdue = self.waits.overdue(now, session.my_seat, self._silent_since)
        if overdue is None:
            return
        peer_id = session.seats[overdue.seat].peer_id
        what = "its turn" if overdue.what == "turn" else f"its {overdue.what}"
        who = self.describe(peer_id)
        reason = f"waited {int(overdue.waited)} s for {who} ({what}): unreachable"
        session.abort(None, reason)

    def _sign(self, kind: str, turn: int, body: object) -> Entry:
        seq, prev = self.replica.next_link(self.me)
        entry = make_entry(self.identity, table_id=self.session.table_id, seq=seq,
                           prev=prev, turn=turn, kind=kind, body=body)
        self._got_at[entry.hash] = self._now
        return entry

    def _send_first(self, outbox: list[tuple[str, int, object]]) -> bool:
        """Our turn action alone: store and send it before applying it ourselves. The others
        are waiting for it, and our own application of it (the rules, the deck, the events
        for our screen) changes nothing in its bytes: the session checked the action against
        the rules before posting it. The node draws the effects again once it has sent it,
        and every other input applies it first, so nothing sees our state without it, and
        the session meanwhile says it is not our turn (we have acted)."""
        if len(outbox) != 1 or outbox[0][0] != "action" or self._loading:
            return False
        entry = self._sign(*outbox[0])
        self.counters.applied_at.setdefault(entry.hash, self._now)  # (when it was made)
        self._unapplied = entry
        self._stored_early.add(entry.hash)
        self._effects.append(fx.StoreEntry(entry, own=True))
        self._effects.append(fx.Broadcast(fr.Entry(entry.encoded)))
        return True

    def _apply_sent(self) -> None:
        """Apply our turn action that `_send_first` had sent, and settle what follows."""
        entry, self._unapplied = self._unapplied, None
        if entry is None:
            return
        self._handle(self.replica.add(entry), source=None)
        self._settle()

    # ================================================================ the end

    def _settle(self) -> None:
        """Sign and apply what the session wants to post, pass its events on, react to them
        (lobby decisions), until nothing more happens; then check whether we are done."""
        for _ in range(10_000):  # each round posts or reports something; bounded anyway
            outbox = self.session.take_outbox()
            if self._send_first(outbox):
                return  # the rest once the shell has sent it (drain or the next input)
            for kind, turn, body in outbox:
                self._handle(self.replica.add(self._sign(kind, turn, body)), source=None)
            events = self.session.take_events()
            self._events.extend(events)  # first: what they cause is reported after them
            self._on_session_events(events)
            self._maybe_request_seat()
            if not self.session.has_outbox:
                break
        else:
            raise LocalProtocolError("the session keeps posting: a loop in the peer core")
        self._flush_events(always=True)
        self._send_watch_keys()
        self._hand_out_deck_checks()
        if self.finished is None and self.session.phase in (AUDITED, ABORTED):
            if self.watching:
                # nobody needs a spectator's copy: done as soon as the game is, and as it
                # has the hands it was let see
                if not self._hand_keys_on_their_way():
                    self._finish_game()
                return
            if self._linger_until is None:
                # a peer cut off during the audit may need our entries until it would give
                # up on us itself, and one we gave up on may come back and must learn why
                # the game ended: stay as long as either bound
                bound = max(self.timing.linger, self.timing.wait_timeout or 0.0)
                self._linger_until = self._now + bound
                self._spectators_until = self._now + self.timing.spectator_linger
                # tell everyone at once that we hold it all: peers that are done too can
                # stop as soon as they hear it, not a sync interval later
                self._effects.append(fx.Broadcast(fr.Have(self._have())))
            self._check_linger(self._now)

    def _hand_out_deck_checks(self) -> None:
        """The deck's costly proof checks go to the shell, after the entries that carry our
        own deck step (so it is sent first), one batch at a time."""
        deck = self.session.deck
        if deck is None or self._checks_out:
            return
        jobs = deck.take_checks()
        if jobs:
            self._checks_out = True
            self._effects.append(fx.CheckDeck(tuple(jobs)))

    def _on_complete(self, peer_id: bytes, body: bytes) -> None:
        """A seated peer that holds the whole game tells us who else does (as their HAVEs
        show it): we need not stay for them, even if our own link to them is down."""
        seated = {s.peer_id for s in self.session.seats}
        if peer_id not in seated or len(body) % PEER_ID_BYTES or len(body) > len(seated) * (
            PEER_ID_BYTES
        ):
            return  # not a word from a player, or not a list of players: nothing to learn
        ids = {body[i : i + PEER_ID_BYTES] for i in range(0, len(body), PEER_ID_BYTES)}
        self._known_complete |= (ids & seated) | {peer_id}
        self._check_linger(self._now)

    def _complete_set(self, ours: dict[bytes, int]) -> frozenset[bytes]:
        return frozenset(
            s.peer_id for s in self.session.seats
            if s.peer_id == self.me or not self.sync.lacks(s.peer_id, ours)
        )

    def _complete_frame(self) -> fr.Message:
        return fr.Message(COMPLETE_TOPIC, b"".join(sorted(self._told_complete)))

    def _tell_complete(self, ours: dict[bytes, int]) -> None:
        """While we linger, tell every peer who holds the whole game, as far as we know."""
        complete = self._complete_set(ours)
        if complete != self._told_complete:
            self._told_complete = complete
            self._effects.append(fx.Broadcast(self._complete_frame()))

    def _check_linger(self, now: float) -> None:
        """After the game: finish once every seated peer holds every entry we hold (our seed
        above all, so nobody is left unable to audit), or when the linger time is up."""
        if self.finished is not None or self._linger_until is None:
            return
        # never wait for a player caught cheating: it has nothing to learn from us
        others = [s.peer_id for s in self.session.seats
                  if s.peer_id not in (self.me, *self._caught, *self._known_complete,
                                       *self.left_lobby)]
        ours = self._have()
        self._tell_complete(ours)
        if now < self._linger_until and self.sync.behind(others, ours):
            return
        if (self._spectators_until is not None and now < self._spectators_until
                and self._a_spectator_lacks(ours)):
            return
        self._finish_game()

    def _a_spectator_lacks(self, ours: dict[bytes, int]) -> bool:
        """Whether a spectator linked to us has not yet said it holds all we hold (one that
        said nothing yet lacks everything)."""
        for peer_id in self._watchers:
            if peer_id not in self.connected:
                continue
            theirs = self._watcher_holds.get(peer_id, {})
            if any(theirs.get(author, 0) < n for author, n in ours.items()):
                return True
        return False

    def _check_alone(self, now: float) -> None:
        """A spectator with no player linked: once the players have said they hold the
        whole game (they are leaving), nothing more can reach it after a short while; before
        that, it waits as a player waits for an unreachable one. Then it ends and says so,
        instead of waiting for ever."""
        seated = {s.peer_id for s in self.session.seats}
        # before the seating, any peer (the one we came by) counts
        if self.connected & seated if seated else self.connected:
            self._alone_since = None
            return
        if self._alone_since is None:
            self._alone_since = now
            return
        alone = now - self._alone_since
        if not seated and alone >= SPECTATOR_UNLINKED_S:
            # it knows no player to dial, only the address it came by (`_up_at` keeps every
            # peer whose link ever came up)
            what = ("lost our link to the table before the game reached us"
                    if self._up_at else "could not link to the table")
            self._finish(fx.EndKind.ABORTED, f"{what}, and no link for {int(alone)} s: the "
                         "table has closed, or cannot be reached from here")
        elif self._known_complete and alone >= SPECTATOR_ALONE_S:
            self._finish(fx.EndKind.ABORTED, "the players finished the game and left before "
                         "all of it reached us: what we saw is saved, but not its end")
        elif self.timing.wait_timeout is not None and alone >= self.timing.wait_timeout:
            self._finish(fx.EndKind.ABORTED, f"no player has been reachable for "
                         f"{int(alone)} s: what we saw is saved, but not its end")

    def _finish_game(self) -> None:
        session = self.session
        if session.phase == AUDITED:
            failure = None
            if session.audit is not None and not session.audit.ok:
                failure = f"the deck audit failed: {session.audit.reason}"
            self._finish(fx.EndKind.AUDITED, failure)
        else:
            self._finish(fx.EndKind.ABORTED, session.abort_reason or "the game was aborted")

    def _finish(self, kind: fx.EndKind, failure: str | None, *, forget: bool = False,
                chosen: bool = False) -> None:
        if self.finished is not None:
            return
        if self._in_lobby():
            # whoever waits with us for this table learns at once that we are gone
            self._effects.append(fx.Broadcast(fr.Message(LEFT_TOPIC, b"")))
        self.finished = fx.Finished(kind, failure, forget, chosen)
        self._flush_events()
        self._effects.append(self.finished)

    # ================================================================ spectators

    def _is_guest(self, peer_id: bytes) -> bool:
        """A peer we serve but do not sync with: a spectator, and anyone not seated once
        the table is."""
        if self.watching:
            return False
        return peer_id in self._watchers or (
            bool(self.session.seats) and self.session.seat_of(peer_id) is None)

    def _serve(self, peer_id: bytes, their_next: dict[bytes, int]) -> None:
        if self._now - self._served_at.get(peer_id, -1e9) < SPECTATOR_ANSWER_S:
            return  # it asks again at its next sync round
        self._served_at[peer_id] = self._now
        self._answer(peer_id, their_next)

    def _hands_visible(self) -> bool:
        table = self.session.table
        return table is not None and TableOption.SPECTATORS in table.table_options

    def _on_watch(self, peer_id: bytes, body: bytes) -> None:
        """A peer asks to watch: taken if it is no player, not removed by the host, and
        there is room (MAX_WATCHERS); then it gets what any peer gets, read-only."""
        session = self.session
        if (self.watching or peer_id in self.kicked or session.seat_of(peer_id) is not None
                or peer_id in session.joins or peer_id == session.host_id):
            return
        try:
            name = ww.decode_watch(body)
        except HanabiError as exc:
            self.counters.link_problems += 1
            self._event(fx.LinkProblem(peer_id, f"asked to watch with a bad name: {exc}"))
            self._effects.append(fx.Disconnect(peer_id, "a spectator's name must be printable"))
            return
        if peer_id not in self._watchers and len(self._watchers) >= MAX_WATCHERS:
            reason = f"this table has {MAX_WATCHERS} spectators already"
            self._effects.append(fx.Send(peer_id, fr.Message(
                ww.WATCH_REFUSED_TOPIC, ww.encode_refusal(reason))))
            self._effects.append(fx.Disconnect(peer_id, reason))
            return
        self._guest_since.pop(peer_id, None)
        self.sync.forget(peer_id)
        if self._watchers.get(peer_id) != name:
            self._watchers[peer_id] = name
            self._watchers_changed()

    def _watchers_frame(self) -> fr.Message:
        return fr.Message(ww.WATCHERS_TOPIC, ww.encode_watchers(self._watchers))

    def _watchers_changed(self) -> None:
        """Tell the other players who watches through us, and our own screen."""
        frame = self._watchers_frame()
        for seat in self.session.seats:
            if seat.peer_id != self.me and seat.peer_id in self.connected:
                self._effects.append(fx.Send(seat.peer_id, frame))
        self._event(fx.WatchersChanged())

    def _on_watchers_report(self, peer_id: bytes, body: bytes) -> None:
        if self.session.seat_of(peer_id) is None:
            return  # only a player's word about its own links is worth showing
        try:
            reported = ww.decode_watchers(body)
        except HanabiError as exc:
            self.counters.link_problems += 1
            self._event(fx.LinkProblem(peer_id, f"sent a bad list of spectators: {exc}"))
            return
        if self._reported_watchers.get(peer_id) != reported:
            self._reported_watchers[peer_id] = reported
            self._event(fx.WatchersChanged())

    def _send_watch_keys(self) -> None:
        """At a table whose players let spectators see the hands: each spectator linked to
        us gets our key of every card we dealt to another seat, once (SPEC §2.12)."""
        if self.watching or not self._watchers or not self._hands_visible():
            return
        keys = self.session.spectator_keys()
        for peer_id in sorted(self._watchers):
            sent = self._keys_sent.setdefault(peer_id, set())
            new = {p: k for p, k in keys.items() if p not in sent}
            if new:
                sent.update(new)
                self._effects.append(fx.Send(peer_id, fr.Message(
                    ww.WATCH_KEYS_TOPIC, ww.encode_keys(new))))

    def _hand_keys_on_their_way(self) -> bool:
        """A spectator at a table that lets it see the hands, with the whole game: whether
        a card still in a hand is not decoded while a player who could send its key is still
        linked to us. Each player sends its keys over its own link, while the seats' entries
        may reach us sooner through another player, so the last keys may still be on their
        way; we wait for them (at most `HAND_KEYS_WAIT_S`), so that the end of the game shows
        every hand. A player that is done says so by closing its link after what it sent."""
        state = self.session.state
        if not self._hands_visible() or state is None:
            return False
        if self._hand_keys_wait_until is None:
            self._hand_keys_wait_until = self._now + HAND_KEYS_WAIT_S
        if self._now >= self._hand_keys_wait_until:
            return False
        seated = {seat.peer_id for seat in self.session.seats}
        if not self.connected & seated:
            return False
        return any(state.faces[card] is None for hand in state.hands for card in hand)

    def _on_watch_keys(self, peer_id: bytes, body: bytes) -> None:
        if not self.watching:
            return
        try:
            problems = self.session.add_watch_keys(peer_id, ww.decode_keys(body))
        except HanabiError as exc:
            problems = [str(exc)]
        for problem in problems:
            # unsigned bytes over a link: a link problem, never a blame
            self.counters.link_problems += 1
            self._event(fx.LinkProblem(peer_id, f"sent keys that do not fit: {problem}"))

    def _on_watch_refused(self, peer_id: bytes, body: bytes) -> None:
        """A player (or the host, in the lobby) will not have us watch: stop, saying why."""
        session = self.session
        if not self.watching or (session.seat_of(peer_id) is None
                                 and peer_id != session.host_id):
            return
        try:
            reason = safe(ww.decode_refusal(body))
        except HanabiError:
            reason = "no reason given"
        self._finish(fx.EndKind.LEFT, f"{self.describe(peer_id)} does not take spectators "
                                      f"now: {reason}")

    def _drop_silent_guests(self, now: float) -> None:
        for peer_id, since in sorted(self._guest_since.items()):
            if now - since > WATCH_HELLO_S:
                del self._guest_since[peer_id]
                self._effects.append(fx.Disconnect(peer_id, "neither a player nor a spectator"))

    # ================================================================ helpers

    def _event(self, event: ev.Event) -> None:
        self._events.append(event)

    def _flush_events(self, always: bool = False) -> None:
        # a Notify even without events when asked: learning faces changes what one can do
        if self._events or always:
            self._effects.append(fx.Notify(tuple(self._events)))
            self._events = []


def fold_name(name: str) -> str:
    """Names as people read them: case, accents and spacing do not make two names differ."""
    return fold_marks(" ".join(name.split()))


def unique_name(name: str, taken: Iterable[str]) -> str:
    """``name``, or "name 2", "name 3"... if a player at the table has it already (kept
    within the player-name limit)."""
    folded = {fold_name(t) for t in taken}
    if fold_name(name) not in folded:
        return name
    for n in itertools.count(2):
        suffix = f" {n}"
        candidate = name[: MAX_PLAYER_NAME_CHARS - len(suffix)].rstrip() + suffix
        if fold_name(candidate) not in folded:
            return candidate
    raise AssertionError("unreachable: itertools.count never ends")
