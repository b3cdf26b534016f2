"""Waiting: when a player's core gives up on what keeps the game waiting.

A player thinking is never timed out; a player out of reach, or whose entries stop reaching
us, is, after the wait timeout, without blame: the game ends "unreachable" (SPEC, "Waiting and
unreachable players"). `waits.WaitClock` keeps the clocks; this machine knows who is
reachable, and notices when we ourselves were not running (a suspended process, a sleeping
laptop), after which no clock started before means anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hanabi_p2p.peer.context import SYNC_INTERVAL_S, PeerContext
from hanabi_p2p.peer.waits import WaitClock
from hanabi_p2p.session.table import ABORTED, AUDITED

# A connected peer that sent no HAVE for this long is not answering (a live one sends one
# every sync interval, even while its player thinks).
SILENCE_S = 10 * SYNC_INTERVAL_S
# Entries of an author that someone else holds and we lack for this long are not reaching us.
STALL_S = 5 * SYNC_INTERVAL_S
# A gap this long between two ticks means we were suspended (SIGSTOP, a sleeping laptop).
SUSPEND_GAP_S = 5.0


@dataclass
class Waiting:
    ctx: PeerContext
    started_at: float
    clock: WaitClock = field(init=False)
    # seated peers whose link is down, since when
    _down_since: dict[bytes, float] = field(default_factory=dict)
    # authors whose next entry waits on a version of an action we do not hold, since when
    _forked_since: dict[bytes, float] = field(default_factory=dict)
    _last_tick: float | None = None

    def __post_init__(self) -> None:
        self.clock = WaitClock(self.ctx.timing.wait_timeout)

    def was_suspended(self) -> bool:
        """Called at each tick: whether we were not running since the last one (then every
        clock this machine keeps starts again)."""
        now = self.ctx.now
        gap = self._last_tick is not None and now - self._last_tick > SUSPEND_GAP_S
        if gap:
            self.clock.restart(now)
        self._last_tick = now
        return gap

    def restart_down_clocks(self) -> None:
        for clocks in (self._down_since, self._forked_since):
            for peer_id in clocks:
                clocks[peer_id] = self.ctx.now

    def link_up(self, peer_id: bytes) -> None:
        self._down_since.pop(peer_id, None)

    def link_down(self, peer_id: bytes) -> None:
        self._down_since.setdefault(peer_id, self.ctx.now)

    def _silent_since(self, seat: int) -> float | None:
        """None while the player in ``seat`` is reachable and its entries reach us."""
        ctx = self.ctx
        peer_id = ctx.session.seats[seat].peer_id
        if peer_id not in ctx.connected:
            return self._down_since.get(peer_id, self.started_at)
        have = ctx.sync.peers.get(peer_id)
        if have is None or ctx.now - have.at > SILENCE_S:
            return have.at if have is not None else self.started_at
        if peer_id in ctx.sync.stalled_authors(ctx.now, STALL_S):
            return ctx.sync.missing_since(peer_id)
        # its entries reach us but stop at one that names a version of an action we do not
        # hold: a fork is proven within a few sync intervals; one never proven is an answer
        # nobody can give, and its author's later entries wait behind it for ever
        return self._forked_since.get(peer_id)

    def _note_forked_waits(self) -> None:
        ctx = self.ctx
        waiting = {e.author for e in ctx.replica.stuck()
                   if ctx.session.names_a_version_we_lack(e)}
        for author in waiting:
            self._forked_since.setdefault(author, ctx.now)
        for author in set(self._forked_since) - waiting:
            del self._forked_since[author]

    def check(self) -> None:
        ctx = self.ctx
        session = ctx.session
        self.clock.update(session.waiting_for(), ctx.now)
        if session.phase in (ABORTED, AUDITED):
            return
        self._note_forked_waits()
        timer = session.table.turn_timer if session.table is not None else None
        total = session.table.total_clock if session.table is not None else None
        overdue = self.clock.overdue(ctx.now, session.my_seat, self._silent_since, timer,
                                     total)
        if overdue is None:
            return
        peer_id = session.seats[overdue.seat].peer_id
        what = f"its {overdue.what.value}"
        if overdue.turn_timer:
            verdict = f"timed out (the table's turn timer is {timer} s)"
        elif overdue.total_clock:
            verdict = (f"timed out (its turns together lasted longer than the table's total "
                       f"clock of {total} s)")
        else:
            verdict = "unreachable"
        reason = (f"waited {int(overdue.waited)} s for {ctx.describe(peer_id)} ({what}): "
                  f"{verdict}")
        session.abort(None, reason)
