"""The end-of-game audit: redo every step from the revealed seeds and the public transcript.

A pure function. Checks, in this order, stopping at the first failure: every seat's commitment
against its seed; phase 1 seat by seat; phase 2 seat by seat; then every position's face,
which once both phases reproduce is the card the seats' permutations bring there (each card
exactly once: `_dealt_faces`), or unlocked from the locked deck when a seat's steps were
taken on its caller's word (`made_by_us`); every reveal in transcript order. Since every
step is deterministic given the seed and its public input, a step "reproduces" when the
published message equals the recomputed one byte for byte.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache, partial
from typing import TypeVar

from hanabi_p2p.deck import channel, checks, steps
from hanabi_p2p.deck.derive import PeerSecrets, card_points
from hanabi_p2p.deck.errors import Check, DeckCheatError
from hanabi_p2p.deck.group import DeckGroup, Point
from hanabi_p2p.deck.messages import (
    Commit,
    DeckMessage,
    Lock,
    OwnerKey,
    PublicKey,
    SeedReveal,
    SharedKeys,
    Shuffle,
)
from hanabi_p2p.rules.cards import Card, GameConfig

M = TypeVar("M")


@dataclass(frozen=True, slots=True)
class AuditResult:
    ok: bool
    blamed_seat: int | None = None
    reason: str = ""
    check: Check | None = None
    faces: dict[int, Card] = field(default_factory=dict)  # every position, when ok


class _AuditFailedError(Exception):
    def __init__(self, seat: int | None, check: Check, reason: str) -> None:
        super().__init__(reason)
        self.seat = seat
        self.check = check
        self.reason = reason


@dataclass
class _Collected:
    commits: dict[int, Commit] = field(default_factory=dict)
    shuffles: dict[int, Shuffle] = field(default_factory=dict)
    locks: dict[int, Lock] = field(default_factory=dict)
    seeds: dict[int, bytes] = field(default_factory=dict)
    reveals: list[tuple[int, DeckMessage]] = field(default_factory=list)


def _keep_first(slot: dict[int, M], seat: int, message: M) -> None:
    """One-shot messages: a repeat must be identical."""
    if slot.setdefault(seat, message) != message:
        raise _AuditFailedError(seat, Check.EQUIVOCATION,
                                f"published two different {type(message).__name__}")


def _collect(transcript: Sequence[tuple[int, DeckMessage]], players: int) -> _Collected:
    got = _Collected()
    for seat, message in transcript:
        if not 0 <= seat < players:
            raise _AuditFailedError(None, Check.MALFORMED, f"transcript names seat {seat}")
        match message:
            case Commit():
                _keep_first(got.commits, seat, message)
            case Shuffle():
                _keep_first(got.shuffles, seat, message)
            case Lock():
                _keep_first(got.locks, seat, message)
            case SeedReveal():
                _keep_first(got.seeds, seat, message.seed)
            case _:
                got.reveals.append((seat, message))
    return got


def audit(config: GameConfig, table_id: bytes, seats: Sequence[bytes],
          transcript: Sequence[tuple[int, DeckMessage]], *, group: DeckGroup,
          made_by_us: int | None = None, proofs_verified: bool = False) -> AuditResult:
    """Audit a table's deck from every message its peers published, as (seat, message).

    ``group``: the table's deck group (ristretto255; edwards25519 for a 0.2.0 log).

    ``made_by_us``: the seat of a caller whose every shuffle and lock in the transcript is
    one its own DeckPeer made from this seed (checked by the caller): those reproduce by
    construction, so they are not recomputed (a fifth of a 5-player audit). The verdict is
    the one a full audit gives.

    ``proofs_verified``: the caller verified every proof of every lock in the transcript
    (a live peer whose deck became ready): each lock is then checked against its seed without
    remaking the points and proofs the verified proofs already pin down
    (`steps.verified_lock_reproduces`), for the same verdict at half the audit's cost. A
    verifier of a log (`log verify`) has checked nothing and leaves it False."""
    try:
        faces = _audit(config, table_id, list(seats), transcript, group, made_by_us,
                       proofs_verified)
    except _AuditFailedError as failure:
        return AuditResult(False, failure.seat, failure.reason, failure.check)
    return AuditResult(True, faces=faces)


def check_steps(config: GameConfig, table_id: bytes, seats: Sequence[bytes],
                transcript: Sequence[tuple[int, DeckMessage]], *,
                group: DeckGroup) -> AuditResult:
    """The checks every player makes on each shuffle and lock as it arrives (SPEC §2.9),
    made from the public transcript alone: no seed is needed, so a log whose audit cannot
    run (a seed never revealed) still names a seat that signed a false proof. Checks the
    steps present, in seat order, up to the first one missing; `ok` unless one fails."""
    try:
        got = _collect(transcript, len(seats))
        senders = [checks.Sender(table_id, seat, peer_id, group)
                   for seat, peer_id in enumerate(seats)]
        points = tuple(card_points(config, group))
        total = group.point_sum(points)
        for sender in senders:
            shuffle = got.shuffles.get(sender.seat)
            if shuffle is None:
                break  # the steps after a missing one have nothing to be checked against
            total = checks.check_shuffle(sender, shuffle, config.deck_size, total)
            points = shuffle.points
        if len(got.shuffles) == len(seats):
            for sender in senders:
                lock = got.locks.get(sender.seat)
                if lock is None:
                    break
                checks.check_lock(sender, lock, got.shuffles[sender.seat].shuffle_point, points)
                points = lock.points
    except _AuditFailedError as failure:
        return AuditResult(False, failure.seat, failure.reason, failure.check)
    except DeckCheatError as cheat:
        return AuditResult(False, cheat.seat, f"{cheat.check.value}: {cheat.detail}", cheat.check)
    return AuditResult(True)


def _audit(config: GameConfig, table_id: bytes, seats: list[bytes],
           transcript: Sequence[tuple[int, DeckMessage]], group: DeckGroup,
           made_by_us: int | None, proofs_verified: bool) -> dict[int, Card]:
    players = len(seats)
    got = _collect(transcript, players)
    secrets = [_seat_secrets(got, table_id, seats, seat, group) for seat in range(players)]

    card_list = card_points(config, group)
    points = tuple(card_list)
    total = group.point_sum(points)
    for seat in range(players):
        published = got.shuffles.get(seat)
        if published is None:
            raise _AuditFailedError(seat, Check.MISSING, "never published its shuffle")
        if seat != made_by_us and steps.shuffle_step(secrets[seat], points, total) != published:
            raise _AuditFailedError(seat, Check.MISMATCH, "its shuffle does not reproduce")
        points, total = published.points, group.mul(secrets[seat].shuffle_scalar, total)

    for seat in range(players):
        lock = got.locks.get(seat)
        if lock is None:
            raise _AuditFailedError(seat, Check.MISSING, "never published its lock")
        if seat != made_by_us and not _lock_reproduces(secrets[seat], points, lock,
                                                       proofs_verified):
            raise _AuditFailedError(seat, Check.MISMATCH, "its lock does not reproduce")
        points = lock.points

    # A seat not recomputed (`made_by_us`) is taken on its caller's word: its points are
    # unlocked, so that a step of its own that its caller got wrong is still no card.
    faces = (_dealt_faces(config, secrets) if made_by_us is None
             else _decode_deck(config, group, card_list, secrets, points))
    _check_reveals(got.reveals, secrets, table_id, seats, config.deck_size)
    return faces


def _lock_reproduces(secrets: PeerSecrets, inputs: tuple[Point, ...], lock: Lock,
                     proofs_verified: bool) -> bool:
    if proofs_verified:
        return steps.verified_lock_reproduces(secrets, inputs, lock)
    return steps.lock_step(secrets, inputs) == lock


def _seat_secrets(got: _Collected, table_id: bytes, seats: list[bytes],
                  seat: int, group: DeckGroup) -> PeerSecrets:
    commit = got.commits.get(seat)
    if commit is None:
        raise _AuditFailedError(seat, Check.MISSING, "never published its commitment")
    seed = got.seeds.get(seat)
    if seed is None:
        raise _AuditFailedError(seat, Check.MISSING, "never revealed its seed")
    secrets = PeerSecrets(table_id, seats[seat], seed, group)
    if secrets.x25519_public != commit.x25519_pub or secrets.commitment != commit.commitment:
        raise _AuditFailedError(seat, Check.COMMITMENT, "the seed does not match its commitment")
    return secrets


def _dealt_faces(config: GameConfig, secrets: list[PeerSecrets]) -> dict[int, Card]:
    """Every position's face, once every shuffle and lock reproduced (SPEC 2.10 step 4).

    Each shuffle puts at position i the point of its input position perm[i] (Z[i] =
    s·X[perm[i]]) and each lock keeps every point in place, so position i of the locked deck
    holds the card the seats' permutations bring there, and every seat's k unlocks it to
    that card's point. The faces are read from the permutations, then, rather than by
    unlocking each position (a multiplication per card: 50 of the 815 of a 5-player audit): the
    same faces, each card exactly once since the permutations are permutations, which is
    why step 4's `not-a-card` cannot happen once steps 2 and 3 pass. Only when every step
    was recomputed here: a seat's own steps its caller vouches for (`made_by_us`) are
    unlocked (`_decode_deck`)."""
    size = config.deck_size
    dealt = list(range(size))  # dealt[i]: the canonical index of the card at position i
    for seat_secrets in secrets:
        permutation = seat_secrets.permutation(size)
        dealt = [dealt[permutation[i]] for i in range(size)]
    composition = config.deck_composition()
    return {position: composition[index][0] for position, index in enumerate(dealt)}


def _decode_deck(config: GameConfig, group: DeckGroup, cards: list[Point],
                 secrets: list[PeerSecrets], locked: tuple[Point, ...]) -> dict[int, Card]:
    """Every position's face; the deck must be each card of the variant exactly once."""
    card_of = {point: card for point, (card, _) in
               zip(cards, config.deck_composition(), strict=True)}
    faces: dict[int, Card] = {}
    seen: set[Point] = set()
    for position, point in enumerate(locked):
        card_point = steps.unlock(group, [s.lock_scalar(position) for s in secrets], point)
        if card_point not in card_of or card_point in seen:
            # Unreachable when every step reproduced; kept because it is the property the
            # audit promises, and it costs one multiplication per card.
            raise _AuditFailedError(None, Check.NOT_A_CARD,
                                    f"position {position} is not a fresh card")
        seen.add(card_point)
        faces[position] = card_of[card_point]
    return faces


def _check_reveals(reveals: list[tuple[int, DeckMessage]], secrets: list[PeerSecrets],
                   table_id: bytes, seats: list[bytes], size: int) -> None:
    players = len(seats)
    peer_ids = dict(enumerate(seats))
    pubs = {seat: s.x25519_public for seat, s in enumerate(secrets)}
    owners: dict[int, int] = {}

    @cache
    def pair(sender: int, recipient: int) -> channel.PairKey:
        return channel.pair_key(table_id, secrets[sender].x25519_private, my_seat=sender,
                                other_seat=recipient, peer_ids=peer_ids, x25519_pubs=pubs)

    def note_owner(seat: int, position: int, owner: int) -> None:
        if owners.setdefault(position, owner) != owner:
            raise _AuditFailedError(seat, Check.WRONG_OWNER,
                           f"position {position}: owner {owner}, earlier {owners[position]}")

    for seat, message in reveals:
        if not isinstance(message, OwnerKey | PublicKey | SharedKeys):
            raise _AuditFailedError(seat, Check.UNEXPECTED, f"{message.KIND} among the reveals")
        if message.position >= size:
            raise _AuditFailedError(seat, Check.MALFORMED, f"no deck position {message.position}")
        match message:
            case OwnerKey() | PublicKey():
                if message.key != secrets[seat].lock_scalar(message.position):
                    raise _AuditFailedError(seat, Check.MISMATCH,
                                   f"revealed a wrong k for position {message.position}")
                if isinstance(message, OwnerKey):
                    note_owner(seat, message.position, seat)
            case SharedKeys():
                note_owner(seat, message.position, message.owner)
                if message.owner == seat or not message.owner < players:
                    raise _AuditFailedError(seat, Check.WRONG_OWNER, "shared keys for its own card")
                expected = steps.share_step(
                    secrets[seat], partial(pair, seat), peer_ids,
                    my_seat=seat, position=message.position, owner=message.owner)
                if expected != message:
                    raise _AuditFailedError(seat, Check.MISMATCH,
                                   f"shares for position {message.position} do not reproduce")

