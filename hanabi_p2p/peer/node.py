"""The IO shell around one peer core: the mesh, the game file, the clock.

Everything a peer decides happens in the sans-IO ``PeerCore``; this class only carries its
inputs in (mesh events, the time, commands) and its effects out (store, send, connect,
notify, finish), in the order the core gives them. Its tasks live in one
``asyncio.TaskGroup``: if any of them fails, the peer ends with that error, visibly.

The deck's proof checks (nearly all of a peer's deck CPU) run on a small thread pool, off
the event loop: libsodium releases the GIL, so they use the cores a laptop has while the
loop keeps the links and the screen alive. So do the fsyncs: those of entries received from
peers (group commit: a moment after they are written, one at a time, covering everything
written before it starts, and skipped when an fsync of ours has covered them already), and
those of our own entries, which must be durable before they are sent (a peer that restarts
must never sign a second, different entry with the same number): the effects that follow
one of our entries wait, in order, until its fsync is done, while the loop goes on reading
(and, for our turn action, applies it meanwhile: the core sends it before applying it).
A node alone on its event loop (one player's program) does that fsync on the loop itself
while the disk is fast: then nothing else waits behind it, and the way to the sync thread and
back costs more than the fsync (see INLINE_SYNC_MAX_S).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from hanabi_p2p.deck.errors import DeckCheatError
from hanabi_p2p.deck.peer import first_failure
from hanabi_p2p.errors import UserError
from hanabi_p2p.log.entry import Entry
from hanabi_p2p.log.replica import Replica
from hanabi_p2p.log.storage import GameFile
from hanabi_p2p.net import frames as fr
from hanabi_p2p.net.errors import LinkAuthError, LinkClosedError, LinkFloodError, LinkTimeoutError
from hanabi_p2p.net.handshake import Signer
from hanabi_p2p.net.mesh import Mesh
from hanabi_p2p.net.mesh_events import LinkFailed, PeerDown, PeerUp, Received
from hanabi_p2p.peer import collector
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer import inputs as ins
from hanabi_p2p.peer.context import Timing
from hanabi_p2p.peer.core import PeerCore
from hanabi_p2p.peer.effects import LinkProblem, PeerLink
from hanabi_p2p.peer.preload import libraries_loaded
from hanabi_p2p.peer.result import RESUME_COMMAND
from hanabi_p2p.peer.watcher import WatcherCore
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.table import Phase, TableSession

# Received entries are made durable at most this long after they are written (plus the
# fsync itself), usually sooner: with the next entry of ours.
GROUP_COMMIT_DELAY_S = 0.02
# A spectator's, at most this long after (and as soon as it stops): it never signs, so no
# entry of its own ever covers them, and each fsync after a short wait was a timer, a trip
# to the sync thread and back and a disk flush per entry it received, some 3 a turn (15 %
# of a spectator's CPU at a meet-up, bench/meetup.py, and 6 of its 8 wake-ups a turn).
# Its copy is for itself alone: nobody fetches it, and a crash loses at most the last second
# of a game the players still hold.
SPECTATOR_GROUP_COMMIT_DELAY_S = 1.0
# Our own entry's fsync runs on the event loop, not on the sync thread, when this node is the
# only one on its loop and our last fsync took at most this long. Handing an fsync to the
# thread and getting the loop back costs about 1 ms (a thread wake-up and the GIL twice) while
# the fsync itself takes 0.2-0.7 ms on a fast disk: over 5-player tables of separate processes
# (bench/game.py --processes --think 0.05, 6 paired runs) the median turn latency fell from
# 5.5 to 4.9 ms. With other nodes on the loop (computer players, a local table) they would
# all wait behind it, and a slow disk would freeze our own screen: the thread then.
INLINE_SYNC_MAX_S = 0.02
# The longest the loop waits for the sync thread to begin our entry's fsync (a thread
# wake-up: tens of microseconds) before it goes on with what overlaps the fsync.
SYNC_START_WAIT_S = 0.002
# The core's clock ticks this often (it syncs and checks waits on its own intervals).
TICK_FRACTION = 0.25

__all__ = ["LinkProblem", "Node", "PeerLink", "StorageFailed", "Timing"]


class StorageFailed(UserError):
    """The game log could not be written (a full disk, a removed directory)."""


# running nodes by event loop: a node alone on its loop may block it for its own fsync
_nodes_on_loop: collections.Counter[asyncio.AbstractEventLoop] = collections.Counter()


class Node:
    def __init__(
        self,
        core: PeerCore | WatcherCore,
        mesh: Mesh,
        game_file: GameFile,
        *,
        on_events: Callable[[list[ev.Event]], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        resume_command: str | None = RESUME_COMMAND,
    ) -> None:
        self.core = core
        # how the player comes back to this game (None: it cannot be resumed, a practice game)
        self.resume_command = resume_command
        self.mesh = mesh
        self.game_file = game_file
        self.on_events = on_events or (lambda events: None)
        self.clock = clock
        self.log_path = game_file.path
        self.failure: str | None = None
        self._done = asyncio.Event()
        self._executing = False
        self._group: asyncio.TaskGroup | None = None
        # calls asked for with `later`: those asked before the node runs, and those waiting
        self._early_calls: list[tuple[float, Callable[[], None], str]] = []
        self._calls_waiting: set[asyncio.Task[None]] = set()
        self._checkers: ThreadPoolExecutor | None = None  # made when the deck first needs it
        self._syncer: ThreadPoolExecutor | None = None  # group commit of received entries
        self._sync_running = False
        self._commit_delay = (SPECTATOR_GROUP_COMMIT_DELAY_S if isinstance(core, WatcherCore)
                              else GROUP_COMMIT_DELAY_S)
        # records written to the game file, and how many of them an fsync started after
        self._written = 0
        self._covered = 0
        # effects that wait for the fsync of our own entry before them (in order)
        self._backlog: collections.deque[fx.Effect] = collections.deque()
        self._own_sync_running = False
        self._after_sync_error: Exception | None = None  # raised by `_await_own_sync`
        self._last_own_sync_s = 0.0  # how long the last fsync of our entry took
        self._in_play = False  # counted in `collector` (while running, once play began)

    # -- what others read -------------------------------------------------------------------

    @property
    def replica(self) -> Replica:
        return self.core.replica

    @property
    def session(self) -> TableSession:
        return self.core.session

    @property
    def connected(self) -> frozenset[bytes]:
        return frozenset(self.core.connected)

    @property
    def finished(self) -> bool:
        return self._done.is_set()

    @property
    def identity(self) -> Signer:
        return self.core.identity

    # -- inputs -----------------------------------------------------------------------------

    def load(self, entries: list[Entry]) -> None:
        """Replay stored entries (a resumed peer) before going online."""
        self.core.handle(ins.Load(tuple(entries)))
        self._execute()

    def command(self, command: fx.Command) -> None:
        """A command from the front end; raises HanabiError (nothing sent) if refused."""
        self.core.handle(ins.Command(command, self.clock()))
        self._execute()

    def flush(self) -> None:
        """Let the core post what the session queued (a test that drives the session)."""
        self.core.handle(ins.Start(self.clock()))
        self._execute()

    def spawn(self, work: Coroutine[Any, Any, None], name: str) -> None:
        """Run ``work`` as a task of this node's group, so that an error in it ends the peer
        visibly; work asked for when the node is not running is not started."""
        if self._group is None:
            work.close()
            return
        self._group.create_task(work, name=name)

    def later(self, delay: float, call: Callable[[], None], name: str) -> None:
        """Call ``call`` on the event loop ``delay`` seconds from now, as a task of this
        node's group. An error in it then ends the peer visibly: a callback of the loop's own
        (``call_later``) would only have its error printed, and what it was to do would never
        happen (a computer player that never acts holds the whole table up, silently). Asked
        for before the node runs (the events of a game loaded from its file), it is made when
        the node starts; once the node has stopped, it is not made, and one still waiting
        then is cancelled."""
        if self._group is None:
            if not self._done.is_set():
                self._early_calls.append((delay, call, name))
            return
        task = self._group.create_task(_call_after(delay, call), name=name)
        self._calls_waiting.add(task)
        task.add_done_callback(self._calls_waiting.discard)

    async def run(self) -> None:
        """Run until the core says the peer is done. An error in any task ends the peer."""
        loop = asyncio.get_running_loop()
        _nodes_on_loop[loop] += 1
        try:
            async with asyncio.TaskGroup() as group:
                self._group = group
                early, self._early_calls = self._early_calls, []
                for delay, call, name in early:
                    self.later(delay, call, name)
                self.core.handle(ins.Start(self.clock()))
                self._execute()
                events = group.create_task(self._mesh_events(), name="mesh events")
                group.create_task(libraries_loaded(), name="load the libraries")
                ticker = group.create_task(self._ticker(), name="core clock")
                await self._done.wait()
                events.cancel()
                ticker.cancel()
                for task in list(self._calls_waiting):
                    task.cancel()  # (the peer is done: what they were to do is moot)
        except* StorageFailed as failed:
            self.failure = str(failed.exceptions[0])
        finally:
            if self._in_play:
                self._in_play = False
                collector.game_ended()
            _nodes_on_loop[loop] -= 1
            if not _nodes_on_loop[loop]:
                del _nodes_on_loop[loop]
            self._group = None
            self._done.set()
            if self._checkers is not None:
                # a check still running belongs to a game we left: nobody waits for it
                self._checkers.shutdown(wait=False, cancel_futures=True)
                self._checkers = None
            if self._syncer is not None:
                # an fsync still running must end before the game file may be closed
                self._syncer.shutdown(wait=True)
                self._syncer = None

    async def _mesh_events(self) -> None:
        while (event := await self.mesh.next_event()) is not None:
            now = self.clock()
            core = self.core
            if isinstance(event, Received) and isinstance(event.frame, fr.Entry):
                # Applied now; our answer (an ack) is signed one loop turn later, so that
                # peers sharing this machine (bot seats, a local table) each apply the
                # entry before any of them spends its time signing and storing an answer.
                # An entry that calls for no answer (most acks) is settled at once.
                core.handle(ins.Received(event.peer_id, event.frame, now, settle=False))
                if core.settle_signs:
                    self._execute()
                    await asyncio.sleep(0)
                    now = self.clock()
                core.handle(ins.Settle(now))
            elif isinstance(event, Received):
                core.handle(ins.Received(event.peer_id, event.frame, now))
            elif isinstance(event, PeerUp):
                core.handle(ins.PeerUp(event.peer_id, now))
            elif isinstance(event, PeerDown):
                if isinstance(event.error, LinkAuthError | LinkFloodError):
                    # altered, injected or replayed bytes on the path, or a link flooding
                    # us: shown and counted, never held against the peer the link was for
                    core.handle(ins.LinkFailed(event.reason, now, peer_id=event.peer_id))
                core.handle(ins.PeerDown(event.peer_id, event.reason, now))
            elif isinstance(event, LinkFailed) and _worth_reporting(event):
                core.handle(ins.LinkFailed(str(event.error), now, address=event.address,
                                           peer_id=event.peer_id))
            self._execute()

    async def _ticker(self) -> None:
        interval = self.core.timing.sync_interval * TICK_FRACTION
        while True:
            await asyncio.sleep(interval)
            self.core.handle(ins.Tick(self.clock()))
            self._execute()

    # -- effects ----------------------------------------------------------------------------

    def _execute(self) -> None:
        """Carry out the core's effects in order. A front end that sends a command while
        being notified only adds effects: this loop drains them, never a nested one."""
        if self._executing:
            return
        self._executing = True
        backlog = self._backlog
        unsynced = False  # received entries written since the last fsync
        try:
            while True:
                if not backlog:
                    # (only once all it gave is carried out: our turn action, stored and
                    # sent, is applied by the core when we say so)
                    backlog.extend(self._draw())
                if not backlog or self._own_sync_running:
                    break
                effect = backlog.popleft()
                if not isinstance(effect, fx.StoreEntry):
                    self._apply(effect)
                    continue
                self._append(effect)
                if not effect.own:
                    unsynced = True
                    continue
                # our entry's fsync, which what follows waits for, makes the received
                # entries written before it durable too
                self._covered = self._written
                unsynced = False
                if self._group is None:  # not running (loading, tests): here and now
                    self._store(self.game_file.sync)
                elif self._sync_on_the_loop():
                    self._sync_own_here()
                else:
                    self._own_sync_running = True
                    self._sync_own()
                    # while the disk works: apply our turn action, sent once it is durable
                    # (all the core gave before is in the backlog: what it gives now comes
                    # after, in order)
                    backlog.extend(self._draw())
            if unsynced:
                self._sync_received()
        finally:
            self._executing = False

    def _draw(self) -> list[fx.Effect]:
        """The core's effects; when it has none left and our turn action is with us (every
        effect before it handed over), the core applies that action first."""
        effects = self.core.drain()
        core = self.core
        if not effects and isinstance(core, PeerCore) and core.action_unapplied:
            core.handle(ins.ActionSent(self.clock()))
            effects = core.drain()
        return effects

    def _sync_on_the_loop(self) -> bool:
        alone = _nodes_on_loop[asyncio.get_running_loop()] == 1
        return alone and self._last_own_sync_s <= INLINE_SYNC_MAX_S

    def _timed_sync(self) -> None:
        """One fsync of the game file (on the loop or the sync thread), timed."""
        started = self.clock()
        self.game_file.sync()
        self._last_own_sync_s = self.clock() - started

    def _sync_own_here(self) -> None:
        """The fsync of our entry, on the loop: what follows goes on when it returns."""
        try:
            self._timed_sync()
        except OSError as exc:
            # nothing after this entry goes out; the peer ends as after a failed fsync on
            # the sync thread (a task of the group raises the error)
            self._own_sync_running = True
            self.spawn(_raise(self._storage_failed(exc)), "fsync of our entry")

    def _sync_own(self) -> None:
        """Start the fsync of our entry now, on the sync thread, while the loop finishes
        what it is doing; what waits for it goes on as soon as it is done (a callback, not a
        task woken one loop turn later). A task of the group waits for it too, so the peer
        neither ends before it nor loses an error of it."""
        started = threading.Event()

        def sync() -> None:
            started.set()
            self._timed_sync()

        synced = asyncio.get_running_loop().run_in_executor(self._sync_thread(), sync)
        synced.add_done_callback(self._own_synced)  # before the task's: called first
        self.spawn(self._await_own_sync(synced), "fsync of our entry")
        # Let the sync thread take the GIL and enter the fsync (which lets it go) before the
        # loop goes on: otherwise it would wait for the loop to be idle, or for Python's
        # switch interval (5 ms), and the work meant to overlap the fsync would precede it.
        started.wait(SYNC_START_WAIT_S)

    def _own_synced(self, synced: asyncio.Future[None]) -> None:
        self._own_sync_running = False
        if self._group is None or synced.cancelled() or synced.exception() is not None:
            return  # the peer has ended, or `_await_own_sync` raises the error
        try:
            self._execute()
        except Exception as exc:  # not lost: `_await_own_sync` raises it
            self._after_sync_error = exc

    async def _await_own_sync(self, synced: asyncio.Future[None]) -> None:
        try:
            await synced
        except OSError as exc:
            raise self._storage_failed(exc) from None
        error, self._after_sync_error = self._after_sync_error, None
        if error is not None:
            raise error

    def _sync_thread(self) -> ThreadPoolExecutor:
        if self._syncer is None:
            # one thread: fsyncs run one at a time, in the order they were asked for
            self._syncer = ThreadPoolExecutor(1, "log-sync")
        return self._syncer

    async def _fsync(self) -> None:
        """One fsync of the game file on the sync thread; a failure ends the peer."""
        try:
            await asyncio.get_running_loop().run_in_executor(self._sync_thread(),
                                                             self.game_file.sync)
        except OSError as exc:
            raise self._storage_failed(exc) from None

    def _sync_received(self) -> None:
        """Make the received entries written so far durable, off the event loop when the
        node runs: they can always be fetched again, so nothing waits for this."""
        if self._group is None:
            self._covered = self._written
            self._store(self.game_file.sync)
        elif not self._sync_running:
            self._sync_running = True
            self.spawn(self._group_commit(), "group commit")

    async def _group_commit(self) -> None:
        """After a short wait, one fsync for everything written and not yet covered. Nearly
        every entry we receive is answered by one of ours (an ack, a deck step), whose own
        fsync covers it: the wait keeps a second fsync off the path of that answer."""
        try:
            await self._commit_pause()
            while self._covered < self._written:
                target = self._written
                await self._fsync()
                self._covered = max(self._covered, target)
        finally:
            self._sync_running = False

    async def _commit_pause(self) -> None:
        """The group commit's wait, cut short when the node is done: the peer then ends
        without waiting out the delay (a spectator's is a second)."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self._commit_delay):
                await self._done.wait()

    def _append(self, effect: fx.StoreEntry) -> None:
        entry = effect.entry
        # written now; made durable by `_execute` (ours before what follows) or in a batch
        self._store(lambda: self.game_file.append(entry, sync=False))
        self._written += 1

    def _apply(self, effect: fx.Effect) -> None:
        mesh = self.mesh
        if isinstance(effect, fx.Send):
            mesh.send(effect.peer_id, effect.frame)
        elif isinstance(effect, fx.Broadcast):
            mesh.broadcast(effect.frame)
        elif isinstance(effect, fx.Connect):
            mesh.connect(effect.peer_id, effect.host, effect.port)
        elif isinstance(effect, fx.AdmitOnly):
            mesh.accepting_new = False
            mesh.max_guests = effect.guests
            mesh.seat(effect.peer_ids)
        elif isinstance(effect, fx.Disconnect):
            self.spawn(mesh.disconnect(effect.peer_id, effect.reason), "disconnect")
        elif isinstance(effect, fx.Notify):
            if (not self._in_play and self._group is not None
                    and self.core.session.phase is Phase.PLAY):
                self._in_play = True  # (released when `run` ends)
                collector.game_in_play()
            self.on_events(list(effect.events))
        elif isinstance(effect, fx.CheckDeck):
            if self._group is None:  # not running (replaying a log): here and now
                self.core.handle(ins.DeckChecked(first_failure(effect.jobs), self.clock()))
            else:
                self.spawn(self._check_deck(effect.jobs), "deck checks")
        elif isinstance(effect, fx.Finished):
            if effect.failure and not self.failure:
                self.failure = effect.failure
            # the links close when the node has stopped; nobody new links up meanwhile
            self.mesh.stop_listening()
            self._done.set()

    async def _check_deck(self, jobs: Sequence[Callable[[], None]]) -> None:
        if self._checkers is None:
            self._checkers = ThreadPoolExecutor(os.cpu_count() or 1, "deck-checks",
                                                initializer=_yield_to_the_loop)
        loop = asyncio.get_running_loop()
        results = await asyncio.gather(
            *(loop.run_in_executor(self._checkers, job) for job in jobs), return_exceptions=True)
        outcome: fx.CheckOutcome = None
        for result in results:
            if isinstance(result, DeckCheatError):
                outcome = result  # the first failure in list order: blame never races
                break
            if isinstance(result, BaseException):
                raise result  # a bug, not a cheat: end the peer visibly
        if not self.finished:
            self.core.handle(ins.DeckChecked(outcome, self.clock()))
            self._execute()

    def _store(self, write: Callable[[], None]) -> None:
        try:
            write()
        except OSError as exc:
            raise self._storage_failed(exc) from None

    def _storage_failed(self, exc: OSError) -> StorageFailed:
        reason = exc.strerror or type(exc).__name__
        what = "disk full" if exc.errno == 28 else "cannot write the game log"
        then = (f"run {self.resume_command}" if self.resume_command is not None
                else "start a new game (a practice game cannot be resumed)")
        failure = f"{what}: {reason} ({self.log_path}); free space and {then}"
        self.failure = failure
        self._done.set()
        return StorageFailed(failure)


# How much nicer than the rest of the program the deck-check threads are (Linux: a thread
# can have its own niceness; 19 is the most there is).
CHECK_THREAD_NICENESS = 10
MAX_NICENESS = 19


async def _raise(error: Exception) -> None:
    raise error


async def _call_after(delay: float, call: Callable[[], None]) -> None:
    await asyncio.sleep(delay)
    call()


def _yield_to_the_loop() -> None:
    """Runs in each deck-check thread as it starts. The checks are needed only when the deck
    becomes ready, while the shuffles and locks made on the event loops (ours and those of
    other programs on this machine) are each a link of the chain everyone waits for: when
    they compete for a core, the chain goes first. Where a thread cannot have its own
    priority, nothing changes."""
    with contextlib.suppress(AttributeError, OSError):
        me = threading.get_native_id()
        nicer = min(os.getpriority(os.PRIO_PROCESS, me) + CHECK_THREAD_NICENESS, MAX_NICENESS)
        os.setpriority(os.PRIO_PROCESS, me, nicer)


def _worth_reporting(event: LinkFailed) -> bool:
    """A connection that failed for a reason someone should see. Not: a stranger hanging up
    before the handshake (a `join` probe), nor a redial of a known player that cannot get
    through yet (its link being down is shown already; the mesh keeps trying)."""
    if isinstance(event.error, LinkClosedError):
        return False
    return not (event.peer_id is not None and isinstance(event.error, LinkTimeoutError))
