"""Verify a whole stored game: entries in, a ``GameReport`` out. Pure and deterministic.

This is what ``hanabi-p2p log verify/show/export`` run (protocol/SPEC-game.md 5.7). Anyone can
run it, with no secret: every peer's copy of a game holds the same entries in some order, and
the report depends only on the *set* of entries, so every copy gives the same verdict and
the same digest.

The pipeline never stops at the first problem: a bad entry is reported and everything else
is still checked, so ``log show`` can show all that is valid.

1. structure: each entry's signature, one table id, equivocation (SPEC-log 3.7); chain links
   and gaps come out of step 4's replica;
2. the deck transcript: every deck message in every entry body's ``deck`` list, as
   (seat of the author, message), seats from the host's ``lobby.seat``;
3. every card's face, once every seat has revealed its seed: the audit's decoding step
   (seeds and the last lock), without yet re-checking every step;
4. a replay of every entry, in a canonical order, through a ``Replica`` whose app is an
   unseated observer ``TableSession`` that knows every face: every action's legality, every
   clue's touched set, every state hash, turn order. When the game is over the observer runs
   the full deck audit over what it applied (every commitment, shuffle, lock and reveal is
   recomputed from the seeds); if the replay never gets there, the verifier runs it;
5. the verdict: valid, invalid (the first bad entry and why) or unfinished.

Step 3 only decodes so that the audit, the costly part, runs once; a deck the audit then
rejects makes the audit's blame the first problem, ahead of any turn checked against it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from hanabi_p2p.deck import AuditResult, DeckMessage, Lock, SeedReveal, audit, decode_message
from hanabi_p2p.deck.derive import PeerSecrets, card_points
from hanabi_p2p.deck.group import GroupError
from hanabi_p2p.deck.steps import unlock
from hanabi_p2p.errors import HanabiError, LocalProtocolError
from hanabi_p2p.identity import fingerprint, verify_signature
from hanabi_p2p.log.entry import Entry, signing_input
from hanabi_p2p.log.replica import Replica, Status
from hanabi_p2p.log.storage import CorruptLogError, GameHeader, LoadResult
from hanabi_p2p.log.verify import digest
from hanabi_p2p.rules.actions import Action
from hanabi_p2p.rules.cards import Card, GameConfig
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.session import bodies as b
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.table import TableSession

# Entry kinds whose body carries deck messages in a "deck" list.
DECK_CARRYING_KINDS = frozenset({"deck", "action", "ack", "seed"})
# The verifier is nobody: an all-zero key is not a valid Ed25519 point, so no entry can be
# signed by it and it can never be seated.
OBSERVER_ID = bytes(32)
# Problems kept per report: the first one is what matters; a hostile file must not make
# the report grow without bound.
MAX_PROBLEMS = 100


class Verdict(StrEnum):
    VALID = "valid"  # every check passed and the game is over and audited
    INVALID = "invalid"  # something is wrong: see GameReport.problems
    UNFINISHED = "unfinished"  # nothing wrong so far, but the game or its audit never ended


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
class Player:
    seat: int
    name: str
    peer_id: bytes


@dataclass
class GameReport:
    """Everything ``log list/show/verify/export`` need to know about one game."""

    table_id: bytes | None = None
    header: GameHeader | None = None  # when the entries came from a game file
    entry_count: int = 0  # distinct entries
    authors: int = 0
    digest: str = ""
    table_name: str = ""
    config: GameConfig | None = None
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
    waiting_for: list[tuple[int, str]] = field(default_factory=list)  # (seat, what) at the end
    stopped: str | None = None  # why the players' sessions stopped the game early, if they did

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
        return (
            f"valid: {self.config.players} players, {variant_text(self.config)}, "
            f"score {self.state.score} ({self.state.rating})"
        )


def variant_text(config: GameConfig) -> str:
    """'standard' or 'rainbow + empty_clues + choreography'."""
    return " + ".join([config.variant.value, *config.options])


# ---------------------------------------------------------------------------- the pipeline


class _NoSigner:
    """The verifier's identity: it only watches, and must never sign anything."""

    peer_id = OBSERVER_ID

    def sign(self, data: bytes) -> bytes:
        raise LocalProtocolError("the log verifier never signs entries")


def canonical_order(entries: Iterable[Entry]) -> list[Entry]:
    """The order the verifier replays in: it depends only on the entries, so every copy of
    a game is checked the same way. Turn first (the game's own order), the lobby before the
    rest of turn 0 (a late joiner's request must not look like an unseated author), then
    author and seq (each author's chain in order)."""

    def lobby_rank(entry: Entry) -> int:
        return {"table.open": 0, "lobby.join": 1}.get(entry.kind, 2)

    return sorted(entries, key=lambda e: (e.turn, lobby_rank(e), e.author, e.seq, e.hash))


def verify_game(entries: Iterable[Entry], *, table_id: bytes | None = None) -> GameReport:
    """Run the whole pipeline over one game's entries (any order, duplicates allowed).

    ``table_id``: the game's table (a game file's header names it); by default the table
    of the ``table.open`` entry, else the most common one.
    """
    distinct = list({entry.hash: entry for entry in entries}.values())
    report = GameReport(
        entry_count=len(distinct),
        authors=len({e.author for e in distinct}),
        digest=digest(distinct),
    )
    report.table_id = table_id if table_id is not None else _guess_table(distinct)
    ordered = canonical_order(distinct)
    good = _structural_checks(ordered, report)
    transcript, table = _deck_transcript(good)
    faces = _preview_faces(transcript, table, report.table_id) if report.table_id else None
    observer = _replay(good, faces, report)
    _settle_audit(observer, transcript, table, faces, report)
    _final_checks(report)
    del report.problems[MAX_PROBLEMS:]
    return report


def verify_file(loaded: LoadResult) -> GameReport:
    """``verify_game`` over a loaded game file; damage found while reading comes first."""
    report = verify_game(loaded.entries, table_id=loaded.header.table_id)
    report.header = loaded.header
    damage = [Problem(e.reason, record=e.index) for e in loaded.errors]
    if loaded.dropped_tail_bytes:
        records = len(loaded.entries) + len(loaded.errors)
        damage.append(
            Problem(
                f"the file ends inside a record ({loaded.dropped_tail_bytes} bytes): "
                "truncated, or torn by a crash",
                record=records,
            )
        )
    report.problems[:0] = damage
    del report.problems[MAX_PROBLEMS:]
    return report


def damaged_header_report(error: CorruptLogError) -> GameReport:
    """The report for a file whose header cannot be read: nothing else in it can be trusted."""
    return GameReport(problems=[Problem(f"{error.path}: {error.reason}")])


def _guess_table(entries: Sequence[Entry]) -> bytes | None:
    for entry in canonical_order(entries):
        if entry.kind == "table.open":
            return entry.table_id
    counts = Counter(entry.table_id for entry in entries)
    return min(counts, key=lambda t: (-counts[t], t)) if counts else None


def _structural_checks(ordered: list[Entry], report: GameReport) -> list[Entry]:
    """Signatures, table id and equivocation; returns the entries with a valid signature
    for this table (the rest are reported and left out)."""
    good = []
    first_of: dict[tuple[bytes, int], Entry] = {}
    for entry in ordered:
        if entry.table_id != report.table_id:
            report.problems.append(
                Problem.of(entry, f"belongs to another table ({entry.table_id.hex()})")
            )
            continue
        if not verify_signature(
            entry.author, entry.signature, signing_input(entry.signed_fields())
        ):
            report.problems.append(
                Problem.of(entry, "signature does not verify for the claimed author")
            )
            continue
        # Two signed entries with one (author, seq) prove the author forked its chain:
        # reported here, whichever order the replay meets them in.
        if first_of.setdefault((entry.author, entry.seq), entry) is not entry:
            report.problems.append(
                Problem.of(entry, f"equivocation: two different entries with seq {entry.seq}")
            )
        good.append(entry)
    return good


def _table_and_seats(entries: Sequence[Entry]) -> tuple[GameConfig, list[bytes]] | None:
    """The config from the first valid table.open and the seat order from its author's
    lobby.seat; None if either is missing or malformed (the replay reports why)."""
    opening = next((e for e in entries if e.kind == "table.open"), None)
    if opening is None:
        return None
    seating = next(
        (e for e in entries if e.kind == "lobby.seat" and e.author == opening.author), None
    )
    if seating is None:
        return None
    try:
        config = b.TableOpen.from_wire(opening.body).config
        seats = [seat.peer_id for seat in b.LobbySeat.from_wire(seating.body).seats]
    except HanabiError:
        return None
    return (config, seats) if len(seats) == config.players else None


def _deck_transcript(
    entries: Sequence[Entry],
) -> tuple[list[tuple[int, DeckMessage]], tuple[GameConfig, list[bytes]] | None]:
    """Every deck message published by a seated author, as (seat, message), once each.

    Entries whose deck messages do not decode are skipped here: the replay rejects them and
    reports why (the observer decodes the same messages)."""
    table = _table_and_seats(entries)
    if table is None:
        return [], None
    _, seats = table
    seat_of = {peer_id: seat for seat, peer_id in enumerate(seats)}
    transcript: list[tuple[int, DeckMessage]] = []
    seen: set[tuple[int, DeckMessage]] = set()
    for entry in entries:
        seat = seat_of.get(entry.author)
        if seat is None or entry.kind not in DECK_CARRYING_KINDS:
            continue
        wire = entry.body.get("deck") if isinstance(entry.body, dict) else None
        if not isinstance(wire, list) or len(wire) > b.MAX_DECK_MSGS:
            continue
        try:
            messages = [decode_message(obj, fingerprint(entry.author)) for obj in wire]
        except HanabiError:
            continue
        for message in messages:
            if (seat, message) not in seen:
                seen.add((seat, message))
                transcript.append((seat, message))
    return transcript, table


def _preview_faces(
    transcript: list[tuple[int, DeckMessage]],
    table: tuple[GameConfig, list[bytes]] | None,
    table_id: bytes,
) -> dict[int, Card] | None:
    """Every card's face, decoded from the revealed seeds and the last lock, or None.

    This is the audit's own decoding step without the re-checking of every shuffle and lock:
    the observer session runs the full audit itself once the game is over, and running it
    here too would double the cost of ``log verify``. Faces from a dishonest deck are never
    trusted: the full audit decides, and ``verify_game`` reports its failure first.
    """
    if table is None:
        return None
    config, seats = table
    seeds: dict[int, bytes] = {}
    locks: dict[int, Lock] = {}
    for seat, message in transcript:
        if isinstance(message, SeedReveal):
            seeds.setdefault(seat, message.seed)
        elif isinstance(message, Lock):
            locks.setdefault(seat, message)
    last = len(seats) - 1
    if len(seeds) != len(seats) or last not in locks:
        return None
    locked = locks[last].points
    if len(locked) != config.deck_size:
        return None
    secrets = [PeerSecrets(table_id, peer_id, seeds[seat]) for seat, peer_id in enumerate(seats)]
    card_of = dict(zip(card_points(config), config.deck_faces(), strict=True))
    faces: dict[int, Card] = {}
    try:
        for position, point in enumerate(locked):
            card = card_of.get(unlock([s.lock_scalar(position) for s in secrets], point))
            if card is None:
                return None
            faces[position] = card
    except GroupError:
        return None
    if Counter(faces.values()) != Counter(config.deck_faces()):
        return None
    return faces


def _settle_audit(
    observer: TableSession,
    transcript: list[tuple[int, DeckMessage]],
    table: tuple[GameConfig, list[bytes]] | None,
    faces: dict[int, Card] | None,
    report: GameReport,
) -> None:
    """The deck audit result: the observer's (it audited exactly the entries it applied), or
    ours over the whole transcript when the replay never got that far."""
    if table is None or report.table_id is None:
        return
    config, seats = table
    revealed = {seat for seat, message in transcript if isinstance(message, SeedReveal)}
    report.missing_seeds = tuple(s for s in range(len(seats)) if s not in revealed)
    if report.missing_seeds:
        return
    result = observer.audit or audit(config, report.table_id, seats, transcript)
    report.audit = result
    if result.ok and faces is not None and result.faces != faces:
        # Unreachable when the audit passes (it decodes the same way); kept as a guard
        # since every turn was checked against the previewed faces.
        report.problems.append(Problem("the audited deck differs from the replayed one"))


def _replay(
    entries: list[Entry], faces: dict[int, Card] | None, report: GameReport
) -> TableSession:
    """Feed every entry to a Replica driving an observer session; record what happens."""
    table_id = report.table_id or bytes(16)
    observer = TableSession(_NoSigner(), table_id, seed=bytes(32), known_faces=faces)
    replica = Replica(table_id, observer)
    for entry in entries:
        known = len(replica.rejections)
        result = replica.add(entry)
        report.timeline.extend(observer.take_events())
        new = replica.rejections[known:]
        problems = [Problem.of(r.entry, _tidy(r.error.reason, r.entry)) for r in new]
        if (
            result.status is Status.REJECTED
            and result.equivocation is None  # reported by the structural checks already
            and all(r.entry.hash != entry.hash for r in new)
        ):
            # rejected without being remembered (e.g. "too far ahead"): still its fault
            problems.insert(0, Problem.of(entry, _tidy(result.reason, entry)))
        report.problems.extend(problems)
        report.timeline.extend(problems)
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
    report.waiting_for = observer.waiting_for()
    report.stopped = observer.abort_reason
    _learn_names(observer, report)
    return observer


def _learn_names(observer: TableSession, report: GameReport) -> None:
    if observer.table is not None:
        report.table_name = observer.table.name
        report.config = observer.table.config
        if observer.host_id is not None:
            report.names[observer.host_id] = observer.table.host_name
    for peer_id, join in observer.joins.items():
        report.names[peer_id] = join.name
    report.players = tuple(
        Player(seat, s.name, s.peer_id) for seat, s in enumerate(observer.seats)
    )
    for player in report.players:
        report.names[player.peer_id] = player.name


def _final_checks(report: GameReport) -> None:
    if report.audit is not None and not report.audit.ok:
        blamed = report.audit.blamed_seat
        author = (
            report.players[blamed].peer_id
            if blamed is not None and blamed < len(report.players)
            else None
        )
        # First: with a cheated deck, the faces every turn was checked against are wrong,
        # so any turn problem found is a consequence, not the cause.
        report.problems.insert(0, Problem(f"deck audit failed: {report.audit.reason}", author))
    if report.problems or not report.faces or report.stopped:
        # entries may wait for ever, legitimately, in a game stopped early or whose faces
        # nobody can know yet
        return
    state = report.state
    stuck = [e for e in report.unapplied if not (e.kind == "seed" and not _over(state))]
    for entry in stuck[:1]:
        report.problems.append(
            Problem.of(entry, "can never apply: what it answers or follows is not in the log")
        )


def _over(state: GameState | None) -> bool:
    return state is not None and state.over


def _tidy(reason: str, entry: Entry) -> str:
    """Drop the session's own 'peer Name (FINGERPRINT): ' prefix: the report names the
    author already."""
    marker = f"({fingerprint(entry.author)}): "
    start = reason.find("peer ")
    end = reason.find(marker, start)
    if start < 0 or end < 0:
        return reason
    return reason[:start] + reason[end + len(marker):]

