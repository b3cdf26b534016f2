"""Verify a whole stored game: entries in, a ``GameReport`` out. Pure and deterministic.

This is what ``hanabi-p2p log verify/show/export`` run (protocol/SPEC.md 5.7). Anyone can
run it, with no secret: every peer's copy of a game holds the same entries in some order, and
the report depends only on the *set* of entries, so every copy gives the same verdict, the
same first bad entry and the same digest (tests/session/test_session_order.py permutes real
games, and replays them in arrival order as a live peer would, to show it).

The pipeline never stops at the first problem: a bad entry is reported and everything else
is still checked, so ``log show`` can show all that is valid.

1. structure: each entry's signature, one table id, equivocation (SPEC 3.7; of two versions
   of one (author, seq) the one with the smaller hash is replayed); chain links and gaps
   come out of step 4's replica;
2. the deck transcript: every deck message in every entry body's ``deck`` list, as
   (seat of the author, message), seats from the host's ``lobby.seat``;
3. every card's face, once every seat has revealed its seed: the audit's decoding step
   (seeds and the last lock), without yet re-checking every step;
4. a replay of every entry through a ``Replica`` whose app is an unseated observer
   ``TableSession`` that knows every face: every action's legality, every clue's touched
   set, every state hash, turn order, every reveal an entry must carry. The replica stores
   the whole set first and applies in place order (``kinds.place``: content alone). With a
   seed missing (no faces) the observer checks what public reveals allow, as a spectator
   (``public_only``): cards played and discarded decode from the public key shares, a
   clue's touched cards are taken as named;
5. the full deck audit over every deck message of every applied entry, in place order
   (every commitment, shuffle, lock and reveal is recomputed from the seeds), so a message
   applied after the last seed is audited like any other;
6. the verdict: valid, invalid (the first bad entry, by place, and why) or unfinished.
   Entries of authors outside the game (never seated) are set aside, never judged.

Step 3 only decodes so that the audit, the costly part, runs once; a deck the audit then
rejects makes the audit's blame the first problem, ahead of any turn checked against it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from hanabi_p2p.deck import (
    AuditResult,
    DeckMessage,
    SeedReveal,
    audit,
    check_steps,
)
from hanabi_p2p.deck.errors import Check
from hanabi_p2p.deck.withheld import audit_withheld_seed
from hanabi_p2p.errors import HanabiError, LocalProtocolError
from hanabi_p2p.identity import fingerprint, verify_signature
from hanabi_p2p.log.entry import Entry, EntryKind, signed_message
from hanabi_p2p.log.replica import AddResult, Replica, Status, game_refusal
from hanabi_p2p.log.storage import CorruptLogError, GameHeader, LoadResult
from hanabi_p2p.log.verify import digest
from hanabi_p2p.rules.actions import Action
from hanabi_p2p.rules.cards import Card, GameConfig
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.session import bodies as b
from hanabi_p2p.session import events as ev
from hanabi_p2p.session import kinds as k
from hanabi_p2p.session.kinds import place
from hanabi_p2p.session.table import TableSession
from hanabi_p2p.session.verdict import Verdict, variant_text
from hanabi_p2p.session.verify_deck import (
    DeckTable,
    audit_first,
    deck_transcript,
    preview_faces,
)
from hanabi_p2p.session.waiting import WaitKind

# The verifier is nobody: an all-zero key is not a valid Ed25519 point, so no entry can be
# signed by it and it can never be seated.
OBSERVER_ID = bytes(32)
# Problems kept per report: the first one is what matters; a hostile file must not make
# the report grow without bound.
MAX_PROBLEMS = 100


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with the log: an entry (author, seq, kind, turn), a file record, or
    the deck (author = the blamed seat's peer)."""

    reason: str
    author: bytes | None = None
    seq: int | None = None
    kind: str | None = None
    turn: int | None = None
    record: int | None = None  # index of the damaged record in the game file

    @classmethod
    def of(cls, entry: Entry, reason: str) -> Problem:
        return cls(reason, entry.author, entry.seq, entry.kind, entry.turn)


@dataclass(frozen=True, slots=True)
class Claim:
    """What a seed's author said when it stopped the game (SPEC 5.1 `seed`): its word, not
    proof. ``blame``: the peer it held responsible, if it named one."""

    author: bytes
    reason: str
    blame: bytes | None


@dataclass(frozen=True, slots=True)
class Player:
    seat: int
    name: str
    peer_id: bytes


@dataclass
class GameReport:
    """Everything ``log list/show/verify/export`` need to know about one game."""

    table_id: bytes | None = None
    header: GameHeader | None = None  # when the entries came from a game file
    # distinct entries and authors of the game: once seated, only the seated players' (the
    # others' are in `outside_entries`); before any seating, every entry
    entry_count: int = 0
    authors: int = 0
    digest: str = ""  # SPEC 3.7: over the same entries as entry_count
    # entries of authors never seated (a joiner removed, one who left, one the table had no
    # seat for): set aside, out of the digest and the counts, since whether a copy holds
    # them depends on arrival order (SPEC 3.7, 5.7)
    outside_entries: int = 0
    table_name: str = ""
    config: GameConfig | None = None
    table_options: tuple[str, ...] = ()  # how the table was run (SPEC 5.1 `table`)
    deck_group: str = ""  # the deck's group (SPEC 5.1 `group`; edwards25519 for 0.2.0 logs)
    players: tuple[Player, ...] = ()
    names: dict[bytes, str] = field(default_factory=dict)  # every known author -> name
    problems: list[Problem] = field(default_factory=list)
    audit: AuditResult | None = None
    missing_seeds: tuple[int, ...] = ()  # seats that never revealed their seed
    state: GameState | None = None  # the observer's final state
    # What happened, in replay order: session events and problems, for ``log show``.
    timeline: list[ev.Event | Problem] = field(default_factory=list)
    applied: list[Entry] = field(default_factory=list)  # in application order
    unapplied: list[Entry] = field(default_factory=list)  # held to the end (canonical order)
    waiting_for: list[tuple[int, WaitKind]] = field(default_factory=list)  # at the end
    stopped: str | None = None  # why the players' sessions stopped the game early, if they did
    # the turn at which every seat agreed to end the game (SPEC 5.3), None if they did not
    abandoned_at: int | None = None
    # entries of authors outside the game (never seated): set aside, never judged
    ignored: list[Problem] = field(default_factory=list)
    torn_tail_bytes: int = 0  # a torn last record dropped on loading (SPEC 3.8): not a fault
    # the seeds whose authors stopped the game blaming someone, by place (their word only)
    claims: list[Claim] = field(default_factory=list)

    # ---- verdict

    @property
    def faces(self) -> dict[int, Card]:
        return self.audit.faces if self.audit is not None and self.audit.ok else {}

    @property
    def finished(self) -> bool:
        return self.state is not None and self.state.over and self.faces != {}

    @property
    def verdict(self) -> Verdict:
        if self.problems:
            return Verdict.INVALID
        return Verdict.VALID if self.finished else Verdict.UNFINISHED

    @property
    def ok(self) -> bool:
        return self.verdict is Verdict.VALID

    @property
    def actions(self) -> list[Action]:
        """Every applied action (turn actions, reorders, resignations) in game order."""
        return list(self.state.history) if self.state is not None else []

    def label(self, author: bytes | None) -> str:
        """'Alice (K7QF-2M9D)' for a known author, else just the fingerprint."""
        if author is None:
            return "unknown author"
        name = self.names.get(author)
        return f"{name} ({fingerprint(author)})" if name else fingerprint(author)

    def seat_name(self, seat: int | None) -> str:
        if seat is None or not 0 <= seat < len(self.players):
            return "an unknown seat"
        return self.label(self.players[seat].peer_id)

    def describe(self, problem: Problem) -> str:
        """One line naming what is wrong and where."""
        if problem.record is not None:
            return f"record {problem.record}: {problem.reason}"
        if problem.author is None:
            return problem.reason
        where = self.label(problem.author)
        if problem.seq is not None:
            where += f" seq {problem.seq}"
        if problem.kind is not None:
            where += f" ({problem.kind}, turn {(problem.turn or 0) + 1})"  # 1-based, as shown
        return f"{where}: {problem.reason}"

    def claim_text(self, claim: Claim) -> str:
        """A stopping seed's reason as its author's claim, and whether the log supports it
        (SPEC 5.7): a blame is supported only when a problem of the log names that peer."""
        said = f"{self.label(claim.author)} stopped the game, saying: {claim.reason}"
        if claim.blame is None:
            return said
        blamed = self.label(claim.blame)
        if any(p.author == claim.blame for p in self.problems):
            return f"{said} (the log supports it: it proves a fault of {blamed})"
        return f"{said} (the log does not support it: nothing in it proves a fault of {blamed})"

    def unfinished_reason(self) -> str:
        if not self.players:
            return "the players were never seated"
        if self.missing_seeds:
            who = ", ".join(self.seat_name(s) for s in self.missing_seeds)
            return f"deck not audited (no seed from {who})"
        state = self.state
        if state is None:
            return "the deck was never shuffled"
        if self.stopped:
            return f"the game was stopped at turn {state.turn + 1}: {self.stopped}"
        waiting = ", ".join(f"{self.seat_name(s)}'s {what}" for s, what in self.waiting_for)
        return f"the game stopped at turn {state.turn + 1}" + (
            f", waiting for {waiting}" if waiting else ""
        )

    def headline(self) -> str:
        """The verdict in one line, e.g. 'valid: 3 players, standard, score 23 (amazing)'."""
        verdict = self.verdict
        if verdict is Verdict.INVALID:
            return f"invalid: {self.describe(self.problems[0])}"
        if verdict is Verdict.UNFINISHED:
            return f"unfinished: {self.unfinished_reason()}"
        assert self.config is not None and self.state is not None
        said = "valid"
        if self.abandoned_at is not None:  # a distinct verdict line, exit status as valid
            said = f"valid (abandoned by agreement at turn {self.abandoned_at + 1})"
        return (
            f"{said}: {self.config.players} players, {variant_text(self.config)}, "
            f"score {self.state.score} ({self.state.rating})"
        )


# ---------------------------------------------------------------------------- the pipeline


class _NoSigner:
    """The verifier's identity: it only watches, and must never sign anything."""

    peer_id = OBSERVER_ID

    def sign(self, data: bytes) -> bytes:
        raise LocalProtocolError("the log verifier never signs entries")


def canonical_order(entries: Iterable[Entry]) -> list[Entry]:
    """Entries in place order (``kinds.place``: turn, step of the kind within the turn,
    author, seq; the hash breaks ties between equivocating versions): a function of the
    entries alone, so every copy of a game is checked and shown the same way."""
    return sorted(entries, key=lambda e: (place(e), e.hash))


def verify_game(
    entries: Iterable[Entry], *, table_id: bytes | None = None, arrival_order: bool = False
) -> GameReport:
    """Run the whole pipeline over one game's entries (any order, duplicates allowed).

    ``table_id``: the game's table (a game file's header names it); by default the table
    of the ``table.open`` entry, else the most common one. ``arrival_order``: replay the
    entries one by one in the order given, as a live peer receives them, instead of storing
    the set first (tests use it to show the verdict does not depend on the order).
    """
    given = list(entries)
    distinct = list({entry.hash: entry for entry in given}.values())
    report = GameReport(
        entry_count=len(distinct),
        authors=len({e.author for e in distinct}),
        digest=digest(distinct),
    )
    report.table_id = table_id if table_id is not None else _guess_table(distinct)
    ordered = canonical_order(distinct)
    good = _structural_checks(ordered, report)
    transcript, table = deck_transcript(good)
    first = audit_first(transcript, table, report.table_id)
    if first is not None and first.ok:
        faces: dict[int, Card] | None = dict(first.faces)
    else:
        faces = preview_faces(transcript, table, report.table_id) if report.table_id else None
    if arrival_order:
        chosen = {e.hash for e in good}
        feed = [e for e in list({e.hash: e for e in given}.values()) if e.hash in chosen]
    else:
        feed = good
    replica, refused = _replay(feed, faces, report, arrival_order=arrival_order)
    fork = _fork_turn(ordered, good)
    settled = [e for e in good if e.hash not in refused and not _on_a_branch(e, fork)]
    # every entry kept (the usual case): the transcript and the audit made of it are those
    # of `good`, in the same order (`settled` is `good` filtered), so they are not made again
    done = (transcript, first) if len(settled) == len(good) else None
    _settle_audit(table, faces, settled, report, done)
    _set_aside_outsiders(report)
    _count_the_game(report, distinct)
    _sort_problems(report)
    _final_checks(report, replica)
    del report.problems[MAX_PROBLEMS:]
    return report


def verify_file(loaded: LoadResult) -> GameReport:
    """``verify_game`` over a loaded game file; damage found while reading comes first."""
    report = verify_game(loaded.entries, table_id=loaded.header.table_id)
    report.header = loaded.header
    damage = [Problem(e.reason, record=e.index) for e in loaded.errors]
    # A torn tail (SPEC 3.8: a crash while appending the last record) is dropped and its
    # size reported, never a fault: the entries before it are judged as they are (an entry
    # it held is simply not in the log, which the verdict then reflects).
    report.torn_tail_bytes = loaded.dropped_tail_bytes
    report.problems[:0] = damage
    del report.problems[MAX_PROBLEMS:]
    return report


def damaged_header_report(error: CorruptLogError) -> GameReport:
    """The report for a file whose header cannot be read: nothing else in it can be trusted."""
    return GameReport(problems=[Problem(f"{error.path}: {error.reason}")])


def _guess_table(entries: Sequence[Entry]) -> bytes | None:
    for entry in canonical_order(entries):
        if entry.kind == EntryKind.TABLE_OPEN:
            return entry.table_id
    counts = Counter(entry.table_id for entry in entries)
    return min(counts, key=lambda t: (-counts[t], t)) if counts else None


def _structural_checks(ordered: list[Entry], report: GameReport) -> list[Entry]:
    """Signatures, table id and equivocation; returns the entries with a valid signature
    for this table (the rest are reported and left out). Of several versions of one
    (author, seq) only the one with the smallest hash is kept (SPEC 5.7): the replay never
    depends on which version a copy happened to store first."""
    signed = []
    for entry in ordered:
        if entry.table_id != report.table_id:
            report.problems.append(
                Problem.of(entry, f"belongs to another table ({entry.table_id.hex()})")
            )
            continue
        if not verify_signature(
            entry.author, entry.signature, signed_message(entry)
        ):
            report.problems.append(
                Problem.of(entry, "signature does not verify for the claimed author")
            )
            continue
        signed.append(entry)
    kept: dict[tuple[bytes, int], Entry] = {}
    for entry in signed:
        key = (entry.author, entry.seq)
        if key not in kept or entry.hash < kept[key].hash:
            kept[key] = entry
    good = []
    for entry in signed:
        # Two signed entries with one (author, seq) prove the author forked its chain.
        if kept[(entry.author, entry.seq)] is not entry:
            report.problems.append(
                Problem.of(entry, f"equivocation: two different entries with seq {entry.seq}")
            )
            continue
        good.append(entry)
    return good


def _on_a_branch(entry: Entry, fork: int | None) -> bool:
    """An action or an answer of the fork's turn or later: the branches of a fork reveal
    other cards to other owners, so the audit leaves them out (SPEC 5.7 step 4). The deck
    steps, the deal and the seeds belong to no branch."""
    return (fork is not None and entry.turn >= fork
            and entry.kind in (EntryKind.ACTION, EntryKind.ACK))


def _fork_turn(ordered: Sequence[Entry], good: Sequence[Entry]) -> int | None:
    """The first turn of a fork of the game: the smallest envelope turn of two signed
    versions of one (author, seq), one of them an action (a fork of anything else does
    not split the game). The fork already names its author."""
    kept = {e.hash for e in good}
    versions: dict[tuple[bytes, int], list[Entry]] = {}
    for entry in ordered:
        versions.setdefault((entry.author, entry.seq), []).append(entry)
    table_id = good[0].table_id if good else None
    turns = []
    for both in versions.values():
        # (only signed versions prove a fork: anyone can write bytes in another's name)
        signed = [e for e in both if e.hash in kept or (
            e.table_id == table_id
            and verify_signature(e.author, e.signature, signed_message(e)))]
        if len(signed) > 1 and any(e.kind == EntryKind.ACTION for e in signed):
            turns.append(min(e.turn for e in signed))
    return min(turns, default=None)


def _settle_audit(
    table: DeckTable | None,
    faces: dict[int, Card] | None,
    entries: list[Entry],
    report: GameReport,
    done: tuple[list[tuple[int, DeckMessage]], AuditResult | None] | None = None,
) -> None:
    """The deck audit over every deck message of every entry not refused, in place order:
    a message applied after the last seed is audited like the others (SPEC 5.7). `done`:
    these entries' transcript and, if it was made, its audit (`audit_first`)."""
    if table is None or report.table_id is None:
        return
    config, seats = table.config, table.seats
    if done is not None:
        transcript, result = done
    else:
        (transcript, _), result = deck_transcript(canonical_order(entries)), None
    revealed = {seat for seat, message in transcript if isinstance(message, SeedReveal)}
    report.missing_seeds = tuple(s for s in range(len(seats)) if s not in revealed)
    if report.missing_seeds:
        # no audit without every seed, but the proofs need none: a seat that signed a
        # false one is named all the same (a cheater cannot hide it by keeping its seed)
        steps = check_steps(config, report.table_id, seats, transcript, group=table.group)
        if not steps.ok and steps.blamed_seat is not None:
            report.problems.append(Problem(f"deck check failed: {steps.reason}",
                                           seats[steps.blamed_seat]))
            return
        # a forger that keeps its seed back is named all the same once the others' seeds
        # prove a card of its deck is none (deck/withheld.py; SPEC 5.7)
        withheld = audit_withheld_seed(config, report.table_id, seats, transcript,
                                       group=table.group)
        if withheld is not None and withheld.blamed_seat is not None:
            report.problems.append(Problem(f"deck audit failed: {withheld.reason}",
                                           seats[withheld.blamed_seat]))
        return
    if result is None:
        result = audit(config, report.table_id, seats, transcript, group=table.group)
    report.audit = result
    report.timeline.append(ev.Audited(result.ok, result.reason, result.blamed_seat))
    if result.ok and faces is not None and result.faces != faces:
        # Unreachable when the audit passes (it decodes the same way); kept as a guard
        # since every turn was checked against the previewed faces.
        report.problems.append(Problem("the audited deck differs from the replayed one"))


class _Recorder:
    """The observer as the replica's app, noting what happens at each application: the
    session's events and every refusal, in the order they happen, for ``log show``."""

    def __init__(self, observer: TableSession, report: GameReport) -> None:
        self.observer = observer
        self.report = report
        self.refused: set[bytes] = set()

    def ready(self, entry: Entry) -> bool:
        return self.observer.ready(entry)

    def allowed_authors(self) -> frozenset[bytes] | None:
        return self.observer.allowed_authors()

    def order_key(self, entry: Entry) -> tuple[int, int, bytes, int]:
        return self.observer.order_key(entry)

    def apply(self, entry: Entry) -> None:
        try:
            self.observer.apply(entry)
        except HanabiError as exc:
            self.refused.add(entry.hash)
            self._note([Problem.of(entry, game_refusal(exc, entry))])
            raise
        finally:
            self.report.timeline.extend(self.observer.take_events())

    def _note(self, problems: list[Problem]) -> None:
        self.report.problems.extend(problems)
        self.report.timeline.extend(problems)


def _replay(
    entries: list[Entry], faces: dict[int, Card] | None, report: GameReport, *,
    arrival_order: bool,
) -> tuple[Replica, set[bytes]]:
    """Feed every entry to a Replica driving an observer session; record what happens."""
    table_id = report.table_id or bytes(16)
    observer = TableSession(
        _NoSigner(), table_id, seed=bytes(32), known_faces=faces, audit_at_end=False,
        old_deck_groups=True, public_only=faces is None,
    )
    recorder = _Recorder(observer, report)
    # unbounded: the verifier holds the whole log it was given (already in memory), and a
    # holding limit a valid game can reach would be a fault no live peer saw (SPEC 5.5)
    replica = Replica(table_id, recorder, bounded=False)
    if arrival_order:
        results: list[tuple[Entry | None, AddResult]] = [(e, replica.add(e)) for e in entries]
    else:
        batch = replica.add_batch(entries)
        results = [*zip(sorted(entries, key=place), batch, strict=False), (None, batch[-1])]
    for entry, result in results:
        if (
            entry is not None
            and result.status is Status.REJECTED
            and result.equivocation is None  # reported by the structural checks already
            and entry.hash not in recorder.refused
        ):
            # refused by the replica itself (a broken chain link): its author's fault like
            # any other refusal (the verifier's replica has no holding budget to exceed)
            recorder._note([Problem.of(entry, result.reason)])
    for rejection in replica.rejections:  # refusals while retrying held entries
        if rejection.entry.hash not in recorder.refused and not any(
            p.author == rejection.entry.author and p.seq == rejection.entry.seq
            for p in report.problems
        ):
            recorder._note([Problem.of(rejection.entry, rejection.error.reason)])
    rejected = {(p.author, p.seq) for p in report.problems}
    for gap in replica.gaps():
        if (gap.author, gap.start) in rejected:
            continue  # not missing: rejected, and reported as such
        count = gap.stop - gap.start
        what = "entry is missing" if count == 1 else f"{count} entries from here are missing"
        report.problems.append(
            Problem(f"{what} (the author's later entries cannot be placed)", gap.author, gap.start)
        )
    report.applied = list(replica.applied)
    report.unapplied = replica.held()
    report.state = observer.state
    report.abandoned_at = observer.abandoned_at
    report.waiting_for = observer.waiting_for()
    report.stopped = _why_stopped(observer, report.applied)
    report.claims = _claims(report.applied)
    _learn_names(observer, report)
    return replica, recorder.refused | {r.entry.hash for r in replica.rejections}


def _why_stopped(observer: TableSession, applied: Sequence[Entry]) -> str | None:
    """A game not over whose log holds a seed was stopped by a seed's author (it left, or
    stopped the game over a fault it saw). Deterministic: a seed that blames someone (the
    first to see a fault) before one that only followed another's, then by place."""
    state = observer.state
    if state is not None and state.over:
        return None
    seeds: list[tuple[bool, tuple[int, int, bytes, int], Entry, b.SeedBody | None]] = []
    for entry in applied:
        if entry.kind != EntryKind.SEED:
            continue
        try:
            body: b.SeedBody | None = k.body_of(entry, k.SEED)
        except HanabiError:
            body = None
        seeds.append((body is None or body.blame is None, place(entry), entry, body))
    if not seeds:
        return None
    _, _, entry, body = min(seeds, key=lambda s: (s[0], s[1]))
    who = observer.describe(entry.author)
    if body is not None and body.reason:
        # its author's word, shown as such: the log alone says whom it proves at fault
        return f"{who} stopped the game, saying: {body.reason}"
    return f"{who} revealed its deck seed and left the game"


def _claims(applied: Sequence[Entry]) -> list[Claim]:
    """Every applied seed whose author stopped the game blaming someone, by place (those
    that blame nobody, which follow another's stop or a deck that does not decode, accuse
    no one: the reason the verdict shows is enough)."""
    out: list[tuple[tuple[int, int, bytes, int], Claim]] = []
    for entry in applied:
        if entry.kind != EntryKind.SEED:
            continue
        try:
            body = k.body_of(entry, k.SEED)
        except HanabiError:
            continue
        if body.reason and body.blame is not None:
            out.append((place(entry), Claim(entry.author, body.reason, body.blame)))
    return [claim for _, claim in sorted(out, key=lambda pair: pair[0])]


def _learn_names(observer: TableSession, report: GameReport) -> None:
    if observer.table is not None:
        report.table_name = observer.table.name
        report.config = observer.table.config
        report.table_options = tuple(o.value for o in b.TABLE_OPTION_ORDER
                                     if o in observer.table.table_options)
        if observer.table.turn_timer is not None:
            report.table_options += (f"turn timer {observer.table.turn_timer} s",)
        if observer.table.total_clock is not None:
            report.table_options += (f"total clock {observer.table.total_clock} s",)
        report.deck_group = observer.table.deck_group.value
        if observer.host_id is not None:
            report.names[observer.host_id] = observer.table.host_name
    for peer_id, join in observer.joins.items():
        report.names[peer_id] = join.name
    report.players = tuple(
        Player(seat, s.name, s.peer_id) for seat, s in enumerate(observer.seats)
    )
    for player in report.players:
        report.names[player.peer_id] = player.name


def _set_aside_outsiders(report: GameReport) -> None:
    """Entries of authors outside the game (joiners never seated, strangers) are never
    judged: whether a peer applied them before the seating or ignored them after it depends
    on arrival order, so they must not decide a verdict (SPEC 5.7)."""
    if not report.players:
        return
    members = {p.peer_id for p in report.players}
    outside = [p for p in report.problems if p.author is not None and p.author not in members
               and p.record is None]
    if outside:
        report.ignored.extend(outside)
        report.problems[:] = [p for p in report.problems if p not in outside]
        report.timeline[:] = [t for t in report.timeline if t not in outside]


def _count_the_game(report: GameReport, distinct: Sequence[Entry]) -> None:
    """Once the players are seated, the counts and the digest are the seated players' entries
    only (SPEC 3.7): every honest copy of one game holds the same of those, whatever it holds
    of anyone else's (a joiner removed before the seating, one who left)."""
    if not report.players:
        return
    members = {p.peer_id for p in report.players}
    game = [e for e in distinct if e.author in members]
    report.outside_entries = len(distinct) - len(game)
    report.entry_count = len(game)
    report.authors = len({e.author for e in game})
    report.digest = digest(game, members)
    report.applied[:] = [e for e in report.applied if e.author in members]


def _problem_order(problem: Problem) -> tuple[int, tuple[int, int, bytes, int]]:
    """File damage first, then problems of the log as a whole, then entries by place, then
    missing entries (by author and seq)."""
    if problem.record is not None:
        return (0, (problem.record, 0, b"", 0))
    if problem.author is None:
        return (1, (0, 0, b"", 0))
    if problem.kind is None:
        return (3, (0, 0, problem.author, problem.seq or 0))
    step = k.step_of(problem.kind)
    return (2, (problem.turn or 0, step, problem.author, problem.seq or 0))


def _sort_problems(report: GameReport) -> None:
    report.problems.sort(key=_problem_order)


def _final_checks(report: GameReport, replica: Replica) -> None:
    audit_result = report.audit
    if audit_result is not None and not audit_result.ok:
        blamed = audit_result.blamed_seat
        author = (
            report.players[blamed].peer_id
            if blamed is not None and blamed < len(report.players)
            else None
        )
        if report.state is None and audit_result.check is Check.MISSING:
            # stopped before the deck was locked: a step nobody got to is not a cheat
            report.stopped = report.stopped or "the deck was never completed"
        else:
            # First: with a cheated deck, the faces every turn was checked against are
            # wrong, so any turn problem found is a consequence, not the cause.
            report.problems.insert(
                0, Problem(f"deck audit failed: {audit_result.reason}", author)
            )
    if report.problems or not report.faces:
        # entries may wait for ever, legitimately, in a game whose faces nobody can know yet
        # (clues cannot be checked). A stopped game leaves nothing waiting: the observer
        # never stops on a seed, so what the others wrote meanwhile still applies.
        return
    # SPEC 5.7: name the first entry (by place) that is next in its author's chain and can
    # never apply, not an innocent entry waiting behind it in its own chain
    for entry in replica.stuck()[:1]:
        report.problems.append(
            Problem.of(entry, "can never apply: what it answers or follows is not in the log")
        )


def _over(state: GameState | None) -> bool:
    return state is not None and state.over
