"""What a player's core and a spectator's core share: the inputs, the entries, settling.

`CoreBase.handle` is the one way in: it routes each input by its type (`_ROUTES`), and a
MSG frame by its topic through the subclass's topic table, which names the stages each
topic is heard in. An unknown topic is counted (`Counters.unknown_topics`), a known one out
of its stages is ignored (`Counters.out_of_stage`). Then the subclass settles: it signs and
applies what the session wants to post (a spectator never has anything to post), passes the
session's events on, and checks whether it is done.

Entries: a received entry is decoded and its body validated once; it is kept only if
admitted (`admission`), then the replica orders and applies it. A player is blamed only for
an entry carrying their valid signature (an illegal action, a bad proof, two entries with
one number); bytes that do not verify are a link problem, never a blame.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic

from hanabi_p2p.errors import HanabiError, Refusal
from hanabi_p2p.log.entry import Entry, decode_entry
from hanabi_p2p.log.equivocation import Equivocation
from hanabi_p2p.log.replica import AddResult, Replica, Status
from hanabi_p2p.net import frames as fr
from hanabi_p2p.net.handshake import Signer
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer import inputs as ins
from hanabi_p2p.peer.admission import Admission
from hanabi_p2p.peer.context import Counters, PeerContext, Timing
from hanabi_p2p.peer.lifecycle import Lifecycle, StageT, Trigger
from hanabi_p2p.peer.lobby import JoinerLobby
from hanabi_p2p.peer.replication import Replication
from hanabi_p2p.peer.spectators import ReportedWatchers
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.bodies import Address
from hanabi_p2p.session.kinds import parse_entry
from hanabi_p2p.session.table import ABORTED, AUDITED, PLAY, TableSession


@dataclass(frozen=True)
class TopicRoute(Generic[StageT]):
    """Who handles a MSG topic, and in which stages it means anything."""

    handler: Callable[[bytes, bytes], None]
    stages: frozenset[StageT]


class CoreBase(Generic[StageT]):
    """See the module docstring. Subclasses: `core.PeerCore`, `watcher.WatcherCore`."""

    def __init__(self, identity: Signer, session: TableSession, *, address: Address,
                 now: float, timing: Timing | None, player_name: str,
                 lifecycle: Lifecycle[StageT]) -> None:
        self.ctx = PeerContext(identity, session, Replica(session.table_id, session),
                               timing or Timing(), address, now)
        self.lifecycle: Lifecycle[StageT] = lifecycle
        self.finished: fx.Finished | None = None
        self.replication = Replication(self.ctx, self.members)
        self.admission = Admission(self.ctx)
        # a spectator keeps only the lobby timeout of it (it has no host to ask)
        self.joining = JoinerLobby(self.ctx, player_name, None, self._finish_lobby, now)
        self.reported = ReportedWatchers(self.ctx)
        self._loading = False
        # players blamed on their own signed entries
        self.caught: set[bytes] = set()
        self._evidence_sent: set[bytes] = set()  # authors whose refused entry we sent on
        # the first such entry that came after the game was audited (it ends our verdict)
        self.late_fault: str | None = None

    # -- the shared attributes, by the names the shells and tests know ----------------------

    @property
    def identity(self) -> Signer:
        return self.ctx.identity

    @property
    def me(self) -> bytes:
        return self.ctx.me

    @property
    def session(self) -> TableSession:
        return self.ctx.session

    @property
    def replica(self) -> Replica:
        return self.ctx.replica

    @property
    def timing(self) -> Timing:
        return self.ctx.timing

    @property
    def counters(self) -> Counters:
        return self.ctx.counters

    @property
    def connected(self) -> set[bytes]:
        return self.ctx.connected

    @property
    def player_name(self) -> str:
        """The name we ask to sit (or watch) under."""
        return self.joining.player_name

    @player_name.setter
    def player_name(self, name: str) -> None:
        self.joining.player_name = name

    @property
    def stage(self) -> StageT:
        return self.lifecycle.stage

    @property
    def settle_signs(self) -> bool:
        """Whether `Settle` may sign something for the entries taken in with
        ``Received(settle=False)``: an ack or a deck step the session posts, or, before the
        game is in play, what the lobby decides. False: it would only pass their events on,
        and the shell may settle at once (a scheduling hint; a spectator never signs)."""
        return self.session.has_outbox or self.session.phase is not PLAY

    # ================================================================ the way in

    def handle(self, event: ins.Input) -> None:
        """Take one input (see `inputs`); what it causes is drawn with `drain`."""
        if not isinstance(event, ins.Load):
            self.ctx.now = event.now
        getattr(self, _ROUTES[type(event)])(event)

    def drain(self) -> list[fx.Effect]:
        """The effects to carry out, in order (nothing else happens here)."""
        out, self.ctx.effects = self.ctx.effects, []
        return out

    def _load(self, event: ins.Load) -> None:
        for entry in event.entries:
            if entry.author == self.me:
                self.session.note_own(entry)
        self._loading = True
        try:
            for entry in event.entries:
                self._apply_result(self.replica.add(entry), source=None)
        finally:
            self._loading = False
        self._settle()

    def _start(self, _event: ins.Start) -> None:
        self._before_input()
        self._settle()

    def _link_failed(self, event: ins.LinkFailed) -> None:
        self._before_input()
        self.ctx.link_problem(event.peer_id, event.reason, event.address)
        self.ctx.flush_events()

    def _received(self, event: ins.Received) -> None:
        self._before_input()
        peer_id, frame = event.peer_id, event.frame
        if isinstance(frame, fr.Entry):
            self._on_entry_frame(peer_id, frame)
            if not event.settle:
                return
        elif isinstance(frame, fr.Have | fr.Want) and not self.replication.takes_sync_frame(
                peer_id):
            return  # over its budget: dropped unread, nothing to settle (it asks again)
        elif isinstance(frame, fr.Have):
            self._on_have(peer_id, dict(frame.next_seq), frame.heads)
        elif isinstance(frame, fr.Want):
            self._on_want(peer_id, dict(frame.from_seq))
        elif isinstance(frame, fr.Message):
            self._on_message(peer_id, frame)
        self._settle()

    def _on_message(self, peer_id: bytes, frame: fr.Message) -> None:
        route = self._topics().get(frame.topic)
        if route is None:
            self.counters.unknown_topics += 1
        elif self.stage not in route.stages:
            self.counters.out_of_stage += 1
        else:
            route.handler(peer_id, frame.body)

    def _settle_input(self, _event: ins.Settle) -> None:
        self._before_input()
        self._settle()

    def _deck_checked(self, event: ins.DeckChecked) -> None:
        self._before_input()
        self._checks_out = False
        self.session.deck_checks_done(event.outcome)
        self._settle()

    def _action_sent(self, _event: ins.ActionSent) -> None:
        self._before_input()

    # -- the subclass's part ----------------------------------------------------------------

    def _before_input(self) -> None:
        """What every input does first (a player applies its turn action sent meanwhile)."""

    def _topics(self) -> Mapping[str, TopicRoute[StageT]]:
        raise NotImplementedError

    def _peer_up(self, event: ins.PeerUp) -> None:
        raise NotImplementedError

    def _peer_down(self, event: ins.PeerDown) -> None:
        raise NotImplementedError

    def _command(self, event: ins.Command) -> None:
        raise NotImplementedError

    def _tick(self, event: ins.Tick) -> None:
        raise NotImplementedError

    def _on_have(self, peer_id: bytes, theirs: dict[bytes, int],
                 heads: Mapping[bytes, bytes]) -> None:
        raise NotImplementedError

    def _on_want(self, peer_id: bytes, theirs: dict[bytes, int]) -> None:
        raise NotImplementedError

    def _settle(self) -> None:
        raise NotImplementedError

    def _kicked(self) -> set[bytes]:
        return set()

    def left_out(self) -> set[bytes]:
        """Joiners the host will not seat (a spectator knows only the equivocators)."""
        return set(self.replica.equivocators)

    def _waiting_count(self) -> int:
        return len(self.lobby())

    def _finish_lobby(self, kind: fx.EndKind, why: Refusal, forget: bool) -> None:
        self._finish(kind, str(why), forget=forget, refusal=why)

    def _finish(self, kind: fx.EndKind, failure: str | None, *, forget: bool = False,
                chosen: bool = False, refusal: Refusal | None = None) -> None:
        raise NotImplementedError

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
        return frozenset(out - self._kicked())

    def lobby(self) -> list[tuple[bytes, str]]:
        """Joiners waiting for a seat, in join order (host's view), without those the host
        will not seat (`left_out`)."""
        excluded = self.left_out()
        return [(p, j.name) for p, j in self.session.joins.items() if p not in excluded]

    # ================================================================ entries

    def _on_entry_frame(self, peer_id: bytes, frame: fr.Entry) -> None:
        if not self.admission.take_frame(peer_id):
            return  # fetched again by HAVE/WANT when it calms down
        try:
            entry = decode_entry(frame.data)
            parse_entry(entry)  # (kept on the entry: the session reads it, never again)
        except HanabiError as exc:
            # bytes without a valid signature are nobody's word: a link problem, not a cheat
            self.ctx.link_problem(peer_id, f"sent an entry that does not verify: {exc}")
            return
        if not self.admission.admits(entry, kicked=self._kicked(), members=self.members,
                                     waiting=self._waiting_count):
            self.counters.strangers_refused += 1
            return
        self.replication.got(entry)
        result = self.replica.add(entry)
        self._apply_result(result, source=peer_id)
        if result.status is Status.HELD:
            self.replication.ask_for_gaps(peer_id)

    def _apply_result(self, result: AddResult, source: bytes | None) -> None:
        self._keep_evidence()
        for entry in result.applied:
            self.counters.applied_at.setdefault(entry.hash, self.ctx.now)
            self.replication.applied(entry)
            if self._loading or self._stored_already(entry):
                continue
            own = entry.author == self.me
            self.ctx.emit(fx.StoreEntry(entry, own=own))
            if own:
                self.replication.broadcast(entry)
            else:
                self.replication.relay(entry, fr.Entry(entry.encoded), source)
        if result.status is Status.REJECTED and result.error is not None:
            if result.permanent:
                self._signed_fault(result.error.author, result.reason)
            else:  # may be fine later or elsewhere: never blame the author for it
                self._warn(result.error.author, result.reason)
        for bad in result.dropped:
            self._signed_fault(bad.author, bad.reason)
        if result.equivocation is not None:
            self._keep_proof(result.equivocation)
            author = result.equivocation.first.author
            self._signed_fault(author, "signed two different entries with the same number")

    _evidence_kept = 0  # how many of the replica's refusals `_keep_evidence` has seen

    def _keep_evidence(self) -> None:
        """A signed entry of a seated player (in the lobby: the host's) refused for good is
        the proof of its author's fault: it is stored beside the log (never applied), so
        that the verification of our copy names its author as we did (SPEC 5.5, 5.7). The
        replica keeps a bounded list of what it refused; what came from outside the game
        is left out.

        The first such entry of each author also goes to every peer linked to us: another
        player may hold a version of it that is fine (a fork: we were given one that is
        not), and would otherwise stop on our word without ever naming the cheater. Each
        receiver judges it itself, so it can only prove its own signer's fault (SPEC 4.6)."""
        refused = self.replica.rejections
        new, self._evidence_kept = refused[self._evidence_kept:], len(refused)
        if self._loading:
            return  # (stored already: that is where it was loaded from)
        seated = self.ctx.seated()
        for rejection in new:
            author = rejection.entry.author
            if author in seated if seated else author == self.session.host_id:
                self.ctx.emit(fx.StoreEntry(rejection.entry, own=False))
                if author not in self._evidence_sent:
                    self._evidence_sent.add(author)
                    self._pass_on(rejection.entry)

    def _pass_on(self, refused: Entry) -> None:
        """Send a refused entry to every peer linked to us. One that does not follow the
        author's entry we hold before it is proof of a fork only beside that entry (the
        others may hold the chain it does follow): ours goes with it."""
        before = self.replica.get(refused.author, refused.seq - 1)
        if before is not None and before.hash != refused.prev:
            self.ctx.emit(fx.Broadcast(fr.Entry(before.encoded)))
        self.ctx.emit(fx.Broadcast(fr.Entry(refused.encoded)))

    def _keep_proof(self, proof: Equivocation) -> None:
        """Two entries of one author under one number: the second is stored beside the
        first (our log then proves the fork to anyone who verifies it), and both go to every
        peer linked to us, so that each holds the proof at once (SPEC §4.6, forks)."""
        self.ctx.emit(fx.StoreEntry(proof.second, own=False))
        for entry in (proof.first, proof.second):
            self.ctx.emit(fx.Broadcast(fr.Entry(entry.encoded)))

    def _stored_already(self, entry: Entry) -> bool:
        """Our turn action, stored and sent before we applied it (a player's core)."""
        return False

    def _signed_fault(self, author: bytes | None, reason: str) -> None:
        """An entry signed by ``author`` was refused for good: evidence against its author.
        From a seated player (or the host, in the lobby) it ends the game; from anyone else
        it is only reported."""
        seated = self.ctx.seated()
        member = author in seated if seated else author == self.session.host_id
        phase = self.session.phase
        # (also when we stopped blaming nobody, on a player's stated reason or a player
        # unreachable: proof that comes after still names the cheater, SPEC 5.5)
        if author is not None and member and (
                phase not in (ABORTED, AUDITED)
                or (phase is ABORTED and self.session.blamed is None)):
            self.caught.add(author)
            self.session.abort(author, f"{self.describe(author)}: {reason}")
            return
        if author is not None and member and phase is AUDITED:
            # too late to stop the game, not to say so: our log keeps the entry and verifies
            # invalid naming its author, so our own verdict must say the same (SPEC 5.7)
            self.caught.add(author)
            self.late_fault = self.late_fault or f"{self.describe(author)}: {reason}"
        self._warn(author, reason)

    def _warn(self, author: bytes | None, reason: str) -> None:
        who = self.describe(author) if author is not None else "an unknown peer"
        self.ctx.event(ev.Fault(author, f"{who}: {reason}", fatal=False))

    # ================================================================ shared steps

    _checks_out = False  # a CheckDeck is with the shell

    def _hand_out_deck_checks(self) -> None:
        """The deck's costly proof checks go to the shell, after the entries that carry our
        own deck step (so it is sent first), one batch at a time."""
        deck = self.session.deck
        if deck is None or self._checks_out:
            return
        jobs = deck.take_checks()
        if jobs:
            self._checks_out = True
            self.ctx.emit(fx.CheckDeck(tuple(jobs)))

    def _seated_effects(self, guests: int) -> None:
        """Seating is final: only the seated may link to us now, and we link to each."""
        seats = self.session.seats
        self.ctx.emit(fx.AdmitOnly(tuple(s.peer_id for s in seats), guests))
        if self.session.deck is not None:
            self.session.deck.defer_checks()  # the shell runs them: see CheckDeck
        for seat in seats:
            if seat.peer_id != self.me:
                self.ctx.emit(fx.Connect(seat.peer_id, seat.address.host, seat.address.port))
        self.lifecycle.fire(Trigger.SEATED)

    def _end(self, kind: fx.EndKind, failure: str | None, forget: bool, chosen: bool,
             refusal: Refusal | None) -> None:
        self.lifecycle.fire(Trigger.FINISHED)
        self.finished = fx.Finished(kind, failure, forget, chosen, refusal)
        self.ctx.flush_events()
        self.ctx.emit(self.finished)


# input type -> the method that takes it (looked up on the subclass)
_ROUTES: dict[type, str] = {
    ins.Load: "_load",
    ins.Start: "_start",
    ins.PeerUp: "_peer_up",
    ins.PeerDown: "_peer_down",
    ins.LinkFailed: "_link_failed",
    ins.Received: "_received",
    ins.Settle: "_settle_input",
    ins.Command: "_command",
    ins.DeckChecked: "_deck_checked",
    ins.ActionSent: "_action_sent",
    ins.Tick: "_tick",
}
