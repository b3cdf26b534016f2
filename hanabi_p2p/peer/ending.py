"""The end of a player's game: stay until every seated player holds every entry, then finish.

Once the game is over (audited) or stopped, a peer lingers: a peer cut off during the audit
may need our entries (our seed above all, or it cannot audit) until it would give up on us
itself, and one we gave up on may come back and must learn why the game ended.

Each player says for itself that it holds the whole game: its HAVE over its own link, or its
signed ``complete`` (`completewire`), which every peer relays, so that two players whose own
link is cut still learn it of each other through a third. Nobody's word counts for anyone
else (SPEC §4.6). Spectators linked to us get a little while too, never at the players'
expense.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from hanabi_p2p.errors import HanabiError
from hanabi_p2p.net import frames as fr
from hanabi_p2p.peer import completewire as cw
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer.context import PeerContext
from hanabi_p2p.session.table import AUDITED

COMPLETE_TOPIC = cw.COMPLETE_TOPIC

Have = dict[bytes, int]


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
class Claims:
    """The signed ``complete`` of each seated player, as far as it reached us (players and
    spectators keep it; a player relays each new one to its links)."""

    ctx: PeerContext
    by_player: dict[bytes, cw.Complete] = field(default_factory=dict)
    # bodies already taken: every peer relays each word once, so most arrive several times
    # (no need to decode and verify them again to find they say nothing new)
    _taken: set[bytes] = field(default_factory=set)

    def take(self, peer_id: bytes, body: bytes) -> cw.Complete | None:
        """A ``complete`` came in on ``peer_id``'s link: the claim if it is new news of a
        seated player at this table, else None (bad bytes are a link problem)."""
        if body in self._taken:
            return None
        ctx = self.ctx
        try:
            claim = cw.decode(body)
        except HanabiError as exc:
            ctx.link_problem(peer_id, f"sent a bad 'complete': {exc}")
            return None
        if claim.table_id != ctx.session.table_id or ctx.session.seat_of(claim.signer) is None:
            return None  # not a player of this table: nothing to learn
        known = self.by_player.get(claim.signer)
        if known is not None and known.covers(claim.holds):
            return None  # nothing new (a relay loop ends here)
        self.by_player[claim.signer] = claim
        self._taken.add(body)
        return claim

    def covers(self, player: bytes, ours: Have) -> bool:
        claim = self.by_player.get(player)
        return claim is not None and claim.covers(ours)


@dataclass
class Ending:
    ctx: PeerContext
    have: Callable[[], Have]
    have_frame: Callable[[], fr.Have]
    # never waited for: players caught cheating, and those that left as they were seated
    not_waited_for: Callable[[], set[bytes]]
    # players caught cheating: what they wrote is nobody's need (see `check`)
    cheaters: Callable[[], set[bytes]]
    spectator_lacks: Callable[[Have], bool]
    finish: Callable[[fx.EndKind, str | None], None]
    claims: Claims = field(init=False)
    linger_until: float | None = None
    spectators_until: float | None = None
    # our own signed complete, and what it says we hold
    _ours: bytes | None = None
    _said: Have | None = None

    def __post_init__(self) -> None:
        self.claims = Claims(self.ctx)

    def start(self) -> None:
        ctx = self.ctx
        bound = max(ctx.timing.linger, ctx.timing.wait_timeout or 0.0)
        self.linger_until = ctx.now + bound
        self.spectators_until = ctx.now + ctx.timing.spectator_linger
        # tell everyone at once that we hold it all: peers that are done too can stop as
        # soon as they hear it, not a sync interval later
        ctx.emit(fx.Broadcast(self.have_frame()))

    def frames_for_a_new_link(self) -> list[fr.Message]:
        """What a peer that links up while we linger must hear: our word, and the others'."""
        bodies = [] if self._ours is None else [self._ours]
        bodies += [c.body for signer, c in sorted(self.claims.by_player.items())
                   if signer != self.ctx.me]
        return [fr.Message(COMPLETE_TOPIC, body) for body in bodies]

    def on_complete(self, peer_id: bytes, body: bytes) -> None:
        """A player's signed word that it holds the whole game (from it, or relayed): kept,
        and passed on to everyone once (the core then checks whether we are done)."""
        claim = self.claims.take(peer_id, body)
        if claim is not None and claim.signer != self.ctx.me:
            self.ctx.emit(fx.Broadcast(fr.Message(COMPLETE_TOPIC, claim.body)))

    def _say_complete(self, ours: Have) -> None:
        """While we linger, tell every peer (signed) what we hold, each time it grows."""
        if ours == self._said:
            return
        ctx = self.ctx
        self._said = dict(ours)
        self._ours = cw.encode(ctx.identity, ctx.session.table_id, ours)
        ctx.emit(fx.Broadcast(fr.Message(COMPLETE_TOPIC, self._ours)))

    def check(self) -> None:
        """Finish once every seated player has said (itself, signed) that it holds every
        entry we hold (our seed above all, so nobody is left unable to audit), or when the
        linger time is up."""
        if self.linger_until is None:
            return
        ctx = self.ctx
        skip = {ctx.me, *self.not_waited_for()}
        ours = self.have()
        self._say_complete(ours)
        # A cheater's entries are nobody's need: an honest player that left holding all but
        # what the cheater went on writing afterwards (to us alone) left nothing behind, and
        # waiting for its word on them would keep us until the wait timeout.
        cheaters = self.cheaters()
        needed = {author: n for author, n in ours.items() if author not in cheaters}
        # (their signed word, not their HAVE: we relay every word before we leave, so the
        # peers we leave behind learn it too, even those whose own link to them is cut)
        behind = [s.peer_id for s in ctx.session.seats
                  if s.peer_id not in skip and not self.claims.covers(s.peer_id, needed)]
        if ctx.now < self.linger_until and behind:
            return
        if (self.spectators_until is not None and ctx.now < self.spectators_until
                and self.spectator_lacks(ours)):
            return
        self.finish(*end_of(ctx))
