"""N peer cores joined by fake links under a fake clock: the real peer logic in memory.

Each ``PeerCore`` is the one the program runs; only the IO is fake. Links model what the
real, authenticated links give the layer above: frames arrive in order with a small
seeded delay, or the link is down. What a man in the middle can do to an authenticated
link is exactly this, too: anything it injects, flips, replays or drops is caught by the
AEAD and closes the link (``tamper``), and a relay that swallows everything leaves the
link silent until the idle timeout closes it (``blackhole``). Everything runs by the fake
clock: a game of many minutes takes milliseconds.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from traces import TraceRecorder

from hanabi_p2p.bots.simple import choose_action
from hanabi_p2p.deck.peer import first_failure
from hanabi_p2p.errors import HanabiError
from hanabi_p2p.identity import Identity
from hanabi_p2p.log.entry import Entry
from hanabi_p2p.net import frames as fr
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer import inputs as ins
from hanabi_p2p.peer.context import Timing
from hanabi_p2p.peer.core import PeerCore
from hanabi_p2p.peer.watcher import WatcherCore
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.bodies import Address, TableOption
from hanabi_p2p.session.table import TableSession

TABLE_ID = bytes(range(16))
TICK_S = 0.25
LATENCY_S = (0.001, 0.005)
CHECK_DELAY_S = 0.0  # how long the "shell" takes to run a batch of deck checks
IDLE_TIMEOUT_S = 15.0  # the real link's: silence this long closes it
REDIAL_S = 0.5  # the dialler's first backoff


@dataclass
class SimPeer:
    index: int
    identity: Identity
    session: TableSession
    core: PeerCore | WatcherCore
    stored: list[Entry] = field(default_factory=list)
    events: list[ev.Event] = field(default_factory=list)
    finished: fx.Finished | None = None
    frozen: bool = False  # the process is stuck: reads nothing, sends nothing
    bot: bool = True
    # an odd client that stays linked after its core is done (ours closes its links then)
    keeps_links: bool = False
    checks_run: int = 0  # deck proof checks this peer's "shell" ran for its core

    @property
    def peer_id(self) -> bytes:
        return self.identity.peer_id

    def faults(self) -> list[ev.Fault]:
        return [e for e in self.events if isinstance(e, ev.Fault)]

    def link_problems(self) -> list[fx.LinkProblem]:
        return [e for e in self.events if isinstance(e, fx.LinkProblem)]


Pair = frozenset[int]


class SimNet:
    def __init__(self, config: GameConfig, *, seed: int = 0, timing: Timing | None = None,
                 auto_start: bool = True, extra: int = 0, answer_later: bool = False) -> None:
        self.config = config
        self.rng = random.Random(seed)
        self.now = 0.0
        self.timing = timing or Timing(wait_timeout=60.0, linger=5.0)
        self._queue: list[tuple[float, int, Callable[[], None]]] = []
        self._order = itertools.count()
        self.up: set[Pair] = set()
        self.wanted: set[Pair] = set()  # links someone keeps dialling
        self.blackholes: set[tuple[int, int]] = set()  # (src, dst) frames vanish
        self.cut_pairs: set[Pair] = set()  # no connection possible (a cable cut)
        # per directed link: the time its last frame arrives (TCP keeps order)
        self._last_arrival: dict[tuple[int, int], float] = {}
        self._link_epoch: dict[Pair, int] = {}
        # a hook that sees every frame before it is delivered: return False to swallow it
        self.on_frame: Callable[[int, int, fr.Frame], bool] | None = None
        # as the node does: an entry is taken in first, and answered a moment later
        self.answer_later = answer_later
        # (peer, what it posted) between taking an entry in and being asked to answer it
        self.posted_before_answer: list[tuple[int, Entry]] = []
        # (answer_due after taking an entry in, whether answering it signed anything): count
        self.answers: Counter[tuple[bool, bool]] = Counter()
        self.trace = TraceRecorder()
        self.peers: list[SimPeer] = []
        for i in range(config.players + extra):
            identity = Identity.from_seed(bytes([i + 1]) * 32)
            session = TableSession(identity, TABLE_ID, seed=self.rng.randbytes(32),
                                   host_id=None)
            core = PeerCore(identity, session, address=Address("10.0.0.1", 4000 + i),
                            now=0.0, timing=self.timing, auto_start=auto_start,
                            player_name=f"p{i}", strict=True)
            self.peers.append(SimPeer(i, identity, session, core))
        host = self.peers[0]
        for p in self.peers:
            p.session.host_id = host.peer_id
        self._schedule(TICK_S, self._tick)

    # ---- scheduling -----------------------------------------------------------------------

    def _schedule(self, delay: float, call: Callable[[], None]) -> None:
        heapq.heappush(self._queue, (self.now + delay, next(self._order), call))

    def run(self, until: Callable[[], bool], limit_s: float = 3600.0) -> float:
        """Run events until ``until()`` holds; returns the fake time it took."""
        start = self.now
        while not until():
            if not self._queue:
                raise AssertionError("nothing left to happen")
            at, _, call = heapq.heappop(self._queue)
            if at - start > limit_s:
                raise AssertionError(f"not done after {limit_s} s of fake time")
            self.now = max(self.now, at)
            call()
        return self.now - start

    def run_for(self, seconds: float) -> None:
        end = self.now + seconds
        self.run(lambda: self.now >= end or not self._queue, limit_s=seconds + 1)
        self.now = max(self.now, end)

    def all_finished(self) -> bool:
        return all(p.finished is not None or p.frozen for p in self.peers[: self.players])

    @property
    def players(self) -> int:
        return self.config.players

    # ---- the peers ------------------------------------------------------------------------

    def _tick(self) -> None:
        for p in self.peers:
            if p.finished is None and not p.frozen:
                p.core.handle(ins.Tick(self.now))
                self._effects(p)
                self._maybe_act(p)
        if any(p.finished is None for p in self.peers):
            self._schedule(TICK_S, self._tick)

    def _maybe_act(self, p: SimPeer) -> None:
        if p.bot and p.finished is None and not p.frozen and p.session.can_act():
            state, seat = p.session.state, p.session.my_seat
            assert state is not None and seat is not None
            self.command(p, fx.Act(choose_action(state, seat)))

    def command(self, p: SimPeer, command: fx.Command) -> None:
        try:
            p.core.handle(ins.Command(command, self.now))
        except HanabiError as exc:
            self.trace.refused(self.now, p.index, exc)
            raise
        self._effects(p)

    def _effects(self, p: SimPeer) -> None:
        while True:  # as the node does, until nothing is left
            effects = p.core.drain()
            if not effects and isinstance(p.core, PeerCore) and p.core.action_unapplied:
                # our turn action is stored and sent (carried out just now): say so
                p.core.handle(ins.ActionSent(self.now))
                effects = p.core.drain()
            if not effects:
                break
            self._carry_out(p, effects)
        # a computer player acts as soon as it can, outside the core's own processing
        if p.bot and p.session.can_act():
            self._schedule(0.0, lambda: self._maybe_act(p))

    def _carry_out(self, p: SimPeer, effects: list[fx.Effect]) -> None:
        for effect in effects:
            self.trace.effect(self.now, p.index, effect)
            if isinstance(effect, fx.StoreEntry):
                p.stored.append(effect.entry)
            elif isinstance(effect, fx.Send):
                self._send(p.index, self._index(effect.peer_id), effect.frame)
            elif isinstance(effect, fx.Broadcast):
                for other in sorted(self._linked(p.index)):
                    self._send(p.index, other, effect.frame)
            elif isinstance(effect, fx.Connect):
                self.connect(p.index, self._index(effect.peer_id))
            elif isinstance(effect, fx.Disconnect):
                # like the real link's close: what was queued before it still goes out
                a, b, why = p.index, self._index(effect.peer_id), effect.reason
                self.wanted.discard(frozenset((a, b)))
                self._schedule(LATENCY_S[1] * 2,
                               lambda a=a, b=b, why=why: self.link_down(a, b, why, redial=False))
            elif isinstance(effect, fx.Notify):
                p.events.extend(effect.events)
            elif isinstance(effect, fx.CheckDeck):
                # as the node's thread pool would, a moment later: in order, here
                self._schedule(CHECK_DELAY_S,
                               functools.partial(self._check_deck, p, effect.jobs))
            elif isinstance(effect, fx.Finished):
                p.finished = effect
                # like the node, which closes its mesh when its core is done: every link
                # goes down a moment later (what was queued still goes out), and nobody can
                # link to it again
                for other in [] if p.keeps_links else sorted(self._linked(p.index)):
                    self._schedule(LATENCY_S[1] * 2, functools.partial(
                        self.link_down, p.index, other, "closed by peer (leaving)"))

    def _check_deck(self, p: SimPeer, jobs: tuple[Callable[[], None], ...]) -> None:
        if p.finished is not None:
            return
        if p.frozen:  # a stopped process finishes its checks when it goes on
            self._schedule(TICK_S, functools.partial(self._check_deck, p, jobs))
            return
        outcome = first_failure(jobs)
        p.checks_run += len(jobs)
        p.core.handle(ins.DeckChecked(outcome, self.now))
        self._effects(p)

    def _index(self, peer_id: bytes) -> int:
        return next(p.index for p in self.peers if p.peer_id == peer_id)

    def _linked(self, i: int) -> set[int]:
        return {j for pair in self.up if i in pair for j in pair if j != i}

    # ---- links ----------------------------------------------------------------------------

    def connect(self, a: int, b: int) -> None:
        """``a`` keeps a link to ``b`` (like Mesh.connect: dial, redial when it drops)."""
        pair = frozenset((a, b))
        self.wanted.add(pair)
        if pair not in self.up:
            self._schedule(0.002, lambda: self._dial(pair))

    def _dial(self, pair: Pair) -> None:
        if pair in self.up or pair not in self.wanted:
            return
        a, b = sorted(pair)
        blocked = pair in self.cut_pairs or (a, b) in self.blackholes or (b, a) in self.blackholes
        if any(self.peers[x].finished is not None and not self.peers[x].keeps_links
               for x in pair):
            return  # a finished peer's program has ended: nothing answers there any more
        if blocked or self.peers[a].frozen or self.peers[b].frozen:
            self._schedule(REDIAL_S, lambda: self._dial(pair))
            return
        self.up.add(pair)
        self._link_epoch[pair] = self._link_epoch.get(pair, 0) + 1
        for x, y in ((a, b), (b, a)):
            px = self.peers[x]
            if px.finished is None and not px.frozen:
                px.core.handle(ins.PeerUp(self.peers[y].peer_id, self.now))
                self._effects(px)

    def link_down(self, a: int, b: int, reason: str, *, redial: bool = True) -> None:
        pair = frozenset((a, b))
        if pair not in self.up:
            return
        self.up.discard(pair)
        if not redial:
            self.wanted.discard(pair)
        for x, y in ((a, b), (b, a)):
            px = self.peers[x]
            if px.finished is None and not px.frozen:
                px.core.handle(ins.PeerDown(self.peers[y].peer_id, reason, self.now))
                self._effects(px)
        if pair in self.wanted:
            self._schedule(REDIAL_S, lambda: self._dial(pair))

    def tamper(self, src: int, dst: int) -> None:
        """A relay changes, injects or replays a frame from ``src`` to ``dst``: the AEAD
        refuses it and ``dst`` closes the link (a link problem, blamed on nobody)."""
        pair = frozenset((src, dst))
        if pair not in self.up:
            return
        receiver = self.peers[dst]
        receiver.core.handle(ins.LinkFailed("a frame failed authentication", self.now,
                                            peer_id=self.peers[src].peer_id))
        self._effects(receiver)
        self.link_down(src, dst, "a frame failed authentication")

    def blackhole(self, src: int, dst: int, on: bool = True) -> None:
        """A relay swallows every frame from ``src`` to ``dst`` but keeps TCP up: ``dst``
        hears nothing, and its idle timeout closes the link."""
        key = (src, dst)
        if not on:
            self.blackholes.discard(key)
            return
        self.blackholes.add(key)
        pair = frozenset(key)
        epoch = self._link_epoch.get(pair, 0)

        def idle() -> None:
            if pair in self.up and self._link_epoch.get(pair) == epoch:
                self.link_down(src, dst, f"nothing received for {IDLE_TIMEOUT_S:g} s")

        self._schedule(IDLE_TIMEOUT_S, idle)

    def cut(self, i: int, on: bool = True) -> None:
        """Peer ``i``'s cable is out (or back): its links drop after the idle timeout."""
        pairs = {frozenset((i, j)) for j in range(len(self.peers)) if j != i}
        if on:
            self.cut_pairs |= pairs
            for pair in pairs & self.up:
                a, b = sorted(pair)
                self._schedule(IDLE_TIMEOUT_S, lambda a=a, b=b: self._idle_if_cut(a, b))
        else:
            self.cut_pairs -= pairs

    def freeze(self, i: int, on: bool = True) -> None:
        """Peer ``i``'s process stops (SIGSTOP) or goes on. Stopped, it answers nothing, and
        its peers' idle timeouts close their links to it."""
        p = self.peers[i]
        p.frozen = on
        if on:
            for pair in {pr for pr in self.up if i in pr}:
                a, b = sorted(pair)
                self._schedule(IDLE_TIMEOUT_S, lambda a=a, b=b: self._idle_if_frozen(a, b))
        else:
            # woken, it reads the EOFs of the links its peers closed meanwhile
            for peer_id in sorted(p.core.connected):
                if frozenset((i, self._index(peer_id))) not in self.up:
                    p.core.handle(ins.PeerDown(peer_id, "connection closed by the peer",
                                               self.now))
            self._effects(p)
            for pair in {pr for pr in self.wanted if i in pr} - self.up:
                self._schedule(0.01, lambda pair=pair: self._dial(pair))

    def _idle_if_frozen(self, a: int, b: int) -> None:
        if self.peers[a].frozen or self.peers[b].frozen:
            self.link_down(a, b, f"nothing received for {IDLE_TIMEOUT_S:g} s")

    def stall(self, i: int, on: bool = True) -> None:
        """Peer ``i``'s process is wedged but its links stay up (a relay answering the
        keepalives for it, a program stuck in a loop): nothing it should send arrives."""
        self.peers[i].frozen = on

    def _idle_if_cut(self, a: int, b: int) -> None:
        if frozenset((a, b)) in self.cut_pairs:
            self.link_down(a, b, f"nothing received for {IDLE_TIMEOUT_S:g} s")

    def _send(self, src: int, dst: int, frame: fr.Frame) -> None:
        pair = frozenset((src, dst))
        if pair not in self.up or pair in self.cut_pairs or (src, dst) in self.blackholes:
            return
        epoch = self._link_epoch[pair]
        delay = self.rng.uniform(*LATENCY_S)
        arrival = max(self.now + delay, self._last_arrival.get((src, dst), 0.0))
        self._last_arrival[(src, dst)] = arrival

        def deliver() -> None:
            if pair not in self.up or self._link_epoch.get(pair) != epoch:
                return  # the link dropped with this frame on it: at most once
            if (src, dst) in self.blackholes or pair in self.cut_pairs:
                return
            if self.on_frame is not None and not self.on_frame(src, dst, frame):
                return
            receiver = self.peers[dst]
            if receiver.finished is not None or receiver.frozen:
                return
            if self.answer_later and isinstance(frame, fr.Entry):
                core = receiver.core
                core.handle(ins.Received(self.peers[src].peer_id, frame, self.now,
                                         settle=False))
                due = core.settle_signs
                if not due:  # as the node does: nothing to sign, settled at once
                    self._answer(receiver, due)
                    return
                before = len(receiver.stored)
                self._effects(receiver)
                self.posted_before_answer += [(dst, e) for e in receiver.stored[before:]
                                              if e.author == receiver.peer_id]
                self._schedule(0.0, functools.partial(self._answer, receiver, due))
                return
            receiver.core.handle(ins.Received(self.peers[src].peer_id, frame, self.now))
            self._effects(receiver)

        heapq.heappush(self._queue, (arrival, next(self._order), deliver))

    def deliver(self, src: int, dst: int, frame: fr.Frame) -> None:
        """Hand ``frame`` to peer ``dst`` as if peer ``src`` had sent it on their link (a
        modified program's message; the link need not be up)."""
        receiver = self.peers[dst]
        receiver.core.handle(ins.Received(self.peers[src].peer_id, frame, self.now))
        self._effects(receiver)

    def _answer(self, p: SimPeer, due: bool) -> None:
        if p.finished is None and not p.frozen:
            before = len(p.stored)
            p.core.handle(ins.Settle(self.now))
            self._effects(p)
            signed = any(e.author == p.peer_id for e in p.stored[before:])
            self.answers[due, signed] += 1

    # ---- scenarios ------------------------------------------------------------------------

    def add_watcher(self, name: str = "watcher", via: int = 0) -> SimPeer:
        """A spectator (``hanabi-p2p watch``) that finds the table at peer ``via``."""
        index = len(self.peers)
        identity = Identity.from_seed(bytes([0x80 + index]) * 32)
        session = TableSession(identity, TABLE_ID, seed=self.rng.randbytes(32),
                               host_id=self.peers[0].peer_id, watching=True)
        core = WatcherCore(identity, session, address=Address("10.0.0.9", 5000 + index),
                           now=self.now, timing=self.timing, player_name=name, strict=True)
        watcher = SimPeer(index, identity, session, core, bot=False)
        self.peers.append(watcher)
        core.handle(ins.Start(self.now))
        self._effects(watcher)
        self.connect(index, via)
        return watcher

    def open_table(self, table_options: frozenset[TableOption] = frozenset()) -> None:
        host = self.peers[0]
        host.session.open_table("test table", "p0", self.config, table_options)
        host.core.handle(ins.Start(self.now))
        self._effects(host)
        for p in self.peers[1 : self.players]:
            self.connect(p.index, 0)

    def play_to_end(self, limit_s: float = 3600.0) -> float:
        self.open_table()
        return self.run(self.all_finished, limit_s)

    def digests(self) -> set[bytes]:
        """One hash per peer over its stored entries, in canonical order."""
        import hashlib

        out = set()
        for p in self.peers[: self.players]:
            if p.frozen:
                continue
            hashes = sorted(e.hash for e in p.stored)
            out.add(hashlib.sha256(b"".join(hashes)).digest())
        return out


def no_blame(net: SimNet) -> bool:
    """No peer aborted the game blaming anyone, and no fatal fault names a peer."""
    for p in net.peers[: net.players]:
        if p.session.blamed is not None:
            return False
        if any(f.fatal and f.peer_id is not None for f in p.faults()):
            return False
    return True


def safe_command(net: SimNet, p: SimPeer, command: fx.Command) -> str | None:
    try:
        net.command(p, command)
    except HanabiError as exc:
        return str(exc)
    return None
