"""Replication: HAVE/WANT with every connected peer, so entries travel by every live path.

Every peer tells every other what it holds (HAVE: per author, how many entries without a
hole) each sync interval and whenever the two differ; each answers with what the other
lacks, and asks (WANT) for what it lacks itself. Entries are signed by their authors, so
relaying anyone's entries through any link is safe. In the lobby joiners know only the host,
which passes their entries on at once.

Spectators and strangers are *served* (`serve`): answered, at most every
`SPECTATOR_ANSWER_S`, and never counted in what the players hold.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from hanabi_p2p.log.entry import Entry
from hanabi_p2p.net import frames as fr
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer.context import PeerContext
from hanabi_p2p.ratelimit import TokenBuckets

# Entries sent in answer to one HAVE/WANT; the rest follow on the next round.
MAX_ENTRIES_PER_ANSWER = 256
# Answers to a peer's HAVE with our own HAVE, at most this often (no ping-pong).
HAVE_ECHO_S = 0.2
# Every seated peer is linked to every other, so an entry applied this recently, while the
# link to a peer was up, is still on its way to that peer from its author: a HAVE that lacks
# it is not answered with it, nor is it asked for from a peer that claims it. Each entry then
# crosses each link once instead of two or three times; one that is really lost goes with
# the first HAVE after this long (a sync interval later at most).
IN_FLIGHT_S = 0.5
# An entry we sent a peer on its current link reaches it: the link is ordered and reliable
# (SPEC §4.3: TCP, and AEAD counters that close it on any loss), so a HAVE on that link that
# lacks it was written before the peer read it. Such an entry is not sent again in answer
# to a HAVE on that link for this long: a spectator running behind (its HAVE stale by a
# second or more, bench/meetup.py) was sent again each entry it had still to read. A link
# that dropped and came back is a new link, and a WANT is answered in full; what the peer
# dropped itself (a link over its rate, more held than it may keep) comes from the other
# players at once, and from us after this long.
SENT_ON_LINK_S = 5.0
# A link we serve as a spectator (not a player) is answered at most this often, so a
# spectator's HAVE/WANT cannot make us send the log over and over.
SPECTATOR_ANSWER_S = 0.2
# HAVE and WANT frames one link may feed us, players too: a burst, then a steady rate. An
# honest peer sends a HAVE every sync interval and answers ours at most every HAVE_ECHO_S;
# what is over is dropped unread (it asks again at its next round), so a peer that floods
# costs us a bounded amount of work (SPEC §4.6).
SYNC_FRAME_BURST = 20
SYNC_FRAME_RATE_PER_S = 10.0
# Entries we send one link in answer to its HAVE and WANT: a burst, then a steady rate (a
# resumed player catching up on a long game still gets it in a few seconds).
ANSWER_BURST = 1024
ANSWER_RATE_PER_S = 512.0

_LONG_AGO = -1e9


@dataclass
class Replication:
    ctx: PeerContext
    # whose entries we keep and sync (the core's `members`)
    members: Callable[[], frozenset[bytes]]
    _last_have_sent: float = 0.0
    _have_sent_to: bytes | None = None  # (a spectator's periodic HAVE: see `tick_in_turn`)
    _have_echo_at: dict[bytes, float] = field(default_factory=dict)
    # author -> when we last applied one of its entries
    _applied_from: dict[bytes, float] = field(default_factory=dict)
    # entry hash -> when we made or first received it
    _got_at: dict[bytes, float] = field(default_factory=dict)
    _served_at: dict[bytes, float] = field(default_factory=dict)
    # peer -> entry hash -> when we sent it on the peer's current link (oldest first)
    _sent_on: dict[bytes, dict[bytes, float]] = field(default_factory=dict)
    _sync_frames: TokenBuckets = field(
        default_factory=lambda: TokenBuckets(SYNC_FRAME_RATE_PER_S, SYNC_FRAME_BURST))
    _answers: TokenBuckets = field(
        default_factory=lambda: TokenBuckets(ANSWER_RATE_PER_S, ANSWER_BURST))

    def __post_init__(self) -> None:
        self._last_have_sent = self.ctx.now

    # -- what we hold and lack ---------------------------------------------------------------

    def have(self) -> dict[bytes, int]:
        members = self.members()
        ctx = self.ctx
        have = {a: n for a, n in ctx.replica.have().items() if a in members}
        if len(have) > fr.MAX_AUTHORS:  # only a hostile host can make a joiner hold this many
            keep = sorted(have, key=lambda a: (a not in (ctx.me, ctx.session.host_id), a))
            have = {a: have[a] for a in keep[: fr.MAX_AUTHORS]}
        return have

    def have_frame(self) -> fr.Have:
        """Our HAVE: what we hold of each author, and the hash of our entry just before."""
        have = self.have()
        replica = self.ctx.replica
        heads = {}
        for author, n in have.items():
            entry = replica.get(author, n - 1) if n else None
            if entry is not None:
                heads[author] = entry.hash
        return fr.Have(have, heads)

    def wants(self) -> dict[bytes, int]:
        members = self.members()
        replica = self.ctx.replica
        wants = {a: replica.next_seq(a) for a in self.have()}
        for author, start in replica.gap_starts().items():
            if author in members:
                wants[author] = min(wants.get(author, start), start)
        return wants

    # -- what happens to entries -------------------------------------------------------------

    def got(self, entry: Entry) -> None:
        """We made ``entry``, or it came in for the first time."""
        self._got_at.setdefault(entry.hash, self.ctx.now)

    def made(self, entry: Entry) -> None:
        self._got_at[entry.hash] = self.ctx.now

    def applied(self, entry: Entry) -> None:
        self._applied_from[entry.author] = self.ctx.now

    def broadcast(self, entry: Entry) -> None:
        """Send one of our own entries, as we made it, to every linked peer; each link now
        carries it (`SENT_ON_LINK_S`)."""
        self.ctx.emit(fx.Broadcast(fr.Entry(entry.encoded)))
        for peer_id in self.ctx.connected:
            self._sent(peer_id, entry)

    def _sent(self, peer_id: bytes, entry: Entry) -> None:
        sent_on = self._sent_on.setdefault(peer_id, {})
        sent_on.pop(entry.hash, None)  # (moved to the end: the oldest stay first)
        sent_on[entry.hash] = self.ctx.now

    def _sent_on_link(self, peer_id: bytes, entry: Entry) -> bool:
        """Whether we sent ``entry`` on the peer's current link lately (`SENT_ON_LINK_S`)."""
        at = self._sent_on.get(peer_id, {}).get(entry.hash, _LONG_AGO)
        ctx = self.ctx
        return at >= ctx.up_at.get(peer_id, ctx.now) and ctx.now - at < SENT_ON_LINK_S

    def _forget_old_sends(self) -> None:
        now = self.ctx.now
        for sent_on in self._sent_on.values():
            while sent_on:
                entry_hash, at = next(iter(sent_on.items()))
                if now - at < SENT_ON_LINK_S:
                    break
                del sent_on[entry_hash]

    def relay(self, entry: Entry, frame: fr.Entry, source: bytes | None) -> None:
        """In the lobby joiners know only the host: the host passes their entries on at once.
        Once seated, every peer is linked to every other, and whatever one of them misses
        (a link down, a relay that cuts it) it gets from anyone by HAVE/WANT within a sync
        interval."""
        session = self.ctx.session
        if session.seats or session.host_id != self.ctx.me:
            return
        for peer_id in sorted(self.ctx.connected - {source, entry.author}):
            self.ctx.send(peer_id, frame)
            self._sent(peer_id, entry)

    def ask_for_gaps(self, peer_id: bytes) -> None:
        """An entry came in out of order: ask its sender for what lies before it."""
        if self.ctx.replica.has_gaps():
            wants = self.wants()
            if wants:
                self.ctx.send(peer_id, fr.Want(wants))

    # -- HAVE and WANT -----------------------------------------------------------------------

    def takes_sync_frame(self, peer_id: bytes) -> bool:
        """Whether this link may feed us one more HAVE or WANT now."""
        if self._sync_frames.take(peer_id, self.ctx.now):
            return True
        self.ctx.counters.rate_dropped += 1
        return False

    def tick(self, served: Callable[[bytes], bool] = lambda _peer_id: False) -> None:
        """Every sync interval, tell every peer we sync with what we hold. Not the peers we
        only serve (``served``: spectators, strangers): each sends its own HAVE every
        interval, answered with what it lacks, so ours would only make it echo its HAVE
        and ask again for entries already on their way (eight spectators: some 16 frames a
        second more for each player to read and answer)."""
        ctx = self.ctx
        self._forget_old_sends()
        if self._have_due():
            have = self.have_frame()
            for peer_id in sorted(ctx.connected):
                if not served(peer_id):
                    ctx.emit(fx.Send(peer_id, have))

    def tick_in_turn(self) -> None:
        """A spectator's tick: every sync interval, our HAVE to one linked peer, each in
        turn (SPEC §4.8). Each player sends a spectator its own entries as it writes them,
        and any one of them answers a HAVE with what we lack of everyone's, so a HAVE to
        each player every interval only made each read, open and answer it (eight
        spectators: 8 frames a second more for every player), and a spectator running behind
        was answered by each with copies of entries still on their way to it (in a meetup
        game, bench/meetup.py, a quarter of the entries the spectators received)."""
        ctx = self.ctx
        self._forget_old_sends()
        if not ctx.connected or not self._have_due():
            return
        peers = sorted(ctx.connected)
        last = self._have_sent_to
        to = next((p for p in peers if last is None or p > last), peers[0])
        self._have_sent_to = to
        ctx.emit(fx.Send(to, self.have_frame()))

    def _have_due(self) -> bool:
        """Whether our periodic HAVE is due (once a sync interval); if so, it counts as sent."""
        ctx = self.ctx
        if ctx.now - self._last_have_sent < ctx.timing.sync_interval:
            return False
        self._last_have_sent = ctx.now
        return True

    def on_have(self, peer_id: bytes, theirs: dict[bytes, int],
                heads: Mapping[bytes, bytes]) -> None:
        """A peer we sync with (a player, or a joiner and its host) says what it holds."""
        ctx = self.ctx
        self._compare_heads(peer_id, theirs, heads)
        session = ctx.session
        if session.seats or session.host_id == ctx.me or peer_id != session.host_id:
            # (a joiner in the lobby takes the host's word for who is there)
            members = self.members()
            theirs = {a: n for a, n in theirs.items() if a in members}
        ctx.sync.on_have(peer_id, theirs, ctx.now)
        self.answer(peer_id, theirs, in_flight_too=False)
        ours = self.have()
        ctx.sync.update_missing(ours, ctx.now)
        # tell a peer that differs what we hold, so both sides converge quickly (rate
        # limited: a peer holding entries we refuse must not start a ping-pong)
        if theirs != ours and ctx.now - self._have_echo_at.get(peer_id, _LONG_AGO) > HAVE_ECHO_S:
            self._have_echo_at[peer_id] = ctx.now
            ctx.send(peer_id, self.have_frame())
        if any(n > ctx.replica.next_seq(a) and not self._on_its_way(a)
               for a, n in theirs.items()):
            wants = self.wants()
            if wants:
                ctx.send(peer_id, fr.Want(wants))

    def _compare_heads(self, peer_id: bytes, theirs: Mapping[bytes, int],
                       heads: Mapping[bytes, bytes]) -> None:
        """A peer whose entry under some author's number is not ours holds the other side
        of a fork: ask it for that entry, which proves the fork (two entries, one number,
        both signed by the author) as soon as it arrives (SPEC §4.6, forks)."""
        replica = self.ctx.replica
        forks = {}
        for author, head in heads.items():
            n = theirs.get(author, 0)
            mine = replica.get(author, n - 1) if n else None
            if (mine is not None and mine.hash != head
                    and author not in replica.equivocators):
                forks[author] = n - 1
        if forks:
            self.ctx.send(peer_id, fr.Want(forks))

    def answer(self, peer_id: bytes, their_next: dict[bytes, int], *,
               in_flight_too: bool = True) -> None:
        """Send the peer the entries it lacks: all of them when it asked (WANT); in answer
        to a HAVE, not those still on their way to it (`IN_FLIGHT_S`), nor those we sent
        it on this link lately (`SENT_ON_LINK_S`)."""
        ctx = self.ctx
        budget = self._answers.of(peer_id, ctx.now)
        limit = min(MAX_ENTRIES_PER_ANSWER, budget.available(ctx.now))
        if limit <= 0:
            return  # the rest at its next round
        members = self.members()
        # authors the peer did not name: it holds none of theirs yet
        wanted = {a: their_next.get(a, 0) for a in members}
        up_at = ctx.up_at.get(peer_id, ctx.now)
        sent = 0
        for entry in ctx.replica.missing(wanted, limit=limit):
            if entry.author not in members:
                continue
            if not in_flight_too:
                at = self._got_at.get(entry.hash, _LONG_AGO)
                if at >= up_at and ctx.now - at < IN_FLIGHT_S:
                    continue  # (an author's later entries came later still)
                if self._sent_on_link(peer_id, entry):
                    continue
            ctx.send(peer_id, fr.Entry(entry.encoded))
            self._sent(peer_id, entry)
            sent += 1
        budget.spend(sent)

    def serve(self, peer_id: bytes, their_next: dict[bytes, int], *, asked: bool) -> None:
        """A spectator or a stranger tells what it holds (HAVE) or ``asked`` for entries
        (WANT): answered at most so often. A HAVE, as a player's, without the entries still
        on their way to it (`IN_FLIGHT_S`): a spectator links to every player, and each
        sends it its own entries, so the copies a HAVE would fetch from the other players
        too came twice or three times (each a seal and a write here, and a decode there)."""
        if self.ctx.now - self._served_at.get(peer_id, _LONG_AGO) < SPECTATOR_ANSWER_S:
            return  # it asks again at its next sync round
        self._served_at[peer_id] = self.ctx.now
        self.answer(peer_id, their_next, in_flight_too=asked)

    def _on_its_way(self, author: bytes) -> bool:
        """Some peer holds entries of ``author`` we lack, but the author is linked to us and
        its entries are still coming in (or we learnt of them only just): what we lack is
        behind them on the same link, no need to ask anyone for it."""
        ctx = self.ctx
        if author not in ctx.connected:
            return False
        since = ctx.sync.missing_since(author)
        latest = max(since if since is not None else _LONG_AGO,
                     self._applied_from.get(author, _LONG_AGO))
        return ctx.now - latest < IN_FLIGHT_S

    # -- links -------------------------------------------------------------------------------

    def link_down(self, peer_id: bytes, *, seated: bool) -> None:
        self._served_at.pop(peer_id, None)
        self._sent_on.pop(peer_id, None)  # (a new link starts with nothing sent on it)
        self._sync_frames.forget(peer_id)
        self._answers.forget(peer_id)
        if not seated:  # a stranger (or a joiner before seating) leaves nothing behind
            self._have_echo_at.pop(peer_id, None)
            self.ctx.sync.forget(peer_id)

    def reset_clocks(self) -> None:
        """We were suspended: nothing we timed before means anything."""
        self.ctx.sync.reset_clocks(self.ctx.now)
