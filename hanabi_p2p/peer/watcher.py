"""A spectator's core (`hanabi-p2p watch`, SPEC §4.8): it follows a table, never signs, never
posts, and is never waited for.

It says ``watch`` on every link, syncs like a player (HAVE/WANT; its periodic HAVE goes to
one player at a time, in turn: each sends it its own entries anyway), and at a table that lets
spectators see the hands takes the players' keys of the cards they dealt to others
(`WATCH_KEYS_TOPIC`; unsigned bytes over a link, so a bad one is a link problem, never a
blame). It ends when the game does — after a short wait for hand keys still on their way — or
when no player has been reachable for long enough (`_check_alone`).
"""

from __future__ import annotations

from collections.abc import Mapping

from hanabi_p2p import refusals as rf
from hanabi_p2p.errors import HanabiError, LocalProtocolError, Refusal
from hanabi_p2p.net import frames as fr
from hanabi_p2p.net.handshake import Signer
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer import inputs as ins
from hanabi_p2p.peer import watchwire as ww
from hanabi_p2p.peer.base import CoreBase, TopicRoute
from hanabi_p2p.peer.context import Timing
from hanabi_p2p.peer.ending import COMPLETE_TOPIC, Claims, end_of
from hanabi_p2p.peer.lifecycle import WATCHER_TRANSITIONS, Lifecycle, WatchStage
from hanabi_p2p.peer.lobby import LEFT_TOPIC, REMOVED_TOPIC
from hanabi_p2p.peer.spectators import hands_visible
from hanabi_p2p.peer.waiting import SUSPEND_GAP_S
from hanabi_p2p.safe_text import safe
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.bodies import Address
from hanabi_p2p.session.table import ABORTED, AUDITED, TableSession

# A spectator let see the hands that holds the whole game waits at most this long for the
# keys of cards still in a hand that are on their way to it (`_hand_keys_on_their_way`).
HAND_KEYS_WAIT_S = 3.0
# A spectator that knows the game is over (players told it they hold all of it) and has had
# no link to any player for this long gives up: nobody is left who could send the rest.
SPECTATOR_ALONE_S = 5.0
# A spectator that knows no player yet (it has not had the seating) and has had no link this
# long gives up: the table closed (a game that ended as it arrived) or cannot be reached.
SPECTATOR_UNLINKED_S = 15.0

_ALIVE = frozenset({WatchStage.FINDING, WatchStage.FOLLOWING})


class WatcherCore(CoreBase[WatchStage]):
    """A spectator's decisions. See the module docstring."""

    def __init__(self, identity: Signer, session: TableSession, *, address: Address,
                 now: float, timing: Timing | None = None, player_name: str = "",
                 strict: bool = False) -> None:
        super().__init__(identity, session, address=address, now=now, timing=timing,
                         player_name=player_name,
                         lifecycle=Lifecycle(WatchStage.FINDING, WATCHER_TRANSITIONS, strict))
        # players that said they hold the whole game (they are leaving)
        self.claims = Claims(self.ctx)
        # since when no player is linked to us (None while one is)
        self._alone_since: float | None = None
        self._hand_keys_wait_until: float | None = None
        self._last_tick: float | None = None
        self._routes: Mapping[str, TopicRoute[WatchStage]] = {
            COMPLETE_TOPIC: TopicRoute(self._on_complete, _ALIVE),
            ww.WATCH_KEYS_TOPIC: TopicRoute(self._on_watch_keys, _ALIVE),
            ww.WATCHERS_TOPIC: TopicRoute(self.reported.on_report, _ALIVE),
            ww.WATCH_REFUSED_TOPIC: TopicRoute(self._on_watch_refused, _ALIVE),
            # players' topics: a spectator hears them in no stage
            REMOVED_TOPIC: TopicRoute(self._ignore, frozenset()),
            LEFT_TOPIC: TopicRoute(self._ignore, frozenset()),
            ww.WATCH_TOPIC: TopicRoute(self._ignore, frozenset()),
        }

    def watchers(self) -> tuple[fx.Watcher, ...]:
        return self.reported.listing({})

    def _topics(self) -> Mapping[str, TopicRoute[WatchStage]]:
        return self._routes

    # ================================================================ inputs

    def _peer_up(self, event: ins.PeerUp) -> None:
        peer_id, ctx = event.peer_id, self.ctx
        ctx.connected.add(peer_id)
        ctx.up_at[peer_id] = ctx.now
        ctx.send(peer_id, fr.Message(ww.WATCH_TOPIC, ww.encode_watch(self.player_name)))
        ctx.send(peer_id, self.replication.have_frame())
        ctx.event(fx.PeerLink(peer_id, up=True))
        ctx.flush_events()

    def _peer_down(self, event: ins.PeerDown) -> None:
        peer_id, ctx = event.peer_id, self.ctx
        ctx.connected.discard(peer_id)
        self.admission.link_down(peer_id)
        self.replication.link_down(peer_id, seated=self.session.seat_of(peer_id) is not None)
        ctx.event(fx.PeerLink(peer_id, up=False, reason=event.reason))
        ctx.flush_events()

    def _on_have(self, peer_id: bytes, theirs: dict[bytes, int],
                 heads: Mapping[bytes, bytes]) -> None:
        self.replication.on_have(peer_id, theirs, heads)

    def _on_want(self, peer_id: bytes, theirs: dict[bytes, int]) -> None:
        self.replication.answer(peer_id, theirs)

    def _command(self, event: ins.Command) -> None:
        command = event.command
        if self.stage is WatchStage.DONE and not isinstance(command, fx.Leave):
            raise rf.TableClosed()
        if not isinstance(command, fx.Leave):
            raise rf.SpectatorsWatch()
        forget = command.forget and not self.session.seats
        self._finish(fx.EndKind.LEFT, command.reason, forget=forget, chosen=True)

    def _tick(self, event: ins.Tick) -> None:
        now = event.now
        if self._last_tick is not None and now - self._last_tick > SUSPEND_GAP_S:
            # we were not running: what we timed before the gap says nothing about others
            self.replication.reset_clocks()
            if self._alone_since is not None:
                self._alone_since = now
        self._last_tick = now
        self.replication.tick_in_turn()
        if self.stage is not WatchStage.DONE:
            self.joining.check_lobby_timeout()
            self._check_alone()
        self._settle()

    # ================================================================ messages

    def _ignore(self, _peer_id: bytes, _body: bytes) -> None:
        """(Never called: the topic's route has no stage.)"""

    def _on_complete(self, peer_id: bytes, body: bytes) -> None:
        self.claims.take(peer_id, body)

    def _on_watch_keys(self, peer_id: bytes, body: bytes) -> None:
        try:
            problems = self.session.add_watch_keys(peer_id, ww.decode_keys(body))
        except HanabiError as exc:
            problems = [str(exc)]
        for problem in problems:
            # unsigned bytes over a link: a link problem, never a blame
            self.ctx.link_problem(peer_id, f"sent keys that do not fit: {problem}")

    def _on_watch_refused(self, peer_id: bytes, body: bytes) -> None:
        """A player (or the host, in the lobby) will not have us watch: stop, saying why."""
        session = self.session
        if session.seat_of(peer_id) is None and peer_id != session.host_id:
            return
        try:
            reason = safe(ww.decode_refusal(body))
        except HanabiError:
            reason = "no reason given"
        self._finish(fx.EndKind.LEFT, f"{self.describe(peer_id)} does not take spectators "
                                      f"now: {reason}")

    # ================================================================ settling and the end

    def _settle(self) -> None:
        session = self.session
        if session.take_posts():
            raise LocalProtocolError("a spectator's session posted an entry: it never signs")
        events = session.take_events()
        self.ctx.events.extend(events)
        for event in events:
            if isinstance(event, ev.PlayerJoined) and event.peer_id not in self.left_out():
                self.ctx.event(fx.LobbyChanged(len(self.lobby())))
            elif isinstance(event, ev.Seated):
                self._seated_effects(0)  # a spectator dials every player and takes no links
        self.ctx.flush_events(always=True)
        self._hand_out_deck_checks()
        # nobody needs a spectator's copy: done as soon as the game is, and as it has the
        # hands it was let see
        if (self.stage is not WatchStage.DONE and session.phase in (AUDITED, ABORTED)
                and not self._hand_keys_on_their_way()):
            self._finish(*end_of(self.ctx))

    def _hand_keys_on_their_way(self) -> bool:
        """At a table that lets us see the hands, with the whole game: whether a card still
        in a hand is not decoded while a player who could send its key is still linked to
        us. Each player sends its keys over its own link, while the seats' entries may reach
        us sooner through another player, so the last keys may still be on their way; we
        wait for them (at most `HAND_KEYS_WAIT_S`), so that the end of the game shows every
        hand. A player that is done says so by closing its link after what it sent."""
        state = self.session.state
        if not hands_visible(self.ctx) or state is None:
            return False
        now = self.ctx.now
        if self._hand_keys_wait_until is None:
            self._hand_keys_wait_until = now + HAND_KEYS_WAIT_S
        if now >= self._hand_keys_wait_until:
            return False
        if not self.connected & self.ctx.seated():
            return False
        return any(state.faces[card] is None for hand in state.hands for card in hand)

    def _check_alone(self) -> None:
        """With no player linked: once the players have said they hold the whole game (they
        are leaving), nothing more can reach us after a short while; before that, we wait as
        a player waits for an unreachable one. Then we end and say so, instead of waiting
        for ever."""
        now = self.ctx.now
        seated = self.ctx.seated()
        # before the seating, any peer (the one we came by) counts
        if self.connected & seated if seated else self.connected:
            self._alone_since = None
            return
        if self._alone_since is None:
            self._alone_since = now
            return
        alone = now - self._alone_since
        wait_timeout = self.timing.wait_timeout
        if not seated and alone >= SPECTATOR_UNLINKED_S:
            # it knows no player to dial, only the address it came by (`up_at` keeps every
            # peer whose link ever came up)
            what = ("lost our link to the table before the game reached us"
                    if self.ctx.up_at else "could not link to the table")
            self._finish(fx.EndKind.ABORTED, f"{what}, and no link for {int(alone)} s: the "
                         "table has closed, or cannot be reached from here")
        elif self.claims.by_player and alone >= SPECTATOR_ALONE_S:
            self._finish(fx.EndKind.ABORTED, "the players finished the game and left before "
                         "all of it reached us: what we saw is saved, but not its end")
        elif wait_timeout is not None and alone >= wait_timeout:
            self._finish(fx.EndKind.ABORTED, f"no player has been reachable for "
                         f"{int(alone)} s: what we saw is saved, but not its end")

    def _finish(self, kind: fx.EndKind, failure: str | None, *, forget: bool = False,
                chosen: bool = False, refusal: Refusal | None = None) -> None:
        if self.stage is not WatchStage.DONE:
            self._end(kind, failure, forget, chosen, refusal)
