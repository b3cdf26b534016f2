"""The end of a player's game: stay until every seated peer holds every entry, then finish.

Once the game is over (audited) or stopped, a peer lingers: a peer cut off during the audit
may need our entries (our seed above all, or it cannot audit) until it would give up on us
itself, and one we gave up on may come back and must learn why the game ended. We tell
everyone who, as far as we know, holds the whole game (`COMPLETE_TOPIC`), so that peers cut
off from each other need not wait for each other. Spectators linked to us get a little
while too, never at the players' expense.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from hanabi_p2p.limits import PEER_ID_BYTES
from hanabi_p2p.net import frames as fr
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer.context import PeerContext
from hanabi_p2p.session.table import AUDITED

# MSG topic after the game: the peer ids (32 bytes each) the sender knows hold every entry.
COMPLETE_TOPIC = "complete"

Have = dict[bytes, int]


def complete_ids(ctx: PeerContext, peer_id: bytes, body: bytes) -> set[bytes] | None:
    """What a seated peer's ``complete`` says: who holds the whole game (itself included);
    None when it is not a player's word, or not a list of players."""
    seated = ctx.seated()
    if peer_id not in seated or len(body) % PEER_ID_BYTES or len(body) > len(seated) * (
        PEER_ID_BYTES
    ):
        return None
    ids = {body[i : i + PEER_ID_BYTES] for i in range(0, len(body), PEER_ID_BYTES)}
    return (ids & seated) | {peer_id}


def end_of(ctx: PeerContext) -> tuple[fx.EndKind, str | None]:
    """How a game that is over or stopped ends, as the session saw it."""
    session = ctx.session
    if session.phase == AUDITED:
        failure = None
        if session.audit is not None and not session.audit.ok:
            failure = f"the deck audit failed: {session.audit.reason}"
        return fx.EndKind.AUDITED, failure
    return fx.EndKind.ABORTED, session.abort_reason or "the game was aborted"


@dataclass
class Ending:
    ctx: PeerContext
    have: Callable[[], Have]
    # never waited for: players caught cheating, and those that left as they were seated
    not_waited_for: Callable[[], set[bytes]]
    spectator_lacks: Callable[[Have], bool]
    finish: Callable[[fx.EndKind, str | None], None]
    linger_until: float | None = None
    spectators_until: float | None = None
    # who holds all of it, as we told others and as others told us
    _told_complete: frozenset[bytes] = frozenset()
    known_complete: set[bytes] = field(default_factory=set)

    def start(self) -> None:
        ctx = self.ctx
        bound = max(ctx.timing.linger, ctx.timing.wait_timeout or 0.0)
        self.linger_until = ctx.now + bound
        self.spectators_until = ctx.now + ctx.timing.spectator_linger
        # tell everyone at once that we hold it all: peers that are done too can stop as
        # soon as they hear it, not a sync interval later
        ctx.emit(fx.Broadcast(fr.Have(self.have())))

    def complete_frame(self) -> fr.Message | None:
        """What we last told of who holds everything (for a peer that links up late)."""
        if not self._told_complete:
            return None
        return fr.Message(COMPLETE_TOPIC, b"".join(sorted(self._told_complete)))

    def on_complete(self, peer_id: bytes, body: bytes) -> None:
        """A seated peer that holds the whole game tells us who else does (as their HAVEs
        show it): we need not stay for them, even if our own link to them is down (the core
        then checks whether we are done)."""
        ids = complete_ids(self.ctx, peer_id, body)
        if ids is None:
            return  # not a word from a player, or not a list of players: nothing to learn
        self.known_complete |= ids

    def _tell_complete(self, ours: Have) -> None:
        """While we linger, tell every peer who holds the whole game, as far as we know."""
        ctx = self.ctx
        complete = frozenset(
            s.peer_id for s in ctx.session.seats
            if s.peer_id == ctx.me or not ctx.sync.lacks(s.peer_id, ours)
        )
        if complete != self._told_complete:
            self._told_complete = complete
            frame = self.complete_frame()
            assert frame is not None
            ctx.emit(fx.Broadcast(frame))

    def check(self) -> None:
        """Finish once every seated peer holds every entry we hold (our seed above all, so
        nobody is left unable to audit), or when the linger time is up."""
        if self.linger_until is None:
            return
        ctx = self.ctx
        skip = {ctx.me, *self.not_waited_for(), *self.known_complete}
        others = [s.peer_id for s in ctx.session.seats if s.peer_id not in skip]
        ours = self.have()
        self._tell_complete(ours)
        if ctx.now < self.linger_until and ctx.sync.behind(others, ours):
            return
        if (self.spectators_until is not None and ctx.now < self.spectators_until
                and self.spectator_lacks(ours)):
            return
        self.finish(*end_of(ctx))
