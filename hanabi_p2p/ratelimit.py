"""Two small rate limiters, pure (the caller passes the time): one definition each.

* ``TokenBucket``: a burst, then a steady rate (the peer core's limit on what one link
  may feed it), and ``TokenBuckets``, one per link;
* ``SlidingWindow``: at most N events in any window of W seconds (our own table talk, and
  how much of one player's table talk a screen shows).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field


@dataclass
class TokenBucket:
    rate: float  # tokens per second
    burst: float
    tokens: float
    at: float

    @classmethod
    def full(cls, rate: float, burst: float, now: float) -> TokenBucket:
        return cls(rate, burst, burst, now)

    def available(self, now: float) -> int:
        """Whole tokens there are now (refilled for the time passed)."""
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        return int(self.tokens)

    def spend(self, count: int) -> None:
        """Spend ``count`` tokens counted by `available` just before."""
        self.tokens -= count

    def take(self, now: float) -> bool:
        """Spend one token if there is one."""
        if self.available(now) < 1:
            return False
        self.spend(1)
        return True

    def until_next(self, now: float) -> float:
        """Seconds from `now` until one whole token is there (0: one is there now)."""
        self.available(now)
        return max(0.0, (1.0 - self.tokens) / self.rate) if self.rate > 0 else float("inf")


@dataclass
class TokenBuckets:
    """One `TokenBucket` per key (a link), made full when the key is first seen."""

    rate: float
    burst: float
    _buckets: dict[bytes, TokenBucket] = field(default_factory=dict)

    def of(self, key: bytes, now: float) -> TokenBucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket.full(self.rate, self.burst, now)
        return bucket

    def take(self, key: bytes, now: float) -> bool:
        """Spend one of ``key``'s tokens if it has one."""
        return self.of(key, now).take(now)

    def forget(self, key: bytes) -> None:
        self._buckets.pop(key, None)


@dataclass
class SlidingWindow:
    limit: int
    window: float
    _times: deque[float] = field(default_factory=deque)

    def allows(self, now: float) -> bool:
        """Whether one more event fits now (nothing is recorded)."""
        while self._times and now - self._times[0] > self.window:
            self._times.popleft()
        return len(self._times) < self.limit

    def record(self, now: float) -> None:
        self._times.append(now)

    def admit(self, now: float) -> bool:
        """Record one event if it fits; whether it did."""
        if not self.allows(now):
            return False
        self.record(now)
        return True
