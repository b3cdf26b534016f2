"""DeckPeer: one peer's side of the mental-poker deck protocol, sans-IO (h11-shaped).

Messages in (`receive`), messages out (return values); the game drives reveals with
`deal_shares`, `public_share` and `seed_reveal`. Messages may arrive in any order: one that
cannot be used yet is held and retried after every step. Everything a peer sends is checked
before use; the first failed check raises `DeckCheatError` naming the peer (or
`DeckCorruptError` when only the audit can name it) and the peer stops for good.

With ``defer_checks=True`` the costly checks of a shuffle or lock (point validation and the
proofs: nearly all of a peer's deck CPU) are not run by `receive`, which only makes the cheap
structural checks and at once returns this peer's own shuffle or lock when it falls due; the
caller sends that, then runs `run_checks` (see there; in a worker thread if it likes, and its
checks in parallel), or, when the caller's event loop must never block on them, takes the
jobs with `take_checks`, runs them wherever it likes and reports with `finish_checks`. The
deck is READY, and the dealt positions can be revealed, once the checks they depend on have
passed (every shuffle's, every lock's at those positions: they come first, in batches of
their own); a position beyond the deal only once every check has (`settle_checks` runs what
is left, SPEC §2.8). So building on an unchecked predecessor leaks nothing: a peer's own
step is the same function of its seed whatever its input.

A DeckPeer is not thread-safe: call it from one thread at a time; only the jobs that
`run_checks` hands to its runner, or `take_checks` to its caller, may run in parallel.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hanabi_p2p.deck import channel, checks, steps
from hanabi_p2p.deck.audit import AuditResult, audit
from hanabi_p2p.deck.derive import (
    SEED_BYTES,
    PeerSecrets,
    card_points,
)
from hanabi_p2p.deck.errors import Check, DeckCheatError, DeckCorruptError
from hanabi_p2p.deck.group import LIVE_GROUP, DeckGroup, GroupError, Point, Scalar
from hanabi_p2p.deck.messages import (
    MAX_DECK_SIZE,
    Commit,
    DeckMessage,
    Lock,
    OwnerKey,
    PublicKey,
    SeedReveal,
    SharedKeys,
    Shuffle,
)
from hanabi_p2p.deck.states import COMPLETES, OPENS_IN, TRANSITIONS, Phase, reached
from hanabi_p2p.errors import LocalProtocolError
from hanabi_p2p.limits import PEER_ID_BYTES, TABLE_ID_BYTES
from hanabi_p2p.rules.cards import Card, GameConfig

# A peer may run ahead of us by at most every reveal of every position plus its one-shot
# messages; anything beyond that is flooding.
MAX_HELD_PER_SEAT = 3 * MAX_DECK_SIZE + 4
# Deferred lock proofs are checked this many positions per job, so that a thread pool can
# spread one lock over several cores (one job of 10 proofs is about 4 ms).
LOCK_CHECK_CHUNK = 10

ProofCheck = Callable[[], None]  # pure: raises DeckCheatError, or returns; any thread


def run_in_order(jobs: Sequence[ProofCheck]) -> None:
    """The default runner of `run_checks`: one job after another, in this thread."""
    for job in jobs:
        job()


def first_failure(jobs: Sequence[ProofCheck]) -> DeckCheatError | None:
    """Run the jobs in order and return what the first failing one raised (None if all
    pass): the outcome `finish_checks` takes, so that the blame never depends on timing."""
    for job in jobs:
        try:
            job()
        except DeckCheatError as exc:
            return exc
    return None


class _OnceCheck:
    """A deferred check that does its work once, whichever thread calls it first: the
    shell's threads run a batch while the event loop may need the same checks at once
    (`settle_checks`, before a card beyond the deal is revealed). A later call returns or
    raises the same outcome at once; one made while the check runs waits for it. So the
    loop never repeats what the threads have done, or are doing, and the outcome (hence the
    blame) is the same whoever ran it. A lock, not a thread: the deck code starts none."""

    __slots__ = ("_check", "_done", "_lock", "_outcome")

    def __init__(self, check: ProofCheck) -> None:
        self._check = check
        self._lock = threading.Lock()
        self._outcome: DeckCheatError | None = None
        self._done = False

    def __call__(self) -> None:
        with self._lock:
            if not self._done:
                try:
                    self._check()
                except DeckCheatError as exc:
                    self._outcome = exc
                self._done = True  # (any other exception is a bug: raised, not kept)
        if self._outcome is not None:
            raise self._outcome


def _in_arrival_order(*batches: Sequence[_Job]) -> list[ProofCheck]:
    return [job.check for job in sorted((job for jobs in batches for job in jobs),
                                        key=lambda job: job.order)]


@dataclass(frozen=True, slots=True)
class _Job:
    """A deferred check, with its place in arrival order (which decides the blame)."""

    order: int
    check: ProofCheck
    for_the_deal: bool  # needed before the first deal (shuffle proofs, dealt positions)


@dataclass(slots=True)
class Reveal:
    """What the local game declared for one position."""

    owner: int | None = None  # set by deal_shares: revealed to all but this seat
    public: bool = False  # set by public_share: revealed to all


class DeckPeer:
    """One peer of the deck protocol for one table."""

    def __init__(self, config: GameConfig, table_id: bytes, seats: list[bytes], my_seat: int,
                 seed: bytes, *, defer_checks: bool = False,
                 group: DeckGroup = LIVE_GROUP) -> None:
        if len(table_id) != TABLE_ID_BYTES:
            raise LocalProtocolError(f"table_id must be {TABLE_ID_BYTES} bytes")
        if len(seats) != config.players or any(len(p) != PEER_ID_BYTES for p in seats):
            raise LocalProtocolError(f"need {config.players} peer ids of {PEER_ID_BYTES} bytes")
        if len(set(seats)) != len(seats) or not 0 <= my_seat < len(seats):
            raise LocalProtocolError("seats must be distinct and my_seat one of them")
        if len(seed) != SEED_BYTES:
            raise LocalProtocolError(f"seed must be {SEED_BYTES} bytes")
        self.config = config
        self.table_id = table_id
        self.seats = list(seats)
        self.my_seat = my_seat
        self.size = config.deck_size
        self.group = group
        self._secrets = PeerSecrets(table_id, seats[my_seat], seed, group)
        self._cards = config.deck_composition()
        self._card_points = card_points(config, group)
        self._card_of_point = {p: card for p, (card, _) in zip(self._card_points, self._cards,
                                                               strict=True)}
        self._phase = Phase.COMMIT
        self._started = False
        self._error: Exception | None = None
        self._commits: dict[int, Commit] = {}
        self._pairs: dict[int, channel.PairKey] = {}
        self._shuffles: list[Shuffle] = []
        self._sums: list[Point] = []  # ΣZ of each shuffle, the next shuffle's ΣX
        self._locks: list[Lock] = []
        self._keys: dict[tuple[int, int], Scalar] = {}  # (seat, position) -> verified k
        self._reveals: dict[int, Reveal] = {}
        self._faces: dict[int, Card] = {}
        self._decoded_at: dict[Point, int] = {}
        self._new_faces: list[tuple[int, Card]] = []
        self._seeds: dict[int, bytes] = {}
        self._held: list[tuple[int, DeckMessage]] = []
        self._sent: set[DeckMessage] = set()
        self._transcript: list[tuple[int, DeckMessage]] = []
        self._defer_checks = defer_checks
        self._deferred: list[_Job] = []  # costly checks not run yet, in arrival order
        self._running: list[_Job] = []  # taken by take_checks, outcome not reported yet
        self._jobs_made = 0
        self._batch_superseded = False  # settle_checks ran the batch that is out
        # the positions dealt before the first turn: their checks are the ones the deal needs
        self._dealt = min(config.players * config.hand_size, self.size)
        self._locks_verified = False  # every lock's every proof passed (the deck got READY)

    # ---- queries -------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def deck_ready(self) -> bool:
        return self._phase is Phase.READY

    @property
    def checks_pending(self) -> int:
        """Deferred proof checks that have not passed yet (always 0 without
        ``defer_checks``), those taken by `take_checks` included."""
        return len(self._deferred) + len(self._running)

    @property
    def deal_checks_pending(self) -> int:
        """Those of `checks_pending` that the first deal waits for: every shuffle's, and
        every lock's for the positions dealt before the first turn."""
        return sum(1 for job in (*self._deferred, *self._running) if job.for_the_deal)

    @property
    def dealt_positions(self) -> int:
        """Positions 0..n-1 are dealt before the first turn (SPEC §2.8: the deck is ready for
        them once their checks pass; every other position waits for every check)."""
        return self._dealt

    def defer_checks(self) -> None:
        """Defer the costly checks of every shuffle and lock received from now on (as
        ``defer_checks=True`` does from the start); what was checked stays checked."""
        self._defer_checks = True

    @property
    def error(self) -> Exception | None:
        return self._error

    def known_face(self, position: int) -> Card | None:
        return self._faces.get(position)

    def has_key(self, seat: int, position: int) -> bool:
        """Do we hold `seat`'s verified key for `position`?"""
        return (seat, position) in self._keys

    def pop_decoded(self) -> list[tuple[int, Card]]:
        """Faces decoded since the last call, as (position, face), in decoding order."""
        out, self._new_faces = self._new_faces, []
        return out

    def spectator_keys(self) -> dict[int, Scalar]:
        """Our k of every position dealt to another seat (SPEC §2.12): with the owner's
        published key and every other seat's, a spectator decodes the card. Never a key of
        a card in our own hand (the owner publishes that one itself)."""
        return {position: self._own_key(position)
                for position, reveal in sorted(self._reveals.items())
                if reveal.owner is not None and reveal.owner != self.my_seat}

    @property
    def locked_deck(self) -> tuple[Point, ...]:
        """The final points of every position (empty until the deck is ready)."""
        return self._locks[-1].points if self.deck_ready else ()

    @property
    def seeds(self) -> dict[int, bytes]:
        return dict(self._seeds)

    def made(self, message: DeckMessage) -> bool:
        """Did this peer make and send `message` itself?"""
        return message in self._sent

    def verified_step(self, seat: int, message: DeckMessage) -> bool:
        """Is `message` the shuffle or lock this peer accepted from `seat`, with every proof
        of every lock verified (the deck became ready)? Then an audit need not remake what
        those proofs pin down (see `audit`'s ``proofs_verified``)."""
        if not self._locks_verified:
            return False
        match message:
            case Shuffle():
                return seat < len(self._shuffles) and self._shuffles[seat] == message
            case Lock():
                return seat < len(self._locks) and self._locks[seat] == message
            case _:
                return False

    def transcript(self) -> list[tuple[int, DeckMessage]]:
        """Every message accepted so far (own ones too) as (seat, message), in order."""
        return list(self._transcript)

    def audit(self) -> AuditResult:
        """Audit this table from everything this peer accepted (needs every seed)."""
        # (our own steps in our transcript are the ones we made: not recomputed; the others'
        # lock proofs were all verified if the deck ever became ready)
        return audit(self.config, self.table_id, self.seats, self._transcript,
                     group=self.group, made_by_us=self.my_seat,
                     proofs_verified=self._locks_verified)

    # ---- actions -------------------------------------------------------------------------

    def start(self) -> list[DeckMessage]:
        """Begin: publish this peer's commitment."""
        self._require_usable()
        if self._started:
            raise LocalProtocolError("start() was already called")
        self._started = True
        commit = Commit(self._secrets.commitment, self._secrets.x25519_public)
        return self._run(lambda: self._emit(commit))

    def receive(self, sender_seat: int, message: DeckMessage) -> list[DeckMessage]:
        """Take one message from the peer in `sender_seat`; return what this peer sends.

        After an error only seed reveals are still taken, so that `audit()` can run."""
        if not (self._phase is Phase.ERROR and isinstance(message, SeedReveal)):
            self._require_usable()
        if not 0 <= sender_seat < len(self.seats):
            raise LocalProtocolError(f"no seat {sender_seat}")
        if sender_seat == self.my_seat:
            if message in self._sent:
                return []  # our own message coming back through the log
            raise LocalProtocolError("a message in our name that we did not send")
        return self._run(lambda: self._accept(sender_seat, message))

    def deal_shares(self, position: int, owner_seat: int) -> list[DeckMessage]:
        """This peer's part of revealing `position` to every seat except `owner_seat`."""
        self._require_ready(position)
        if not 0 <= owner_seat < len(self.seats):
            raise LocalProtocolError(f"no seat {owner_seat}")
        reveal = self._reveals.setdefault(position, Reveal())
        if reveal.owner is not None and reveal.owner != owner_seat:
            raise LocalProtocolError(f"position {position} was dealt to seat {reveal.owner}")
        reveal.owner = owner_seat
        out: DeckMessage
        if owner_seat == self.my_seat:
            out = OwnerKey(position, self._own_key(position))
        else:
            out = steps.share_step(self._secrets, self._pairs.__getitem__, self._peer_ids(),
                                   my_seat=self.my_seat, position=position, owner=owner_seat)
        return self._run(lambda: self._emit(out))

    def public_share(self, position: int) -> list[DeckMessage]:
        """This peer's part of revealing `position` to everyone (a play or a discard)."""
        self._require_ready(position)
        self._reveals.setdefault(position, Reveal()).public = True
        out = PublicKey(position, self._own_key(position))
        return self._run(lambda: self._emit(out))

    def run_checks(self, runner: Callable[[Sequence[ProofCheck]], None] = run_in_order,
                   ) -> list[DeckMessage]:
        """Run every deferred check; return what this peer sends as a result (nothing, or
        what the deck being READY lets through). On a failed check move to ERROR and raise.

        `runner` gets the jobs (pure functions, safe to run in parallel threads: libsodium
        releases the GIL) and must raise the exception of the first failing job in list
        order, so that the blame does not depend on timing; e.g. with a thread pool
        ``lambda jobs: [f.result() for f in [pool.submit(j) for j in jobs]]``. Do not call
        another method of this peer while it runs."""
        out: list[DeckMessage] = []
        while jobs := self._take_checks(hold_back_the_rest=False):  # the deal's first
            try:
                runner(jobs)
            except DeckCheatError as exc:
                return self.finish_checks(exc)
            out.extend(self.finish_checks(None))
        return out or self._run(self._advance)

    def take_checks(self) -> list[ProofCheck]:
        """Hand over the deferred checks, to run off this thread (in parallel if you like),
        then report the outcome with `finish_checks`; meanwhile the deck cannot become
        READY. One batch at a time: empty while a batch is out, or nothing is deferred.
        The checks the first deal needs come in batches of their own, before the others,
        and the others only once every lock is in: the last lock brings checks the deal
        needs, and a batch of later positions still out when it came would hold them up
        (by 100-300 ms at a 5-player table on one busy machine, issue 33). The others then
        run while the hands are dealt; a card beyond the deal waits for them (SPEC 2.8)."""
        return self._take_checks(hold_back_the_rest=True)

    def _take_checks(self, *, hold_back_the_rest: bool) -> list[ProofCheck]:
        self._require_usable()
        if self._running:
            return []
        urgent = [job for job in self._deferred if job.for_the_deal]
        if urgent:
            self._deferred = [job for job in self._deferred if not job.for_the_deal]
            self._running = urgent
        elif hold_back_the_rest and len(self._locks) < len(self.seats):
            return []
        else:
            self._running, self._deferred = self._deferred, []
        return [job.check for job in self._running]

    def finish_checks(self, error: DeckCheatError | None) -> list[DeckMessage]:
        """The batch of `take_checks` ran: ``error`` is what its first failing job in list
        order raised, or None if every job passed. Returns what this peer sends as a result
        (like `run_checks`); on an error moves to ERROR and raises it. Ignored when this
        peer stopped meanwhile (an error found while the batch ran: the batch came before
        it, so `_run` ran its jobs again, in order, to blame the earliest cheat)."""
        if self._phase is Phase.ERROR:
            return []
        if not self._running:
            if self._batch_superseded:  # settle_checks ran these jobs itself, and they passed
                self._batch_superseded = False
                return self._run(self._advance)
            raise LocalProtocolError("finish_checks() without a batch from take_checks()")
        batch, self._running = self._running, []
        if error is not None:
            # Checks kept back while the deal's went first came before some of the batch: a
            # failure among those is the earliest, as it would be without deferring.
            last = batch[-1].order
            earlier = [job.check for job in self._deferred if job.order < last]
            self._deferred = []
            raise self._stop(first_failure(earlier) or error)
        return self._run(self._advance)

    def settle_checks(self) -> list[DeckMessage]:
        """Run here and now, in arrival order, every deferred check not passed yet (those of
        a batch out with `take_checks` again: its outcome is then ignored). A reveal of a
        position beyond the first deal needs every check (SPEC §2.8); by the first draw
        they have nearly always passed in the shell's threads, and then this does nothing.
        Returns what this peer sends as a result; on a failed check moves to ERROR and
        raises it."""
        self._require_usable()
        jobs = _in_arrival_order(self._running, self._deferred)
        if self._running:
            self._batch_superseded = True
        self._running, self._deferred = [], []
        failure = first_failure(jobs)
        if failure is not None:
            raise self._stop(failure)
        return self._run(self._advance)

    def seed_reveal(self) -> list[DeckMessage]:
        """Publish the seed for the audit (game over, or after a cheat). Allowed even in
        ERROR, so that the audit can name whoever caused it."""
        if not self._started:
            raise LocalProtocolError("start() was never called")
        message = SeedReveal(self._secrets.seed)
        if message not in self._sent:
            self._sent.add(message)
            self._transcript.append((self.my_seat, message))
            self._seeds[self.my_seat] = self._secrets.seed
        return [message]

    # ---- plumbing ------------------------------------------------------------------------

    def _require_usable(self) -> None:
        if self._phase is Phase.ERROR:
            raise LocalProtocolError(f"the deck protocol stopped: {self._error}")

    def _require_ready(self, position: int) -> None:
        self._require_usable()
        if not self.deck_ready:
            raise LocalProtocolError(f"the deck is not ready (phase {self._phase.value})")
        if not 0 <= position < self.size:
            raise LocalProtocolError(f"no deck position {position}")
        if position >= self._dealt and self.checks_pending:
            raise LocalProtocolError(f"position {position} is beyond the first deal and "
                                     "checks are pending: settle_checks() first")

    def _run(self, step: Callable[[], list[DeckMessage]]) -> list[DeckMessage]:
        """Run one step then every held message that has become usable; on a failed check
        move to ERROR and re-raise."""
        try:
            out: list[DeckMessage] = step()
            out.extend(self._drain_held())
        except (DeckCheatError, DeckCorruptError) as exc:
            error: DeckCheatError | DeckCorruptError = exc
            # Deferred checks belong to messages that came before the one that failed: a
            # failure among them comes first, as it would have without deferring, so that
            # the blame does not depend on the mode. A batch out with take_checks came
            # before those: it is run again here, in order (its outcome is ignored later).
            jobs = _in_arrival_order(self._running, self._deferred)
            self._running, self._deferred = [], []
            error = first_failure(jobs) or error
            self._stop(error)
            if error is exc:
                raise
            raise error from None
        return out

    def _stop(self, error: DeckCheatError | DeckCorruptError,
              ) -> DeckCheatError | DeckCorruptError:
        """Stop for good on `error` (the first one found is the one kept), for the caller
        to raise."""
        if self._error is None:
            self._error = error
        self._phase = Phase.ERROR
        return error

    def _emit(self, message: DeckMessage) -> list[DeckMessage]:
        if message in self._sent:
            return [message]  # asked twice for the same thing: same bytes again
        self._sent.add(message)
        self._transcript.append((self.my_seat, message))
        self._apply(self.my_seat, message)
        return [message, *self._advance()]

    def _accept(self, seat: int, message: DeckMessage) -> list[DeckMessage]:
        if not self._ready_for(seat, message):
            if sum(1 for s, _ in self._held if s == seat) >= MAX_HELD_PER_SEAT:
                raise self._cheat(seat, Check.UNEXPECTED, "too many messages ahead of time")
            self._held.append((seat, message))
            return []
        if self._is_repeat(seat, message):
            return []
        self._apply(seat, message)
        self._transcript.append((seat, message))
        return self._advance()

    def _drain_held(self) -> list[DeckMessage]:
        out: list[DeckMessage] = []
        progress = True
        while progress:
            progress = False
            for index, (seat, message) in enumerate(self._held):
                if self._ready_for(seat, message):
                    del self._held[index]
                    out.extend(self._accept(seat, message))
                    progress = True
                    break
        return out

    def _ready_for(self, seat: int, message: DeckMessage) -> bool:
        if self._phase is Phase.ERROR:  # stopped: only seeds, for the audit
            return isinstance(message, SeedReveal) and seat in self._commits
        if not reached(self._phase, OPENS_IN[type(message)]):
            return False
        match message:
            case Shuffle():
                return len(self._shuffles) >= seat
            case Lock():
                return len(self._locks) >= seat
            case SeedReveal():
                return seat in self._commits
            case OwnerKey() | SharedKeys():
                reveal = self._reveals.get(message.position)
                return reveal is not None and reveal.owner is not None
            case PublicKey():
                reveal = self._reveals.get(message.position)
                return reveal is not None and reveal.public
        return True

    def _is_repeat(self, seat: int, message: DeckMessage) -> bool:
        """A one-shot message seen before: identical is ignored, different is cheating."""
        earlier: DeckMessage | None = None
        match message:
            case Commit():
                earlier = self._commits.get(seat)
            case Shuffle():
                earlier = self._shuffles[seat] if seat < len(self._shuffles) else None
            case Lock():
                earlier = self._locks[seat] if seat < len(self._locks) else None
            case SeedReveal():
                seed = self._seeds.get(seat)
                earlier = None if seed is None else SeedReveal(seed)
            case _:
                return False  # reveals are idempotent and checked again
        if earlier is None:
            return False
        if earlier != message:
            raise self._cheat(seat, Check.EQUIVOCATION, f"sent two different {message.KIND}")
        return True

    def _advance(self) -> list[DeckMessage]:
        """Take every phase transition whose step is complete; send what falls due."""
        players = len(self.seats)
        done = {"all-commits": lambda: len(self._commits) == players,
                "all-shuffles": lambda: len(self._shuffles) == players,
                # READY lets the dealt cards be revealed: only once every deferred check
                # they need has passed (the others wait for every check, _require_ready)
                "all-locks": lambda: len(self._locks) == players and not self.deal_checks_pending}
        while (step := COMPLETES.get(self._phase)) is not None and done[step]():
            self._phase = TRANSITIONS[(self._phase, step)]
        if self._phase is Phase.READY and not self.checks_pending:
            self._locks_verified = True
        if self._phase is Phase.SHUFFLE and len(self._shuffles) == self.my_seat:
            return self._emit(self._own_step(self._make_shuffle))
        if self._phase is Phase.LOCK and len(self._locks) == self.my_seat:
            return self._emit(self._own_step(self._make_lock))
        return []

    def _own_step(self, make: Callable[[], DeckMessage]) -> DeckMessage:
        """Our shuffle or lock. Its input may not be checked yet (deferred checks): a point
        libsodium refuses to multiply is the fault of the seat that sent the input."""
        try:
            return make()
        except GroupError as exc:
            # (_run runs the deferred checks first: an earlier cheat is blamed before this)
            author = (self.my_seat - 1) % len(self.seats)  # lock 0 builds on the last shuffle
            raise self._cheat(author, Check.INVALID_POINT, f"input of our step: {exc}") from None

    def _check(self, job: ProofCheck, *, for_the_deal: bool = True) -> None:
        """Run a costly check now, or keep it for run_checks."""
        if self._defer_checks:
            self._jobs_made += 1
            self._deferred.append(_Job(self._jobs_made, _OnceCheck(job), for_the_deal))
        else:
            job()

    def _apply(self, seat: int, message: DeckMessage) -> None:
        match message:
            case Commit():
                self._on_commit(seat, message)
            case Shuffle():
                self._on_shuffle(seat, message)
            case Lock():
                self._on_lock(seat, message)
            case OwnerKey():
                self._on_owner_key(seat, message)
            case SharedKeys():
                self._on_shared_keys(seat, message)
            case PublicKey():
                self._on_public_key(seat, message)
            case SeedReveal():
                self._on_seed(seat, message)

    def _sender(self, seat: int) -> checks.Sender:
        return checks.Sender(self.table_id, seat, self.seats[seat], self.group)

    def _cheat(self, seat: int, check: Check, detail: str) -> DeckCheatError:
        return self._sender(seat).blame(check, detail)

    def _peer_ids(self) -> dict[int, bytes]:
        return dict(enumerate(self.seats))

    def _own_key(self, position: int) -> Scalar:
        key = self._keys.get((self.my_seat, position))
        if key is None:
            key = self._keys[(self.my_seat, position)] = self._secrets.lock_scalar(position)
        return key

    # ---- commitments -----------------------------------------------------------------------

    def _on_commit(self, seat: int, message: Commit) -> None:
        self._commits[seat] = message
        if seat == self.my_seat:
            for other in self._commits:
                if other != self.my_seat:
                    self._open_pair(other)
        elif self.my_seat in self._commits:
            self._open_pair(seat)

    def _open_pair(self, seat: int) -> None:
        pubs = {s: c.x25519_pub for s, c in self._commits.items()}
        try:
            self._pairs[seat] = channel.pair_key(
                self.table_id, self._secrets.x25519_private, my_seat=self.my_seat,
                other_seat=seat, peer_ids=self._peer_ids(), x25519_pubs=pubs)
        except channel.ChannelError as exc:
            raise self._cheat(seat, Check.INVALID_POINT, f"X25519 key: {exc}") from None

    # ---- phase 1 ---------------------------------------------------------------------------

    def _shuffle_input(self, seat: int) -> tuple[tuple[Point, ...], Point]:
        if seat == 0:
            points = tuple(self._card_points)
            return points, self.group.point_sum(points)
        return self._shuffles[seat - 1].points, self._sums[seat - 1]

    def _make_shuffle(self) -> Shuffle:
        return steps.shuffle_step(self._secrets, *self._shuffle_input(self.my_seat))

    def _on_shuffle(self, seat: int, message: Shuffle) -> None:
        _, input_sum = self._shuffle_input(seat)
        if seat == self.my_seat:  # our own, made by _make_shuffle: ΣZ = s·ΣX
            output_sum = self.group.mul(self._secrets.shuffle_scalar, input_sum)
        else:
            sender = self._sender(seat)
            output_sum = checks.shuffle_structure(sender, message, self.size)
            self._check(functools.partial(checks.check_shuffle_proof, sender, message,
                                          input_sum, output_sum))
        self._shuffles.append(message)
        self._sums.append(output_sum)

    # ---- phase 2 ---------------------------------------------------------------------------

    def _lock_input(self, seat: int) -> tuple[Point, ...]:
        return self._shuffles[-1].points if seat == 0 else self._locks[seat - 1].points

    def check_late_step(self, seat: int, message: Shuffle | Lock) -> None:
        """Every check of another seat's shuffle or lock, run here at once, taking nothing:
        a stopped game still judges the deck step that reaches it after its stop, when it
        is the next one (the steps before it, its inputs, are here). Raises the cheat."""
        if seat == self.my_seat or self.error is not None:
            return
        sender = self._sender(seat)
        if isinstance(message, Shuffle):
            if len(self._shuffles) == seat:
                input_sum = self._shuffle_input(seat)[1]
                checks.check_shuffle_proof(sender, message, input_sum,
                                           checks.shuffle_structure(sender, message, self.size))
        elif len(self._locks) == seat and len(self._shuffles) == len(self.seats):
            checks.check_lock(sender, message, self._shuffles[seat].shuffle_point,
                              self._lock_input(seat))

    def _make_lock(self) -> Lock:
        return steps.lock_step(self._secrets, self._lock_input(self.my_seat))

    def _on_lock(self, seat: int, message: Lock) -> None:
        if seat != self.my_seat:
            sender, inputs = self._sender(seat), self._lock_input(seat)
            checks.lock_structure(sender, message, self.size)
            for first, end in ((0, self._dealt), (self._dealt, self.size)):
                for start in range(first, end, LOCK_CHECK_CHUNK):
                    positions = range(start, min(start + LOCK_CHECK_CHUNK, end))
                    self._check(functools.partial(
                        checks.check_lock_proofs, sender, message,
                        self._shuffles[seat].shuffle_point, inputs, positions),
                        for_the_deal=first == 0)
        self._locks.append(message)

    # ---- reveals ---------------------------------------------------------------------------

    def _check_key(self, seat: int, position: int, key: bytes) -> None:
        self._keys[(seat, position)] = self._verified_key(seat, position, key)

    def _verified_key(self, seat: int, position: int, key: bytes) -> Scalar:
        return checks.check_key(self._sender(seat), position, key,
                                self._locks[seat].keys[position])

    def check_published_key(self, seat: int, message: PublicKey | OwnerKey) -> None:
        """The key check a published key gets when it is taken (k·G = K), without taking
        it: a stopped game still judges the turn action that reaches it at the turn it
        stopped at (which positions it may publish, the session has checked)."""
        if seat != self.my_seat:
            self._verified_key(seat, message.position, message.key)

    def _on_owner_key(self, seat: int, message: OwnerKey) -> None:
        owner = self._reveals[message.position].owner
        if seat != owner:
            raise self._cheat(seat, Check.WRONG_OWNER,
                              f"owner key for position {message.position}, owned by seat {owner}")
        if seat != self.my_seat:
            self._check_key(seat, message.position, message.key)
        self._try_decode(message.position)

    def _on_shared_keys(self, seat: int, message: SharedKeys) -> None:
        position = message.position
        owner = self._reveals[position].owner
        if message.owner != owner or seat == owner:
            raise self._cheat(seat, Check.WRONG_OWNER,
                              f"shares for position {position}: owner {message.owner}, "
                              f"the game says {owner}")
        expected = [s for s in range(len(self.seats)) if s not in (seat, owner)]
        if [recipient for recipient, _ in message.shares] != expected:
            raise self._cheat(seat, Check.MALFORMED, f"shares for position {position} "
                                                     f"must go to seats {expected}")
        if self.my_seat in (seat, owner):
            return  # the owner never decrypts anything about its own card
        ciphertext = dict(message.shares)[self.my_seat]
        try:
            key = channel.open_share(
                self._pairs[seat], self.table_id, self._peer_ids(), position=position,
                owner_seat=owner, sender_seat=seat, recipient_seat=self.my_seat,
                ciphertext=ciphertext)
        except channel.ChannelError as exc:
            raise self._cheat(seat, Check.BAD_SHARE, f"position {position}: {exc}") from None
        self._check_key(seat, position, key)
        self._try_decode(position)

    def _on_public_key(self, seat: int, message: PublicKey) -> None:
        if seat != self.my_seat:
            self._check_key(seat, message.position, message.key)
        self._try_decode(message.position)

    def _try_decode(self, position: int) -> None:
        if position in self._faces:
            return
        reveal = self._reveals[position]
        if reveal.owner == self.my_seat and not reveal.public:
            return  # our own hand: never decode it, whatever we hold
        self._own_key(position)
        keys = [self._keys.get((seat, position)) for seat in range(len(self.seats))]
        if any(key is None for key in keys):
            return
        point = steps.unlock(self.group, [k for k in keys if k is not None],
                             self._locks[-1].points[position])
        face = self._card_of_point.get(point)
        if face is None:
            raise DeckCorruptError(position, "decodes to a point that is not a card")
        if point in self._decoded_at:
            raise DeckCorruptError(position, f"decodes to the same card as position "
                                             f"{self._decoded_at[point]}")
        self._decoded_at[point] = position
        self._faces[position] = face
        self._new_faces.append((position, face))

    # ---- audit -----------------------------------------------------------------------------

    def _on_seed(self, seat: int, message: SeedReveal) -> None:
        checks.check_seed(self._sender(seat), message.seed, self._commits[seat])
        self._seeds[seat] = message.seed
