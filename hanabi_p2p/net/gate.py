"""What strangers may cost a mesh, decided without any I/O (the mesh applies the choices).

* Unfinished handshakes: when a slot is needed, the one dropped is an *idle* connection (its
  handshake has not moved on for a while: silent, or stalled after its HELLO) before a
  working one, and of those the one that moved on the longest ago of the source address
  holding the most: 400 stalled connections from 100 addresses never push out a joiner
  whose handshake is under way (`handshake_to_drop`).
* Links of peers that are not seated, in the lobby: at most so many per address and in all;
  past either, the link idle the longest is closed (`link_to_close`).
* Caps are kept well under the open-file limit read at start (`FdShares`).
* A source address that sent a wrong table code waits, for a time that doubles with each
  wrong code in a row (`SourceCodeGuard`); more addresses cannot flush the back-off of
  those that guessed.
* A wrong table code from any address counts towards one table-wide streak too: past a few,
  strangers are refused for a time that doubles with each (`TableCodeGuard`), so guessing
  from many addresses is as slow as from one; when the wait ends, addresses that never
  guessed wrong go first, so a joiner who waited as told gets its turn.
* Every link's reading has a budget of frames (`ReadBudget`): a burst, then a steady rate;
  the frame over it is dropped and counted, a guest's link is not read again until its
  budget allows (TCP then holds the sender back), and a link over budget for long is closed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from hanabi_p2p.ratelimit import TokenBucket

# Of the open-file limit, the share the mesh's own caps may use in all: the rest is for the
# program's files, the mDNS sockets and asyncio's own descriptors.
FD_SHARE = 4
# Never fewer than these, even under a tiny open-file limit (a table must still work).
MIN_PENDING = 4
MIN_LOBBY_LINKS = 8


@dataclass(frozen=True, slots=True)
class Slot:
    """One connection or link as the choices see it."""

    source: str  # the other end's IP address
    working: bool  # a handshake that moved on lately; a link that sent a frame lately
    since: float  # when its handshake last moved on, or its link last sent a frame


@dataclass(slots=True)
class HandshakeProgress:
    """When an unfinished handshake last moved on, as far as the choices have looked: its
    state is compared each time they look (a connection is seen at work while it is new or
    its state changes, so the time is that of the look that saw it move)."""

    source: str
    moved_at: float  # its arrival, until a look sees its state change
    seen: object = None  # its state at the last look (None: no handshake yet)

    def slot(self, now: float, state: object, stall: float) -> Slot:
        """Working while it is new or its handshake moves on; idle once it has not moved
        for `stall` seconds (silent from the start, or silent after its HELLO), and ranked
        by when it last moved, so that a stranger's stalled connections go before a
        joiner's, whose handshake moves every few milliseconds."""
        if state != self.seen:
            self.seen, self.moved_at = state, now
        return Slot(self.source, now - self.moved_at < stall, self.moved_at)


def doubling_wait(k: int, initial: float, cap: float) -> float:
    """The `k`-th wait of a series that doubles (`initial`, 2·`initial`, ...), at most
    `cap` (2**32 doublings are past any cap: no huge floats)."""
    return float(min(initial * 2.0 ** min(max(k - 1, 0), 32), cap))


def handshake_to_drop(pending: Sequence[Slot], source: str, per_source: int,
                      total: int) -> list[int]:
    """Indexes into `pending` (oldest first) to drop so that one more handshake from
    `source` fits both caps."""
    drop: list[int] = []
    mine = [i for i, slot in enumerate(pending) if slot.source == source]
    if len(mine) >= per_source:
        drop.append(_first_idle(pending, mine))
    if len(pending) - len(drop) >= total:
        left = [i for i in range(len(pending)) if i not in drop]
        drop.append(_fairest_victim(pending, left))
    return drop


def _first_idle(slots: Sequence[Slot], among: list[int]) -> int:
    idle = [i for i in among if not slots[i].working]
    return min(idle or among, key=lambda i: slots[i].since)


def _fairest_victim(slots: Sequence[Slot], among: list[int]) -> int:
    """Idle before working; then from the source holding the most; then the oldest."""
    idle = [i for i in among if not slots[i].working]
    pool = idle or among
    held: dict[str, int] = {}
    for i in pool:
        held[slots[i].source] = held.get(slots[i].source, 0) + 1
    return min(pool, key=lambda i: (-held[slots[i].source], slots[i].since))


def link_to_close(links: Sequence[Slot], per_source: int, total: int) -> int | None:
    """Of the lobby's guest links (the newest last), the one to close so that both caps
    hold, or None: at a source over its cap, the one of that source idle the longest; else
    the one idle the longest of the source holding the most."""
    counts: dict[str, int] = {}
    for slot in links:
        counts[slot.source] = counts.get(slot.source, 0) + 1
    crowded = [i for i, slot in enumerate(links) if counts[slot.source] > per_source]
    if crowded:
        return min(crowded, key=lambda i: links[i].since)
    if len(links) > total:
        return min(range(len(links)), key=lambda i: (-counts[links[i].source], links[i].since))
    return None


@dataclass(frozen=True, slots=True)
class FdShares:
    """Caps that fit the open-file limit (`resource.getrlimit(RLIMIT_NOFILE)`'s soft limit,
    None where the system has none to say)."""

    pending: int
    lobby_links: int
    lobby_links_per_source: int

    @classmethod
    def of(cls, open_files: int | None, pending: int, lobby_links: int,
           per_source: int) -> FdShares:
        if open_files is None or open_files <= 0:
            return cls(pending, lobby_links, per_source)
        budget = open_files // FD_SHARE
        links = max(MIN_LOBBY_LINKS, min(lobby_links, budget * 2 // 3))
        waiting = max(MIN_PENDING, min(pending, budget - links))
        return cls(waiting, links, min(per_source, links))


# ---------------------------------------------------------------------------- table code


@dataclass(slots=True)
class SourceCodeGuard:
    """Wrong table codes per source address. A source waits `initial` seconds after a
    wrong code, doubling with each further one in a row (at most `cap`); a right code ends
    its wait. At most `max_sources` are remembered, the oldest forgotten first, but never
    one still waiting: more addresses cannot flush the back-off of those that guessed (when
    all are waiting, the newest is not kept; the table-wide wait bounds the guesses of
    those)."""

    initial: float
    cap: float
    max_sources: int
    attempts: int = 0  # wrong codes received, from any source
    by_source: dict[str, int] = field(default_factory=dict)  # (the most recent sources)
    _streak: dict[str, int] = field(default_factory=dict)  # wrong codes in a row
    _refused_until: dict[str, float] = field(default_factory=dict)

    def wrong_code(self, source: str, now: float) -> None:
        self.attempts += 1
        streak = self._streak.pop(source, 0) + 1
        count = self.by_source.pop(source, 0) + 1
        # Re-inserted, so the most recent sources are last and the oldest are forgotten first.
        self._streak[source] = streak
        self.by_source[source] = count
        self._refused_until.pop(source, None)
        self._refused_until[source] = now + doubling_wait(streak, self.initial, self.cap)
        for table in (self._streak, self.by_source, self._refused_until):
            while len(table) > self.max_sources:
                gone = next((s for s in table if self._refused_until.get(s, 0.0) <= now),
                            source)
                del table[gone]
                if gone == source:
                    break

    def right_code(self, source: str) -> None:
        """`source` knows the code: no more waiting (its count stays on record)."""
        self._streak.pop(source, None)
        self._refused_until.pop(source, None)

    def wait_left(self, source: str, now: float) -> float:
        """Seconds `source` must still wait after its last wrong code (0 if none)."""
        until = self._refused_until.get(source)
        return 0.0 if until is None else max(0.0, until - now)


@dataclass(slots=True)
class TableCodeGuard:
    """Wrong table codes from every address together. The first `free` in a row cost
    nothing more (typos of several friends); each further one makes every stranger wait,
    for a time that doubles (`initial`, 2·`initial`, ... at most `cap` seconds). A right
    code ends the streak.

    When a wait ends, the first `grace` seconds belong to addresses with no wrong code on
    record: an honest joiner who waited as told comes back then and is not beaten to the
    next try by guessers hammering the table (each of their addresses is on record after its
    first wrong code, so more addresses buy a guesser one try each, no more)."""

    free: int
    initial: float
    cap: float
    grace: float = 0.0
    streak: int = 0
    refused_until: float = 0.0

    def wrong_code(self, now: float) -> float:
        """Count one wrong code at `now`; the table-wide wait it starts (0: none)."""
        self.streak += 1
        over = self.streak - self.free
        if over <= 0:
            return 0.0
        wait = doubling_wait(over, self.initial, self.cap)
        self.refused_until = max(self.refused_until, now + wait)
        return wait

    def right_code(self) -> None:
        self.streak = 0
        self.refused_until = 0.0

    def wait_left(self, now: float) -> float:
        return max(0.0, self.refused_until - now)

    def wait_for(self, now: float, on_record: bool) -> float:
        """Seconds a stranger must still wait; `on_record`: its address sent a wrong code
        before (it then waits out the grace too)."""
        left = self.wait_left(now)
        if left > 0 or not on_record or self.refused_until == 0.0:
            return left
        return max(0.0, self.refused_until + self.grace - now)


# ---------------------------------------------------------------------------- reading


@dataclass(frozen=True, slots=True)
class BudgetRule:
    """Frames a link may feed: `burst`, then `rate` a second; a link that keeps going past
    it for `close_after` seconds is closed."""

    rate: float
    burst: float
    close_after: float


class ReadBudget:
    """One link's budget of frames (all kinds)."""

    def __init__(self, rule: BudgetRule, now: float) -> None:
        self.rule = rule
        self._bucket = TokenBucket.full(rule.rate, rule.burst, now)
        self.dropped = 0
        self._over_since: float | None = None  # when the current run of drops began
        self._last_drop = 0.0

    def take(self, now: float) -> bool:
        """Whether a frame arriving at `now` may be read on (else: dropped, counted)."""
        if self._bucket.take(now):
            # A second inside the budget ends a run of drops.
            if self._over_since is not None and now - self._last_drop >= 1.0:
                self._over_since = None
            return True
        self.dropped += 1
        self._last_drop = now
        if self._over_since is None:
            self._over_since = now
        return False

    def pause(self, now: float) -> float:
        """How long to stop reading the link after a drop at `now`: until its next frame
        fits the budget. Not reading is what makes a flood cheap for us: the socket's buffers
        fill and TCP itself holds the sender back, instead of our decrypting and decoding every
        frame only to drop it."""
        return self._bucket.until_next(now)

    def over_for_long(self, now: float) -> bool:
        """Over budget, with hardly a pause, for `close_after` seconds."""
        return (self._over_since is not None and now - self._last_drop < 1.0
                and now - self._over_since >= self.rule.close_after)
