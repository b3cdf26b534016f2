"""The deck part of `log verify` (session/verify.py): the deck messages every seated author
signed, as one transcript, the faces it deals, and its audit made before the replay when
every seed is there."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from hanabi_p2p.deck import AuditResult, DeckMessage, Lock, SeedReveal, audit, decode_message
from hanabi_p2p.deck.derive import PeerSecrets, card_points
from hanabi_p2p.deck.group import DeckGroup, GroupError
from hanabi_p2p.deck.steps import unlock
from hanabi_p2p.errors import HanabiError
from hanabi_p2p.identity import fingerprint
from hanabi_p2p.log.entry import Entry, EntryKind
from hanabi_p2p.rules.cards import Card, GameConfig
from hanabi_p2p.session import bodies as b
from hanabi_p2p.session import kinds as k
from hanabi_p2p.session.deckio import deck_group
from hanabi_p2p.session.kinds import spec_of


@dataclass(frozen=True, slots=True)
class DeckTable:
    """What the deck checks need of a table: from its table.open and lobby.seat."""

    config: GameConfig
    seats: list[bytes]
    group: DeckGroup  # named by table.open (edwards25519 when a 0.2.0 log names none)


def table_and_seats(entries: Sequence[Entry]) -> DeckTable | None:
    """The config and deck group from the first valid table.open and the seat order from
    its author's lobby.seat; None if either is missing or malformed (the replay reports
    why)."""
    opening = next((e for e in entries if e.kind == EntryKind.TABLE_OPEN), None)
    if opening is None:
        return None
    seating = next(
        (e for e in entries if e.kind == EntryKind.LOBBY_SEAT and e.author == opening.author),
        None,
    )
    if seating is None:
        return None
    try:
        opened = k.body_of(opening, k.TABLE_OPEN)
        seats = [seat.peer_id for seat in k.body_of(seating, k.LOBBY_SEAT).seats]
    except HanabiError:
        return None
    if len(seats) != opened.config.players:
        return None
    return DeckTable(opened.config, seats, deck_group(opened.deck_group))


def deck_transcript(
    entries: Sequence[Entry],
) -> tuple[list[tuple[int, DeckMessage]], DeckTable | None]:
    """Every deck message published by a seated author, as (seat, message), once each.

    Entries whose deck messages do not decode are skipped here: the replay rejects them and
    reports why (the observer decodes the same messages)."""
    table = table_and_seats(entries)
    if table is None:
        return [], None
    seat_of = {peer_id: seat for seat, peer_id in enumerate(table.seats)}
    transcript: list[tuple[int, DeckMessage]] = []
    seen: set[tuple[int, DeckMessage]] = set()
    for entry in entries:
        seat = seat_of.get(entry.author)
        spec = spec_of(entry.kind)
        if seat is None or spec is None or not spec.carries_deck:
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


def preview_faces(
    transcript: list[tuple[int, DeckMessage]],
    table: DeckTable | None,
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
    config, seats, group = table.config, table.seats, table.group
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
    secrets = [PeerSecrets(table_id, peer_id, seeds[seat], group)
               for seat, peer_id in enumerate(seats)]
    card_of = dict(zip(card_points(config, group), config.deck_faces(), strict=True))
    faces: dict[int, Card] = {}
    try:
        for position, point in enumerate(locked):
            card = card_of.get(unlock(group, [s.lock_scalar(position) for s in secrets], point))
            if card is None:
                return None
            faces[position] = card
    except GroupError:
        return None
    if Counter(faces.values()) != Counter(config.deck_faces()):
        return None
    return faces


def audit_first(
    transcript: list[tuple[int, DeckMessage]], table: DeckTable | None, table_id: bytes | None,
) -> AuditResult | None:
    """The deck audit of every signed entry's deck messages, before the replay, when every
    seat revealed its seed (else None, as when the audit cannot be run on them at all).

    When it passes, its faces are the preview's (`preview_faces` decodes the same way, from
    the same seeds and last lock, and an audit that passed decoded every card once), so the
    replay is checked against them and the preview is not made; and when the replay refuses
    no entry, `_settle_audit` takes this result rather than audit the same transcript again.
    When it fails, the preview's faces are used, as if it had not been made."""
    if table is None or table_id is None:
        return None
    revealed = {seat for seat, message in transcript if isinstance(message, SeedReveal)}
    if len(revealed) != len(table.seats):
        return None
    try:
        return audit(table.config, table_id, table.seats, transcript, group=table.group)
    except (ValueError, HanabiError):
        return None  # (the audit of `_settle_audit` meets it again, and says so)
