"""What every peer holds, as its HAVE frames tell us (pure bookkeeping for the peer core).

Peers exchange HAVE (per author: how many entries they store without a hole) every sync
interval and whenever they differ. From those we learn three things:

* who is behind us (``behind``): they get our entries, whatever the author (relaying through
  any live path is safe: entries are signed by their authors);
* whose entries we are missing although someone holds them (``stalled_authors``): if that
  lasts, the entries are not reaching us, and a player we are waiting for is not merely
  thinking;
* who is still talking at all (``PeerHave.at``, when its last HAVE came): a live peer sends
  HAVE every interval, even while its player thinks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


@dataclass
class PeerHave:
    seqs: dict[bytes, int]
    at: float


@dataclass
class SyncTracker:
    peers: dict[bytes, PeerHave] = field(default_factory=dict)
    # author -> when we first saw a peer claim more of its entries than we hold
    _missing_since: dict[bytes, float] = field(default_factory=dict)

    def on_have(self, peer_id: bytes, seqs: Mapping[bytes, int], now: float) -> None:
        self.peers[peer_id] = PeerHave(dict(seqs), now)

    def forget(self, peer_id: bytes) -> None:
        self.peers.pop(peer_id, None)

    def lacks(self, peer_id: bytes, ours: Mapping[bytes, int]) -> bool:
        """True if ``peer_id`` (as far as we know) lacks some entry we hold."""
        theirs = self.peers.get(peer_id)
        if theirs is None:
            return True
        return any(theirs.seqs.get(author, 0) < n for author, n in ours.items())

    def behind(self, peer_ids: Iterable[bytes], ours: Mapping[bytes, int]) -> list[bytes]:
        return sorted(p for p in peer_ids if self.lacks(p, ours))

    def update_missing(self, ours: Mapping[bytes, int], now: float) -> None:
        """Note which authors someone holds more of than we do (and since when)."""
        claimed: dict[bytes, int] = {}
        for have in self.peers.values():
            for author, n in have.seqs.items():
                if n > claimed.get(author, 0):
                    claimed[author] = n
        missing = {a for a, n in claimed.items() if n > ours.get(a, 0)}
        for author in list(self._missing_since):
            if author not in missing:
                del self._missing_since[author]
        for author in missing:
            self._missing_since.setdefault(author, now)

    def stalled_authors(self, now: float, after: float) -> set[bytes]:
        """Authors whose entries someone else holds and we have lacked for ``after`` s."""
        return {a for a, since in self._missing_since.items() if now - since >= after}

    def missing_since(self, author: bytes) -> float | None:
        return self._missing_since.get(author)

    def reset_clocks(self, now: float) -> None:
        """After we were suspended, nothing we timed before means anything: start over."""
        for have in self.peers.values():
            have.at = now
        for author in self._missing_since:
            self._missing_since[author] = now
