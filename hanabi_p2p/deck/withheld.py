"""The audit of a deck whose forger kept its seed back (SPEC §5.7, a seed withheld).

A sum-preserving forgery of a phase-1 shuffle passes every check made without the seeds
(SPEC §2.9); a card of it then decodes to no card, the game stops blaming nobody, and the
audit, once every seed is in, names the seat whose step does not reproduce. A forger that
never reveals its seed escapes that audit, but not this one: with exactly one seed missing,
every other seat's commitment, shuffle and lock are recomputed from their seeds, and a card
is decoded with the missing seat's key taken from what it revealed (a public or owner key,
or a share it sealed for a seat whose seed is known, which opens with that seat's X25519
key). If every other step reproduces and such a card is no card of the deck (or a card
already decoded elsewhere), the missing seat forged it: an honest seat's steps always give
the variant's cards, whoever kept a seed back. Without such a card nothing is proven (a
player may simply have gone), and the result is no verdict at all.

Pure, like the audit.
"""

from __future__ import annotations

from collections.abc import Sequence

from hanabi_p2p.deck import channel, checks, steps
from hanabi_p2p.deck.audit import AuditResult, _AuditFailedError, _collect, _seat_secrets
from hanabi_p2p.deck.derive import PeerSecrets, card_points
from hanabi_p2p.deck.errors import Check
from hanabi_p2p.deck.group import (
    DeckGroup,
    GroupError,
    Point,
    Scalar,
    is_canonical_scalar,
    scalar_to_int,
)
from hanabi_p2p.deck.messages import (
    DeckMessage,
    Lock,
    OwnerKey,
    PublicKey,
    SharedKeys,
    Shuffle,
)
from hanabi_p2p.rules.cards import GameConfig


def audit_withheld_seed(config: GameConfig, table_id: bytes, seats: Sequence[bytes],
                        transcript: Sequence[tuple[int, DeckMessage]], *,
                        group: DeckGroup) -> AuditResult | None:
    """With exactly one seat's seed missing: a failed result naming that seat when the
    others' steps reproduce and a card decodes to no card; a failed result naming another
    seat whose step does not reproduce; None when nothing is proven (the game stays
    unfinished)."""
    peer_ids = list(seats)
    try:
        got = _collect(transcript, len(peer_ids))
        missing = [seat for seat in range(len(peer_ids)) if seat not in got.seeds]
        if len(missing) != 1 or len(got.shuffles) != len(peer_ids) or len(
                got.locks) != len(peer_ids):
            return None
        withheld = missing[0]
        commit = got.commits.get(withheld)
        if commit is None:
            return None
        secrets = {seat: _seat_secrets(got, table_id, peer_ids, seat, group)
                   for seat in range(len(peer_ids)) if seat != withheld}
        _others_reproduce(config, group, secrets, got.shuffles, got.locks)
        pubs = {seat: s.x25519_public for seat, s in secrets.items()}
        pubs[withheld] = commit.x25519_pub
        keys = _withheld_keys(group, table_id, peer_ids, secrets, pubs, withheld,
                              got.locks[withheld], got.reveals)
        position = _corrupt_position(config, group, peer_ids, secrets, withheld, keys,
                                     got.locks)
    except _AuditFailedError as failure:
        return AuditResult(False, failure.seat, failure.reason, failure.check)
    except GroupError:
        return None  # a point the checks of SPEC §2.9 refuse: check_steps names its seat
    if position is None:
        return None
    return AuditResult(False, withheld, f"every other seat's steps reproduce, position "
                       f"{position} is no card, and it never revealed its seed",
                       Check.MISSING)


def _others_reproduce(config: GameConfig, group: DeckGroup, secrets: dict[int, PeerSecrets],
                      shuffles: dict[int, Shuffle], locks: dict[int, Lock]) -> None:
    """Every step of a seat whose seed is known, recomputed from its published input."""
    points = tuple(card_points(config, group))
    for seat in range(len(shuffles)):
        published = shuffles[seat]
        if seat in secrets and steps.shuffle_step(
                secrets[seat], points, group.point_sum(points)) != published:
            raise _AuditFailedError(seat, Check.MISMATCH, "its shuffle does not reproduce")
        points = published.points
    for seat in range(len(locks)):
        if seat in secrets and steps.lock_step(secrets[seat], points) != locks[seat]:
            raise _AuditFailedError(seat, Check.MISMATCH, "its lock does not reproduce")
        points = locks[seat].points


def _corrupt_position(config: GameConfig, group: DeckGroup, peer_ids: list[bytes],
                      secrets: dict[int, PeerSecrets], withheld: int,
                      keys: dict[int, Scalar], locks: dict[int, Lock]) -> int | None:
    """The first position, in deck order, whose card decodes to no card (or to one decoded
    at an earlier position), among those whose withheld key is known; else None."""
    card_of = set(card_points(config, group))
    locked = locks[len(peer_ids) - 1].points
    seen: set[Point] = set()
    for position in sorted(keys):
        scalars = [keys[position] if seat == withheld else secrets[seat].lock_scalar(position)
                   for seat in range(len(peer_ids))]
        point = steps.unlock(group, scalars, locked[position])
        if point not in card_of or point in seen:
            return position
        seen.add(point)
    return None


def _withheld_keys(group: DeckGroup, table_id: bytes, peer_ids: list[bytes],
                   secrets: dict[int, PeerSecrets], pubs: dict[int, bytes], withheld: int,
                   lock: Lock,
                   reveals: list[tuple[int, DeckMessage]]) -> dict[int, Scalar]:
    """The withheld seat's key of each position it revealed, each checked against the K of
    its lock (a key that does not match proves nothing here, and is left out)."""
    seat_ids = dict(enumerate(peer_ids))
    found: dict[int, Scalar] = {}
    for seat, message in reveals:
        if seat != withheld or not isinstance(message, OwnerKey | PublicKey | SharedKeys):
            continue
        if not 0 <= message.position < len(lock.keys) or message.position in found:
            continue
        for key in _keys_in(message, table_id, seat_ids, secrets, pubs, withheld):
            if _is_key(group, key, lock.keys[message.position]):
                found[message.position] = key
                break
    return found


def _keys_in(message: OwnerKey | PublicKey | SharedKeys, table_id: bytes,
             seat_ids: dict[int, bytes], secrets: dict[int, PeerSecrets],
             pubs: dict[int, bytes], withheld: int) -> list[bytes]:
    if not isinstance(message, SharedKeys):
        return [message.key]
    opened: list[bytes] = []
    for recipient, ciphertext in message.shares:
        if recipient not in secrets or recipient == withheld:
            continue
        try:
            # the withheld seat's public X25519 key is in its commitment: the pair key is
            # the one its recipient derived, from the recipient's side
            aead = channel.pair_key(table_id, secrets[recipient].x25519_private,
                                    my_seat=recipient, other_seat=withheld,
                                    peer_ids=seat_ids, x25519_pubs=pubs)
            opened.append(channel.open_share(
                aead, table_id, seat_ids, position=message.position,
                owner_seat=message.owner, sender_seat=withheld, recipient_seat=recipient,
                ciphertext=ciphertext))
        except (channel.ChannelError, KeyError, ValueError):
            continue
    return opened


def _is_key(group: DeckGroup, key: bytes, published: Point) -> bool:
    return (len(key) == 32 and is_canonical_scalar(key) and scalar_to_int(key) != 0
            and checks.key_matches(group, key, published))
