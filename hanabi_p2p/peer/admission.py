"""Admission: whose entries a player's core keeps at all, and how fast one link may feed it.

Strangers never cost the honest table anything. Before the seating the host keeps a few
joiners with a few entries each; after it, only the seated players count. Each link has a
token bucket for its entry frames (what is over is dropped unread and fetched again later by
HAVE/WANT, so nothing is lost), and once the table is seated a link that is neither a player
nor a spectator must say which it is soon, or it is closed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from hanabi_p2p.log.entry import Entry, EntryKind
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer.context import PeerContext
from hanabi_p2p.ratelimit import TokenBuckets

# Lobby admission: joiners we keep entries of, and entries we keep of each before seating
# (an honest joiner writes one lobby.join and maybe a little chat).
MAX_LOBBY_JOINERS = 8
MAX_LOBBY_ENTRIES_PER_JOINER = 16
# Entry frames one link may feed us: a burst, then a steady rate (tokens per second).
ENTRY_BURST = 2000
ENTRY_RATE_PER_S = 500.0
# Once seated, a link of a peer that is not a player must say ``watch`` within this long.
WATCH_HELLO_S = 5.0


@dataclass
class Admission:
    ctx: PeerContext
    _entry_frames: TokenBuckets = field(
        default_factory=lambda: TokenBuckets(ENTRY_RATE_PER_S, ENTRY_BURST))
    # links of unseated peers since the seating, until they say they watch
    _guest_since: dict[bytes, float] = field(default_factory=dict)

    def take_frame(self, peer_id: bytes) -> bool:
        """Whether this link may feed us one more entry frame now."""
        if self._entry_frames.take(peer_id, self.ctx.now):
            return True
        self.ctx.counters.rate_dropped += 1
        return False

    def admits(self, entry: Entry, *, kicked: set[bytes],
               members: Callable[[], frozenset[bytes]], waiting: Callable[[], int]) -> bool:
        """Whether we keep ``entry`` at all. ``members()``: whose entries we sync;
        ``waiting()``: joiners in the host's lobby now."""
        author = entry.author
        if author in kicked:
            return False
        session = self.ctx.session
        if session.seats:
            return author in members()
        if author in (session.host_id, self.ctx.me):
            return True
        if entry.seq >= MAX_LOBBY_ENTRIES_PER_JOINER:
            return False
        if session.host_id != self.ctx.me or author in session.joins:
            return True
        # a newcomer's first entry must be its request for a seat, and there must be room
        if entry.seq != 0 or entry.entry_kind is not EntryKind.LOBBY_JOIN:
            return False
        return waiting() < MAX_LOBBY_JOINERS

    def link_up(self, peer_id: bytes) -> None:
        session = self.ctx.session
        if session.seats and session.seat_of(peer_id) is None:
            self._guest_since.setdefault(peer_id, self.ctx.now)  # must say what it is, soon

    def link_down(self, peer_id: bytes) -> None:
        self._entry_frames.forget(peer_id)
        self._guest_since.pop(peer_id, None)

    def said_it_watches(self, peer_id: bytes) -> None:
        self._guest_since.pop(peer_id, None)

    def drop_silent_guests(self) -> None:
        for peer_id, since in sorted(self._guest_since.items()):
            if self.ctx.now - since > WATCH_HELLO_S:
                del self._guest_since[peer_id]
                self.ctx.emit(fx.Disconnect(peer_id, "neither a player nor a spectator"))
