"""The replication state machine: entries in (any order, any number of times), applied out.

Sans-IO and deterministic. The replica knows nothing about Hanabi: it keeps each author's
hash chain, holds entries that cannot apply yet, detects equivocation, and hands entries to
an ``App`` (the session layer) in chain order when the app says they are ready.

Per entry, ``add`` decides (protocol/SPEC.md 3.6 has the normative list):

1. remembered as bad before            -> REJECTED (same error again)
2. wrong table id                       -> REJECTED
3. same (author, seq) stored:
   same bytes -> DUPLICATE; different bytes -> REJECTED + Equivocation proof, author flagged
4. author flagged as equivocator        -> REJECTED
5. app restricts authors, not one       -> IGNORED (outside the game: nobody's fault)
6. seq too far ahead                    -> REJECTED (transient: may be sent again later)
7. seq beyond the author's next         -> HELD (a gap, see ``gaps()``)
8. seq is the author's next:
   prev != hash of author's previous    -> REJECTED
   app.ready(entry) -> apply (app raising HanabiError -> REJECTED), else HELD
Holding is bounded per author and in bytes; over budget -> REJECTED (transient). A replica
made with ``bounded=False`` (the log verifier's) has neither these bounds nor step 6: it
holds at most the entries it was given, which its caller holds in memory already, so a
limit there could only turn a valid game into a fault (SPEC 3.6, 5.5).

After every successful apply, held entries are retried until nothing more applies. The
candidates are the held entries that are next in their author's chain, tried in the app's
``order_key`` order (a function of each entry's content; default (turn, author, seq)), so
the outcome depends only on the app state. ``add_batch`` stores a whole set first and then
applies in that order alone: a verifier's outcome is then a function of the set of entries.

Held entries are indexed per author as maximal runs of consecutive seqs, kept up to date
on every hold and release: holding, releasing, ``have`` and finding the next candidates cost
the same however many entries are held (``index_steps`` counts the work, for tests and
bench/replica_index.py), and ``gaps`` costs one step per gap it returns. ``missing`` finds
what a peer lacks from where each author's applied entries stand in ``applied``: its cost is
what it returns, not the length of the game (a spectator's HAVE, answered every second by
every player it reaches, once walked the whole log).

Contract for ``App``: ``ready`` and ``allowed_authors`` are pure functions of app state;
``apply`` raises ``HanabiError`` without changing anything to reject; and two entries that
can be ready at the same time must commute (e.g. table talk kept in a canonical order).
Then every peer holding the same entries reaches the same app state, whatever the order
and duplication of delivery (tests/log/test_log_replica_properties.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from hanabi_p2p.errors import HanabiError, LocalProtocolError, RemoteProtocolError
from hanabi_p2p.identity import fingerprint
from hanabi_p2p.log.entry import ZERO_HASH, BadEntry, Entry, decode_entry
from hanabi_p2p.log.equivocation import Equivocation

# Bounds on what a hostile peer can make us keep in memory.
MAX_AHEAD = 1024  # an entry more than this many seqs past the author's next is refused
MAX_HELD_PER_AUTHOR = 512
MAX_HELD_BYTES = 16 * 1024 * 1024
MAX_REMEMBERED_BAD = 1024  # rejected entries kept as evidence / for quick re-rejection
MAX_PROOFS_PER_AUTHOR = 4


class App(Protocol):
    """What the replica drives; the session layer implements it.

    Optionally the app may also define ``allowed_authors() -> frozenset[bytes] | None``
    (see ``SeatedApp``): the seated peer_ids once seating is done, None while anyone may
    write (the lobby). Entries from other authors are then rejected, held ones dropped.
    """

    def ready(self, entry: Entry) -> bool:
        """Can ``entry`` be applied to the current state (e.g. is it for the current turn)?"""
        ...

    def apply(self, entry: Entry) -> None:
        """Apply ``entry``, or raise HanabiError (changing nothing) to reject it."""
        ...


class SeatedApp(App, Protocol):
    def allowed_authors(self) -> frozenset[bytes] | None: ...


class OrderedApp(App, Protocol):
    def order_key(self, entry: Entry) -> Any:
        """The retry order of held entries; MUST depend on the entry's content alone."""
        ...


class Status(StrEnum):
    ACCEPTED = "accepted"  # applied now (see AddResult.applied for any cascade)
    HELD = "held"  # valid so far, waiting for earlier entries or app readiness
    DUPLICATE = "duplicate"  # already stored; nothing changed
    REJECTED = "rejected"  # see reason/error; nothing changed
    # from an author outside the game (not seated once seating is fixed): dropped, nothing
    # changed, nobody's fault, not remembered
    IGNORED = "ignored"


def game_refusal(exc: HanabiError, entry: Entry) -> str:
    """Why the game refused ``entry``. The session's error names the peer at fault first
    ("peer NAME (FINGERPRINT): ..."); when that is the entry's author, the name is left
    out, since every place that shows the reason names the author already."""
    reason = str(exc)
    if (isinstance(exc, RemoteProtocolError)
            and exc.peer.endswith(f"({fingerprint(entry.author)})")):
        reason = exc.reason
    return f"refused by the game: {reason}"


@dataclass(frozen=True, slots=True)
class AddResult:
    status: Status
    reason: str = ""
    error: BadEntry | None = None
    # Every entry applied because of this add, in application order (the added entry and
    # any held entries it unblocked). The session persists and displays these.
    applied: tuple[Entry, ...] = ()
    # Held entries rejected while retrying (bad chain link, app refused, author unseated).
    dropped: tuple[BadEntry, ...] = ()
    equivocation: Equivocation | None = None
    # REJECTED for good (bad chain link, refused by the game, unseated author): the entry is
    # a fault of its author. False for refusals that may pass later or elsewhere (wrong table,
    # too far ahead, hold budget): those must never be blamed on the author.
    permanent: bool = False


@dataclass(frozen=True, slots=True)
class Gap:
    """The author's entries ``start <= seq < stop`` are missing while later ones are held."""

    author: bytes
    start: int
    stop: int


@dataclass(frozen=True, slots=True)
class Rejection:
    entry: Entry
    error: BadEntry


def _canonical_key(entry: Entry) -> tuple[int, bytes, int]:
    return (entry.turn, entry.author, entry.seq)


def _first_wanted(peer_have: Mapping[bytes, int], author: bytes) -> int:
    """The first of ``author``'s seqs a peer that holds ``peer_have`` lacks (all of them
    when it names none, or names something that is not a number)."""
    wanted_from = peer_have.get(author, 0)
    return max(wanted_from, 0) if isinstance(wanted_from, int) else 0


class _Runs:
    """One author's held seqs as maximal runs ``[start, end)`` of consecutive numbers.

    Holding a seq merges it with the runs ending at it and starting after it; releasing the
    first seq of a run shortens it; both are a few dictionary operations whatever the number
    of seqs held. A seq inside a run is released by splitting it (rare: only bulk drops).
    """

    __slots__ = ("by_end", "by_start", "entries")

    def __init__(self) -> None:
        self.by_start: dict[int, int] = {}  # start -> end (exclusive)
        self.by_end: dict[int, int] = {}  # end -> start
        self.entries: dict[int, Entry] = {}

    def add(self, entry: Entry) -> None:
        seq = entry.seq
        self.entries[seq] = entry
        start, end = seq, seq + 1
        if seq in self.by_end:  # a run [start, seq) ends right here
            start = self.by_end.pop(seq)
            del self.by_start[start]
        if seq + 1 in self.by_start:  # a run [seq + 1, end) starts right after
            end = self.by_start.pop(seq + 1)
            del self.by_end[end]
        self.by_start[start] = end
        self.by_end[end] = start

    def remove(self, seq: int) -> int:
        """Release ``seq``; returns the index steps taken (1, or the runs scanned to split)."""
        del self.entries[seq]
        steps = 1
        start = seq
        if seq not in self.by_start:
            for start in self.by_start:  # only bulk drops release a seq inside a run
                steps += 1
                if start < seq < self.by_start[start]:
                    break
        end = self.by_start.pop(start)
        del self.by_end[end]
        for lo, hi in ((start, seq), (seq + 1, end)):
            if lo < hi:
                self.by_start[lo] = hi
                self.by_end[hi] = lo
        return steps

    def run_end(self, start: int) -> int:
        """End of the run starting at ``start`` (``start`` itself when there is none)."""
        return self.by_start.get(start, start)


class Replica:
    """One table's replicated log. Feed it with ``add``/``add_raw``; read ``applied``."""

    def __init__(self, table_id: bytes, app: App, *, bounded: bool = True) -> None:
        """``bounded``: a live peer's replica, which a hostile peer can send any number of
        entries, bounds what it holds (``MAX_AHEAD``, ``MAX_HELD_PER_AUTHOR``,
        ``MAX_HELD_BYTES``: transient refusals, never a fault). False for a verifier
        holding a whole log it was given: it holds every entry of it, however many."""
        self.table_id = table_id
        self.app = app
        self._bounded = bounded
        allowed = getattr(app, "allowed_authors", None)
        self._allowed_authors: Callable[[], frozenset[bytes] | None] = (
            allowed if callable(allowed) else lambda: None
        )
        order = getattr(app, "order_key", None)
        self._order: Callable[[Entry], Any] = order if callable(order) else _canonical_key
        self.applied: list[Entry] = []
        # author -> where each of its applied entries is in `applied` (index: its seq; an
        # author's entries apply in chain order, so they are its seqs 0, 1, ...)
        self._places: dict[bytes, list[int]] = {}
        self.equivocations: list[Equivocation] = []
        self.rejections: list[Rejection] = []
        self.equivocators: set[bytes] = set()
        self._next: dict[bytes, int] = {}  # author -> seq of its next entry to apply
        self._head: dict[bytes, bytes] = {}  # author -> hash of its last applied entry
        self._stored: dict[tuple[bytes, int], Entry] = {}  # applied and held
        self._held: dict[tuple[bytes, int], Entry] = {}
        self._runs: dict[bytes, _Runs] = {}  # author -> its held seqs, as runs
        self._held_bytes = 0
        self._held_count: dict[bytes, int] = {}
        # Elementary steps of the held-entry index (run updates, candidates looked at): what
        # a test or bench counts to show the cost of an entry does not grow with those held.
        self.index_steps = 0
        self._bad: dict[bytes, BadEntry] = {}  # entry hash -> why it was rejected

    # ---- input -------------------------------------------------------------------------

    def add_raw(self, raw: bytes) -> AddResult:
        """Decode untrusted bytes and add them; a decoding failure is a REJECTED result."""
        try:
            entry = decode_entry(raw)
        except BadEntry as exc:
            return AddResult(Status.REJECTED, exc.reason, error=exc)
        return self.add(entry)

    def add(self, entry: Entry) -> AddResult:
        return self._add(entry, defer=False)

    def add_batch(self, entries: Iterable[Entry]) -> list[AddResult]:
        """Store every entry first (held), then apply what can apply, in ``order_key`` order
        alone. What ends up applied, refused and held is then a function of the set of
        entries, never of the order they are listed in (the log verifier's mode). Returns
        each entry's result (in ``order_key`` order), then one for the final application
        (its ``applied`` and ``dropped``)."""
        results = [self._add(entry, defer=True) for entry in sorted(entries, key=self._order)]
        applied, dropped = self._drain()
        return [*results, AddResult(Status.ACCEPTED, applied=applied, dropped=dropped)]

    def _add(self, entry: Entry, *, defer: bool) -> AddResult:
        if not isinstance(entry, Entry):
            raise LocalProtocolError("Replica.add takes a decoded Entry")
        known = self._bad.get(entry.hash)
        if known is not None:
            return AddResult(Status.REJECTED, known.reason, error=known, permanent=True)
        if entry.table_id != self.table_id:
            return self._refuse(entry, f"entry belongs to table {entry.table_id.hex()}")
        author, seq = entry.author, entry.seq
        existing = self._stored.get((author, seq))
        if existing is not None:
            if existing.hash == entry.hash:
                return AddResult(Status.DUPLICATE)
            return self._equivocation(existing, entry)
        if author in self.equivocators:
            return self._refuse(entry, "author has equivocated; its entries are ignored")
        allowed = self._allowed_authors()
        if allowed is not None and author not in allowed:
            return AddResult(Status.IGNORED, "author is not seated at this table")
        next_seq = self._next.get(author, 0)
        # seq < next_seq cannot reach here: applied entries stay in _stored.
        if self._bounded and seq >= next_seq + MAX_AHEAD:
            return self._refuse(entry, f"seq {seq} is too far ahead (next is {next_seq})")
        if seq > next_seq or defer:
            return self._hold(entry)
        if entry.prev != self._head.get(author, ZERO_HASH):
            return self._reject(entry, f"prev does not match the author's entry {seq - 1}")
        if not self.app.ready(entry):
            return self._hold(entry)
        try:
            self.app.apply(entry)
        except HanabiError as exc:
            return self._reject(entry, game_refusal(exc, entry))
        self._record_applied(entry)
        applied, dropped = self._drain()
        return AddResult(Status.ACCEPTED, applied=(entry, *applied), dropped=dropped)

    # ---- queries -----------------------------------------------------------------------

    def have(self) -> dict[bytes, int]:
        """Per author, how many entries from seq 0 on we store without a hole (applied and
        held). Peers exchange this to find what to relay."""
        out: dict[bytes, int] = {}
        for author in sorted(self._authors()):
            n = self._next.get(author, 0)
            runs = self._runs.get(author)
            out[author] = runs.run_end(n) if runs is not None else n
        return out

    def missing(self, peer_have: Mapping[bytes, int], limit: int | None = None) -> list[Entry]:
        """Entries we store that a peer with ``peer_have`` lacks, in an order it can apply
        without holding: applied ones in our application order, then held ones canonically.
        Entries are self-authenticating, so relaying anyone's entries is safe."""
        places: list[int] = []
        for author, at in self._places.items():
            places.extend(at[_first_wanted(peer_have, author):])
        places.sort()  # (each author's are in order: what they lack of all, in our order)
        out = [self.applied[i] for i in places[:limit]]
        if limit is not None and len(out) >= limit:
            return out
        for entry in sorted(self._held.values(), key=self._order):
            if entry.seq >= _first_wanted(peer_have, entry.author):
                out.append(entry)
                if limit is not None and len(out) >= limit:
                    break
        return out

    def gaps(self) -> list[Gap]:
        """Holes we know of: seqs missing below a held entry of the same author."""
        out: list[Gap] = []
        for author in sorted(self._runs):
            runs = self._runs[author]
            expected = self._next.get(author, 0)
            for start in sorted(runs.by_start):
                if start > expected:
                    out.append(Gap(author, expected, start))
                expected = runs.by_start[start]
        return out

    def has_gaps(self) -> bool:
        """Whether any held entry waits for a missing earlier one (one step per author)."""
        return any(self._first_gap(author) is not None for author in self._runs)

    def gap_starts(self) -> dict[bytes, int]:
        """Per author with a gap, the first seq missing: what to ask a peer for (``WANT``).
        One step per author, whatever the number of entries held."""
        out = {}
        for author in sorted(self._runs):
            start = self._first_gap(author)
            if start is not None:
                out[author] = start
        return out

    def held_authors(self) -> frozenset[bytes]:
        """Authors with at least one held entry."""
        return frozenset(self._runs)

    def _first_gap(self, author: bytes) -> int | None:
        runs = self._runs[author]
        self.index_steps += 1
        n = self._next.get(author, 0)
        end = runs.run_end(n)
        # a gap exists when some run starts elsewhere than at the author's next seq
        return end if len(runs.by_start) > (1 if n in runs.by_start else 0) else None

    def wants(self, peer_have: Mapping[bytes, int]) -> dict[bytes, int]:
        """Authors a peer has more of than we do, with the seq to ask from."""
        ours = self.have()
        return {
            author: ours.get(author, 0)
            for author, theirs in sorted(peer_have.items())
            if isinstance(theirs, int) and theirs > ours.get(author, 0)
        }

    def next_link(self, author: bytes) -> tuple[int, bytes]:
        """(seq, prev) for ``author``'s next entry: used to sign our own entries."""
        seq = self.have().get(author, 0)
        if seq == 0:
            return 0, ZERO_HASH
        return seq, self._stored[(author, seq - 1)].hash

    def get(self, author: bytes, seq: int) -> Entry | None:
        return self._stored.get((author, seq))

    def held(self) -> list[Entry]:
        return sorted(self._held.values(), key=self._order)

    def stuck(self) -> list[Entry]:
        """Held entries that are next in their author's chain (not waiting for an earlier
        entry of their own), in ``order_key`` order: what the app never found ready."""
        return sorted(self._candidates(), key=self._order)

    def next_seq(self, author: bytes) -> int:
        """How many of ``author``'s entries have been applied."""
        return self._next.get(author, 0)

    # ---- internals ---------------------------------------------------------------------

    def _authors(self) -> set[bytes]:
        return set(self._next) | set(self._runs)

    def _refuse(self, entry: Entry, reason: str) -> AddResult:
        """Reject without remembering: the same bytes may be fine later or elsewhere."""
        error = BadEntry(entry.author, reason)
        return AddResult(Status.REJECTED, reason, error=error)

    def _reject(self, entry: Entry, reason: str) -> AddResult:
        """Reject for good: remember the entry (bounded) as evidence and to skip re-checks."""
        error = self._remember_bad(entry, reason)
        return AddResult(Status.REJECTED, reason, error=error, permanent=True)

    def _remember_bad(self, entry: Entry, reason: str) -> BadEntry:
        error = BadEntry(entry.author, reason)
        if len(self._bad) < MAX_REMEMBERED_BAD:
            self._bad[entry.hash] = error
            self.rejections.append(Rejection(entry, error))
        return error

    def _hold(self, entry: Entry) -> AddResult:
        author = entry.author
        size = len(entry.encoded)
        if self._bounded:
            if self._held_count.get(author, 0) >= MAX_HELD_PER_AUTHOR:
                return self._refuse(entry, "too many entries held for this author")
            if self._held_bytes + size > MAX_HELD_BYTES:
                return self._refuse(entry, "too many bytes held for all authors")
        key = (author, entry.seq)
        self._held[key] = entry
        self._stored[key] = entry
        self._runs.setdefault(author, _Runs()).add(entry)
        self.index_steps += 1
        self._held_bytes += size
        self._held_count[author] = self._held_count.get(author, 0) + 1
        return AddResult(Status.HELD, "waiting for earlier entries or for its turn")

    def _unhold(self, entry: Entry) -> None:
        key = (entry.author, entry.seq)
        del self._held[key]
        del self._stored[key]
        runs = self._runs[entry.author]
        self.index_steps += runs.remove(entry.seq)
        if not runs.entries:
            del self._runs[entry.author]
        self._held_bytes -= len(entry.encoded)
        self._held_count[entry.author] -= 1

    def _record_applied(self, entry: Entry) -> None:
        key = (entry.author, entry.seq)
        if key in self._held:
            self._unhold(entry)
        self._stored[key] = entry
        self._next[entry.author] = entry.seq + 1
        self._head[entry.author] = entry.hash
        self._places.setdefault(entry.author, []).append(len(self.applied))
        self.applied.append(entry)

    def _equivocation(self, first: Entry, second: Entry) -> AddResult:
        author = first.author
        proof = Equivocation(first, second)
        if sum(1 for p in self.equivocations if p.author == author) < MAX_PROOFS_PER_AUTHOR:
            self.equivocations.append(proof)
        self.equivocators.add(author)
        # Nothing more of this author applies; what is held would only ever be disputed.
        runs = self._runs.get(author)
        for entry in list(runs.entries.values()) if runs is not None else []:
            self._unhold(entry)
        reason = f"equivocation: two different entries with seq {first.seq}"
        error = BadEntry(author, reason)
        return AddResult(Status.REJECTED, reason, error=error, equivocation=proof)

    def _drain(self) -> tuple[tuple[Entry, ...], tuple[BadEntry, ...]]:
        """Retry held entries until none applies. Deterministic: depends on app state only."""
        applied: list[Entry] = []
        dropped: list[BadEntry] = []
        progress = True
        while progress:
            progress = False
            dropped.extend(self._drop_unseated())
            candidates = sorted(self._candidates(), key=self._order)
            for entry in candidates:
                if entry.prev != self._head.get(entry.author, ZERO_HASH):
                    self._unhold(entry)
                    reason = f"prev does not match the author's entry {entry.seq - 1}"
                    dropped.append(self._remember_bad(entry, reason))
                    progress = True
                    break
                if not self.app.ready(entry):
                    continue
                self._unhold(entry)
                try:
                    self.app.apply(entry)
                except HanabiError as exc:
                    dropped.append(self._remember_bad(entry, game_refusal(exc, entry)))
                else:
                    self._record_applied(entry)
                    applied.append(entry)
                progress = True
                break
        return tuple(applied), tuple(dropped)

    def _candidates(self) -> list[Entry]:
        """The held entries that are next in their author's chain: at most one per author."""
        out = []
        for author, runs in self._runs.items():
            self.index_steps += 1
            entry = runs.entries.get(self._next.get(author, 0))
            if entry is not None:
                out.append(entry)
        return out

    def _drop_unseated(self) -> Iterable[BadEntry]:
        """Drop held entries of authors outside the game (step 5): not their fault, so they
        are neither remembered nor reported."""
        allowed = self._allowed_authors()
        if allowed is None:
            return []
        for author in [a for a in self._runs if a not in allowed]:
            for entry in list(self._runs[author].entries.values()):
                self._unhold(entry)
        return []
