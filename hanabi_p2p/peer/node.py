"""The IO shell around one table session: storage, the peer mesh, sync, timeouts.

Everything the game decides happens in the sans-IO ``TableSession``; this class only moves
bytes: it signs the session's outbox into entries, stores each applied entry (fsync'd)
before sending it, feeds entries from peers into the replica, answers HAVE/WANT so that a
peer that missed entries (a dropped link, a restart) catches up from anyone, and notices
when the game waits too long for someone.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from hanabi_p2p.errors import HanabiError
from hanabi_p2p.identity import Identity
from hanabi_p2p.log.entry import Entry, decode_entry, make_entry
from hanabi_p2p.log.replica import AddResult, Replica, Status
from hanabi_p2p.log.storage import GameFile
from hanabi_p2p.net import frames as fr
from hanabi_p2p.net.errors import LinkClosedError
from hanabi_p2p.net.mesh import LinkFailed, Mesh, PeerDown, PeerUp, Received
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.bodies import validate_body
from hanabi_p2p.session.table import ABORTED, AUDITED, TableSession

# How often we tell every peer what we hold, so gaps left by a dropped link get filled.
SYNC_INTERVAL_S = 1.0
# Entries sent in answer to one HAVE/WANT; the rest follow on the next round.
MAX_ENTRIES_PER_ANSWER = 256
# After the audit, how long we keep answering peers that may still lack our last entries.
LINGER_S = 3.0


@dataclass
class Timing:
    """Tunables; tests shorten them."""

    sync_interval: float = SYNC_INTERVAL_S
    # give up on a peer that keeps the game waiting this long (seconds; None = never)
    wait_timeout: float | None = 600.0
    linger: float = LINGER_S


@dataclass
class Stats:
    # entry hash -> monotonic time this node applied it (turn latency in bench/game.py);
    # bytes and frames sent are counted by the mesh, where frames are encoded
    applied_at: dict[bytes, float] = field(default_factory=dict)


class Node:
    def __init__(
        self,
        identity: Identity,
        session: TableSession,
        mesh: Mesh,
        game_file: GameFile,
        *,
        timing: Timing | None = None,
        on_events: Callable[[list[ev.Event]], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.identity = identity
        self.session = session
        self.mesh = mesh
        self.game_file = game_file
        self.timing = timing or Timing()
        self.replica = Replica(session.table_id, session)
        self.on_events = on_events or (lambda events: None)
        self.clock = clock
        self.stats = Stats()
        self.log_path = game_file.path
        self.connected: set[bytes] = set()
        self.failure: str | None = None
        self._done = asyncio.Event()
        self._wait_since: dict[tuple[int, str], float] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self.peer_have: dict[bytes, dict[bytes, int]] = {}
        self._have_sent_at: dict[bytes, float] = {}

    # ------------------------------------------------------------ start / resume

    def load(self, entries: list[Entry]) -> None:
        """Replay stored entries (a resumed peer) before going online."""
        for entry in entries:
            if entry.author == self.identity.peer_id:
                self.session.note_own(entry)
        for entry in entries:
            self.replica.add(entry)
        self._after_change()

    async def run(self) -> None:
        """Run until the game is over and audited, or aborted. Raises nothing for peers."""
        self._tasks = [
            asyncio.create_task(self._event_loop(), name="mesh events"),
            asyncio.create_task(self._ticker(), name="sync ticker"),
        ]
        self.flush()
        try:
            await self._done.wait()
            await self._linger()
        finally:
            for task in self._tasks:
                task.cancel()
            for task in self._tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    def finish(self, failure: str | None = None) -> None:
        if failure and not self.failure:
            self.failure = failure
        self._done.set()

    @property
    def finished(self) -> bool:
        return self._done.is_set()

    # ------------------------------------------------------------ local entries

    def flush(self) -> None:
        """Sign, apply, store and broadcast whatever the session wants to post."""
        progress = True
        while progress:
            progress = False
            for kind, turn, body in self.session.take_outbox():
                progress = True
                seq, prev = self.replica.next_link(self.identity.peer_id)
                entry = make_entry(
                    self.identity,
                    table_id=self.session.table_id,
                    seq=seq,
                    prev=prev,
                    turn=turn,
                    kind=kind,
                    body=body,
                )
                result = self.replica.add(entry)
                self._handle_result(result, source=None)
        self._after_change()

    # ------------------------------------------------------------ peers

    async def _event_loop(self) -> None:
        while True:
            event = await self.mesh.next_event()
            if event is None:
                return
            try:
                self._on_mesh_event(event)
            except HanabiError as exc:  # never let one peer's garbage stop the loop
                self._notify(ev.Fault(None, str(exc), fatal=False))

    def _on_mesh_event(self, event: PeerUp | PeerDown | Received | LinkFailed) -> None:
        if isinstance(event, PeerUp):
            self.connected.add(event.peer_id)
            self.mesh.send(event.peer_id, fr.Have(self.replica.have()))
            self._notify(PeerLink(event.peer_id, up=True))
        elif isinstance(event, PeerDown):
            self.connected.discard(event.peer_id)
            self._notify(PeerLink(event.peer_id, up=False, reason=event.reason))
        elif isinstance(event, LinkFailed):
            if event.peer_id is None and isinstance(event.error, LinkClosedError):
                return  # a stranger hung up before the handshake: a `join --address` probe
            self._notify(LinkProblem(event.peer_id, str(event.error)))
        else:
            self._on_frame(event.peer_id, event.frame)

    def _on_frame(self, peer_id: bytes, frame: fr.Frame) -> None:
        if isinstance(frame, fr.Entry):
            try:
                entry = decode_entry(frame.data)
                validate_body(entry.kind, entry.body)
            except HanabiError as exc:
                # honest peers relay only entries they verified: a bad one is the sender's
                self._on_rejected(peer_id, f"sent an invalid entry: {exc}")
                return
            result = self.replica.add(entry)
            self._handle_result(result, source=peer_id)
            if result.status is Status.HELD and self.replica.gaps():
                self.mesh.send(peer_id, fr.Want(self._wants()))
            self._after_change()
        elif isinstance(frame, fr.Have):
            theirs = dict(frame.next_seq)
            self.peer_have[peer_id] = theirs
            self._answer(peer_id, theirs)
            ours = self.replica.have()
            now = self.clock()
            # tell a peer that differs what we hold, so both sides converge quickly (rate
            # limited: a peer holding entries we refuse must not start a ping-pong)
            if theirs != ours and now - self._have_sent_at.get(peer_id, 0.0) > 0.2:
                self._have_sent_at[peer_id] = now
                self.mesh.send(peer_id, fr.Have(ours))
            if any(seq > self.replica.next_seq(a) for a, seq in frame.next_seq.items()):
                self.mesh.send(peer_id, fr.Want(self._wants()))
        elif isinstance(frame, fr.Want):
            self._answer(peer_id, dict(frame.from_seq))

    def _wants(self) -> dict[bytes, int]:
        wants = {a: self.replica.next_seq(a) for a in self.replica.have()}
        for gap in self.replica.gaps():
            wants[gap.author] = min(wants.get(gap.author, gap.start), gap.start)
        return wants

    def _answer(self, peer_id: bytes, their_next: dict[bytes, int]) -> None:
        for entry in self.replica.missing(their_next, limit=MAX_ENTRIES_PER_ANSWER):
            self.mesh.send(peer_id, fr.Entry(entry.encoded))

    def _handle_result(self, result: AddResult, source: bytes | None) -> None:
        for entry in result.applied:
            self.game_file.append(entry)
            self.stats.applied_at.setdefault(entry.hash, self.clock())
            if entry.author == self.identity.peer_id:
                self.mesh.broadcast(fr.Entry(entry.encoded))
            elif not self.session.seats and self.session.host_id == self.identity.peer_id:
                # in the lobby joiners know only the host: it passes their entries on
                self._relay(entry, source)
        if result.status is Status.REJECTED and result.error is not None:
            if result.permanent:
                self._on_rejected(result.error.author, result.reason)
            else:  # may be fine later or elsewhere: never blame the author for it
                self._notify(ev.Fault(result.error.author, result.reason, fatal=False))
        for bad in result.dropped:
            self._on_rejected(bad.author, bad.reason)
        if result.equivocation is not None:
            author = result.equivocation.first.author
            self._on_rejected(author, "signed two different entries with the same number")

    def _on_rejected(self, author: bytes | None, reason: str) -> None:
        """A signed entry was refused. From a seated player (or the host, in the lobby) it
        breaks the game for good; from anyone else it is only reported."""
        seated = {s.peer_id for s in self.session.seats}
        member = author in seated if seated else author == self.session.host_id
        if author is not None and member:
            self._peer_fault(author, reason, fatal=True)
        else:
            who = self.describe(author) if author is not None else "an unknown peer"
            self._notify(ev.Fault(author, f"{who}: {reason}", fatal=False))

    def _peer_fault(self, peer_id: bytes, reason: str, fatal: bool) -> None:
        if fatal and self.session.phase not in (ABORTED, AUDITED):
            self.session.abort(peer_id, f"{self.describe(peer_id)}: {reason}")
            self.flush()
        else:
            self._notify(ev.Fault(peer_id, f"{self.describe(peer_id)}: {reason}", fatal=False))

    def describe(self, peer_id: bytes) -> str:
        return self.session.describe(peer_id)

    def _relay(self, entry: Entry, source: bytes | None) -> None:
        frame = fr.Entry(entry.encoded)
        for peer_id in self.connected - {source, entry.author}:
            self.mesh.send(peer_id, frame)

    # ------------------------------------------------------------ after every change

    def _after_change(self) -> None:
        events = self.session.take_events()
        if any(isinstance(e, ev.Seated) for e in events):
            self._on_seated()
        # notify even without events: learning card faces changes what a player can do
        self.on_events(events)
        if self.session.has_outbox:
            self.flush()
            return
        if self.session.phase == AUDITED:
            self.finish()
        elif self.session.phase == ABORTED:
            self.finish(self.session.abort_reason or "the game was aborted")

    def _on_seated(self) -> None:
        seats = self.session.seats
        self.mesh.accepting_new = False
        self.mesh.seat([s.peer_id for s in seats])
        for seat in seats:
            if seat.peer_id != self.identity.peer_id:
                self.mesh.connect(seat.peer_id, seat.address.host, seat.address.port)

    def _notify(self, event: ev.Event) -> None:
        self.on_events([event])

    # ------------------------------------------------------------ periodic work

    async def _ticker(self) -> None:
        while True:
            await asyncio.sleep(self.timing.sync_interval)
            have = fr.Have(self.replica.have())
            for peer_id in list(self.connected):
                self.mesh.send(peer_id, have)
            self._check_waiting()

    def _check_waiting(self) -> None:
        now = self.clock()
        waiting = set(self.session.waiting_for())
        for key in list(self._wait_since):
            if key not in waiting:
                del self._wait_since[key]
        for key in waiting:
            self._wait_since.setdefault(key, now)
        limit = self.timing.wait_timeout
        if limit is None or self.session.my_seat is None:
            return
        for (seat, what), since in self._wait_since.items():
            if seat == self.session.my_seat or now - since <= limit:
                continue
            peer_id = self.session.seats[seat].peer_id
            if what == "turn" and peer_id in self.connected:
                continue  # a player thinking is no fault; a player gone that long is
            self._peer_fault(
                peer_id, f"kept the game waiting for its {what} for {int(now - since)} s", True
            )
            return

    async def _linger(self) -> None:
        """Stay until every connected peer holds all we hold (our seed above all), so a
        peer is never left unable to finish its audit; bounded by ``timing.linger``."""
        deadline = self.clock() + self.timing.linger
        while self.clock() < deadline:
            ours = self.replica.have()
            behind = [
                p
                for p in self.connected
                if any(self.peer_have.get(p, {}).get(a, 0) < n for a, n in ours.items())
            ]
            if not behind:
                return
            have = fr.Have(ours)
            for peer_id in behind:
                self.mesh.send(peer_id, have)
            await asyncio.sleep(0.05)


@dataclass(frozen=True, slots=True)
class PeerLink(ev.Event):
    peer_id: bytes
    up: bool
    reason: str = ""


@dataclass(frozen=True, slots=True)
class LinkProblem(ev.Event):
    peer_id: bytes | None
    reason: str

