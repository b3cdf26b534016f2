"""Build the verdict vectors (protocol/vectors/verdicts/verdicts-v1.json, SPEC 5.7 and 6.4).

Issue 14 asked for a valid and a not-valid log for every rule of SPEC 5.4-5.7 that two
honest implementations could read differently, with the expected verdict and first bad
entry. Short real games are played by the in-memory harness (fixed identities, deck seeds,
scripted moves and first-in-first-out delivery); each case is one of them with entries
dropped (by hash) and added (bytes): a cheater's rewritten chain is re-signed with its own
key, so only the game rules catch it.

The base games are 0.2.0 games (SPEC 6.4): their decks run in edwards25519 and their
table.open names no group. They are played in that group on purpose, whatever group live
tables use now, so that the file stays what it is: verdicts on old games, which every
verifier must still give. Nothing in them depends on a computer player's choices.

Run `.venv/bin/python tests/protocol/make_verdict_vectors.py` to rewrite the file, only with
a deliberate protocol change; test_verdict_vectors.py checks the code against it and that
this program still rebuilds it byte for byte.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

SESSION_TESTS = Path(__file__).resolve().parents[1] / "session"
if str(SESSION_TESTS) not in sys.path:  # the harness lives beside the session tests
    sys.path.insert(0, str(SESSION_TESTS))

from make_game_vector import public_state  # noqa: E402
from session_harness import TABLE_ID, Peer, Table, bot_action  # noqa: E402

from hanabi_p2p.deck.messages import PublicKey, Shuffle  # noqa: E402
from hanabi_p2p.deck.peer import DeckPeer  # noqa: E402
from hanabi_p2p.identity import Identity, fingerprint  # noqa: E402
from hanabi_p2p.log import canonical  # noqa: E402
from hanabi_p2p.log.entry import Entry, make_entry  # noqa: E402
from hanabi_p2p.log.replica import Replica, Status  # noqa: E402
from hanabi_p2p.log.storage import GameFile  # noqa: E402
from hanabi_p2p.rules.actions import Clue, Discard, Play  # noqa: E402
from hanabi_p2p.rules.cards import GameConfig  # noqa: E402
from hanabi_p2p.rules.engine import GameState  # noqa: E402
from hanabi_p2p.session.bodies import (  # noqa: E402
    ActionBody,
    Address,
    DeckGroupName,
    TableOpen,
)
from hanabi_p2p.session.table import TableSession  # noqa: E402
from hanabi_p2p.session.verify import GameReport, verify_game  # noqa: E402

VECTOR_PATH = (
    Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "verdicts" / "verdicts-v1.json"
)
OPTIONS = ("all_or_nothing", "empty_clues")
EXTRA_SEED = b"\x09" * 32  # the joiner who is never seated
CREATED = 1_700_000_000
# The group of every base game: 0.2.0's, which the file's logs were written in (SPEC 6.4).
BASE_DECK_GROUP = DeckGroupName.EDWARDS25519
# Each base game's deck seeds, one per seat: what the harness drew (random.Random(1), (2)
# and (3)) when the file was written, kept here so that no change to the harness moves them.
DECK_SEEDS = {
    "short-2p": (
        "f5b165224a58b791df6af1d8303e61cdc4bb86c3d1c427103c344c4189eb2f1e",
        "7bd5d47e446fcec2a3d811736110e5781bcccea696762e6116c6e9c92d99bf35",
    ),
    "first-turn-resignation-3p": (
        "73a9bef499bbf4dc7bd2a4f2c8af5bd99f267a0ed3197217dd2bba1537436e5c",
        "2441e3d54410492b788768bcff2218cf8f7373abe8e394daf807e24e58c36740",
        "2e281f9bddf85336d15b579b74e4250950c9c994752666ae81c78b283592edff",
    ),
    "lobby-extra-joiner-2p": (
        "fd3feb3c9250b7974a9b528b69636321a461b55ef55b7beafd809a9a9e925b79",
        "a6342fa0fdb8b294d97fc6103d92089b25fa5e039f52a8e8a95f64d6589c1f78",
    ),
    "abandoned-2p": ("ab" * 32, "cd" * 32),  # (issue 29 case 8: chosen, not drawn)
}
# Issue 29's base: a 3-player game whose last seat forges its shuffle (deck seeds derived
# from the base's name, fixed like the others').
DECK_SEEDS["forged-shuffle-3p"] = tuple(
    hashlib.sha256(f"forged-shuffle-3p/seat/{seat}".encode()).hexdigest() for seat in range(3))
FORGER = 2  # the seat that forges its phase-1 shuffle in "forged-shuffle-3p"
DECK_SEEDS["forked-action-3p"] = tuple(
    hashlib.sha256(f"forked-action-3p/seat/{seat}".encode()).hexdigest() for seat in range(3))
FORKER = 2  # the seat that signs two versions of its first action in "forked-action-3p"
EXTRA_DECK_SEED = b"\x01" * 32


def identity_seed(seat: int) -> bytes:
    """The harness's identity seed for a seat."""
    return bytes([seat + 1]) * 32


def applied(table: Table) -> list[Entry]:
    """Every entry any peer applied, once each, in a fixed order."""
    seen = {e.hash: e for p in table.peers for e in p.replica.applied}
    return sorted(seen.values(), key=lambda e: e.hash)


# ---- base games


def old_session(identity: Identity, deck_seed: bytes, host_id: bytes) -> TableSession:
    """A session that takes part in a 0.2.0 table (which live peers refuse, SPEC 5.1)."""
    return TableSession(identity, TABLE_ID, seed=deck_seed, host_id=host_id,
                        old_deck_groups=True)


def old_table(base: str, config: GameConfig) -> Table:
    """The harness's peers with this file's identities and deck seeds for `base`, in the
    group of 0.2.0 games, every entry delivered first in, first out."""
    table = Table(config, shuffle=False)
    host_id = Identity.from_seed(identity_seed(0)).peer_id
    for seat, deck_seed in enumerate(DECK_SEEDS[base]):
        identity = Identity.from_seed(identity_seed(seat))
        session = old_session(identity, bytes.fromhex(deck_seed), host_id)
        table.peers[seat] = Peer(identity, session, Replica(TABLE_ID, session))
    return table


def open_old_table(table: Table, name: str) -> None:
    """The host opens the table as 0.2.0 did: its table.open names no group (a live
    session's open_table would name ristretto255)."""
    host = table.peers[0]
    body = TableOpen(name, "p0", table.config, deck_group=BASE_DECK_GROUP).to_wire()
    assert "group" not in body
    seq, prev = host.replica.next_link(host.identity.peer_id)
    entry = make_entry(host.identity, table_id=TABLE_ID, seq=seq, prev=prev, turn=0,
                       kind="table.open", body=body)
    assert host.replica.add(entry).status is Status.ACCEPTED
    table.send(host, entry)
    table.pump()


def seat_everyone(table: Table) -> None:
    """What the harness's seat_everyone does, with the table opened as 0.2.0 did."""
    open_old_table(table, "test table")
    for seat, peer in enumerate(table.peers[1:], start=1):
        peer.session.request_seat(f"p{seat}", Address("127.0.0.1", 40000 + seat))
    table.pump()
    table.peers[0].session.seat_players(Address("127.0.0.1", 40000))
    table.pump()


def forgetful_public_hash(state: GameState) -> bytes:
    """The public hash of `state` (SPEC 5.5, written from the text) computed as if clue
    records left with their card, which is what item 12 says is wrong."""
    public = public_state(state)
    assert hashlib.sha256(canonical.pack(public)).digest() == state.public_hash(), \
        "SPEC 5.5's public state encoding no longer matches the engine"
    in_hands = {card for hand in state.hands for card in hand}
    *rest, clued = public  # the clue records come last (SPEC 5.5)
    kept = [[card, records] for card, records in clued if card in in_hands]
    assert kept != clued, "no card that left a hand had a clue record to forget"
    return hashlib.sha256(canonical.pack([*rest, kept])).digest()


def short_game() -> tuple[list[Entry], bytes]:
    """2 players, all_or_nothing + empty_clues. Turn 1: p0 clues p1 a number touching p1's
    newest card; turn 2: p1 discards that clued card; turn 3: p0 clues again; turn 4: p1
    resigns. Also returns the public hash at the start of turn 3 computed as if clue records
    left with their card (what item 12 says is wrong)."""
    table = old_table("short-2p", GameConfig.from_names(2, "standard", OPTIONS))
    seat_everyone(table)
    p0, p1 = (p.session for p in table.peers)
    assert p0.state is not None
    card = p0.state.hands[1][0]
    face = p0.state.faces[card]
    assert face is not None
    p0.take_action(Clue(0, 1, rank=face.rank))
    table.pump()
    p1.take_action(Discard(1, card))
    table.pump()
    forgetful_hash = forgetful_public_hash(p0.state)
    other = p0.state.hands[1][0]
    other_face = p0.state.faces[other]
    assert other_face is not None
    p0.take_action(Clue(0, 1, rank=other_face.rank))
    table.pump()
    p1.resign("time for bed")
    table.pump()
    assert p0.audit is not None and p0.audit.ok
    return applied(table), forgetful_hash


def first_turn_resignation() -> list[Entry]:
    """3 players; p0 resigns at turn 1, right after the deal (envelope turn 0)."""
    table = old_table("first-turn-resignation-3p", GameConfig(3))
    seat_everyone(table)
    table.peers[0].session.resign("changed my mind")
    table.pump()
    assert table.peers[0].session.audit is not None
    return applied(table)


def lobby_with_an_extra_joiner() -> list[Entry]:
    """2 players and a third joiner who is never seated; the extra and p1 talk in the
    lobby; p0 resigns at turn 1."""
    table = old_table("lobby-extra-joiner-2p", GameConfig(2))
    extra_id = Identity.from_seed(EXTRA_SEED)
    extra = old_session(extra_id, EXTRA_DECK_SEED, table.peers[0].identity.peer_id)
    table.peers.append(Peer(extra_id, extra, Replica(TABLE_ID, extra)))
    host, bob = table.peers[0].session, table.peers[1].session
    open_old_table(table, "verdict table")
    bob.request_seat("p1", Address("192.0.2.1", 4001))
    table.pump()
    extra.request_seat("late", Address("192.0.2.9", 4009))
    table.pump()
    bob.say("hello")
    extra.say("room for one more?")
    table.pump()
    host.seat_players(Address("192.0.2.0", 4000))
    table.pump()
    host.resign("short game")
    table.pump()
    assert host.audit is not None and extra.my_seat is None
    return applied(table)


@contextmanager
def forging_shuffle(seat: int) -> Iterator[None]:
    """While it lasts, the DeckPeer of ``seat`` moves one base point from its shuffle's
    first point to its second: the sum, and so the sum proof, is unchanged (SPEC 2.9)."""
    made = DeckPeer._make_shuffle

    def forged(self: DeckPeer) -> Shuffle:
        honest = made(self)
        if self.my_seat != seat:
            return honest
        g = self.group
        points = list(honest.points)
        points[0] = g.add(points[0], g.base_point)
        points[1] = g.sub(points[1], g.base_point)
        return dataclasses.replace(honest, points=tuple(points))

    DeckPeer._make_shuffle = forged  # type: ignore[method-assign]
    try:
        yield
    finally:
        DeckPeer._make_shuffle = made  # type: ignore[method-assign]


def forged_shuffle() -> list[Entry]:
    """3 players; the last seat forges its shuffle keeping the sum. The first two cards of
    the deck (seat 0's hand) decode to no card at seats 1 and 2 when the deal comes in:
    they stop the game blaming nobody (SPEC 2.9), and every seat publishes its seed."""
    with forging_shuffle(FORGER):
        table = old_table("forged-shuffle-3p", GameConfig(3))
        seat_everyone(table)
    for peer in table.peers:
        assert peer.session.blamed is None and peer.session.abort_reason is not None
        assert "the deck is corrupt" in peer.session.abort_reason
    honest = table.peers[0].session.audit
    assert honest is not None and honest.blamed_seat == FORGER
    return applied(table)


def forked_action() -> list[Entry]:
    """3 players at a protocol-4 table (ristretto255, acks and actions name the action they
    answer or follow): at turn 3 the last seat signs two legal versions of its action, its
    own for seat 0 and a discard of another card for seat 1. Each acks its version; seat 0
    then acts, following its version. No peer here compares heads (no network): the log is
    the union of what every peer applied, both versions included."""
    table = Table(GameConfig(3), shuffle=False)
    host_id = Identity.from_seed(identity_seed(0)).peer_id
    for seat, deck_seed in enumerate(DECK_SEEDS["forked-action-3p"]):
        identity = Identity.from_seed(identity_seed(seat))
        session = TableSession(identity, TABLE_ID, seed=bytes.fromhex(deck_seed),
                               host_id=host_id)
        table.peers[seat] = Peer(identity, session, Replica(TABLE_ID, session))
    table.seat_everyone()
    for _ in range(FORKER):
        actor = next(p for p in table.peers if p.session.can_act())
        actor.session.take_action(bot_action(actor.session))  # type: ignore[arg-type]
        table.pump()
    forker = table.peers[FORKER]
    honest_send = table.send

    def send(peer: Peer, entry: Entry) -> None:
        if peer is not forker or entry.kind != "action":
            honest_send(peer, entry)
            return
        table.peers[0].inbox.append(entry)
        table.peers[1].inbox.append(other_version(forker, entry))

    table.send = send  # type: ignore[method-assign]
    forker.session.take_action(bot_action(forker.session))  # type: ignore[arg-type]
    table.pump()
    table.send = honest_send  # type: ignore[method-assign]
    first = table.peers[0].session
    assert first.can_act()
    first.take_action(bot_action(first))  # type: ignore[arg-type]
    table.pump()
    assert all(p.session.blamed is None for p in table.peers)
    return applied(table)


def other_version(forker: Peer, entry: Entry) -> Entry:
    """A legal discard of another card than the action's, with its own keys, under the
    same (author, seq)."""
    session = forker.session
    state, deck = session.state, session.deck
    assert state is not None and deck is not None and deck.peer is not None
    seat = FORKER
    body = ActionBody.unseated(entry.body).for_seat(seat)
    assert state.clue_tokens < 8 and state.draw_index < state.config.deck_size
    taken = body.action.card if isinstance(body.action, Play | Discard) else None
    card = [c for c in state.hands[seat] if c != taken][-1]
    msgs = [m.to_wire() for m in [*deck.peer.public_share(card),
                                  *deck.peer.deal_shares(state.draw_index, seat)]]
    twin = ActionBody(Discard(seat, card), body.state_hash, tuple(msgs), body.after)
    return make_entry(forker.identity, table_id=TABLE_ID, seq=entry.seq, prev=entry.prev,
                      turn=entry.turn, kind="action", body=twin.to_wire())


# ---- rewriting a chain (what a cheater who edits its own history can do)


def chain_of(log: Sequence[Entry], author: bytes) -> list[Entry]:
    return sorted((e for e in log if e.author == author), key=lambda e: e.seq)


def rewrite(log: Sequence[Entry], seat: int, target: Entry, *, body: Any = None,
            turn: int | None = None, insert: tuple[str, int, Any] | None = None
            ) -> tuple[list[Entry], list[Entry]]:
    """Re-sign `seat`'s chain from `target` on with `target` changed (or, with `insert`, a
    new entry (kind, turn, body) placed before it). Returns (dropped, added)."""
    identity = Identity.from_seed(identity_seed(seat))
    chain = chain_of(log, identity.peer_id)
    tail = [e for e in chain if e.seq >= target.seq]
    specs: list[tuple[str, int, Any]] = []
    if insert is not None:
        specs.append(insert)
    for entry in tail:
        if entry.hash == target.hash and insert is None:
            specs.append((entry.kind, entry.turn if turn is None else turn,
                           entry.body if body is None else body))
        else:
            specs.append((entry.kind, entry.turn, entry.body))
    prev = chain[target.seq - 1].hash if target.seq else bytes(32)
    added = []
    for offset, (kind, at, new_body) in enumerate(specs):
        entry = make_entry(identity, table_id=TABLE_ID, seq=target.seq + offset, prev=prev,
                           turn=at, kind=kind, body=new_body)
        added.append(entry)
        prev = entry.hash
    return tail, added


def renamed(log: Sequence[Entry], *, seat_names_second: bool
            ) -> tuple[list[Entry], list[Entry]]:
    """p1 first asked for a seat as "root", then again as "p1" (its chain one longer);
    the host's seating names the second request (`join` 1), or leaves it out (the first)."""
    first = find(log, 1, "lobby.join")
    dropped, added = rewrite(log, 1, first,
                             insert=("lobby.join", 0, {**first.body, "name": "root"}))
    if not seat_names_second:
        return dropped, added
    seating = find(log, 0, "lobby.seat")
    seats = [[*seat, 1] if i == 1 else seat for i, seat in enumerate(seating.body["seats"])]
    host_dropped, host_added = rewrite(log, 0, seating, body={"seats": seats})
    return dropped + host_dropped, added + host_added


def append(log: Sequence[Entry], seat: int, kind: str, turn: int, body: Any) -> Entry:
    identity = Identity.from_seed(identity_seed(seat))
    last = chain_of(log, identity.peer_id)[-1]
    return make_entry(identity, table_id=TABLE_ID, seq=last.seq + 1, prev=last.hash,
                      turn=turn, kind=kind, body=body)


def find(log: Sequence[Entry], seat: int, kind: str, turn: int | None = None,
         where: Callable[[Entry], bool] = lambda e: True) -> Entry:
    author = Identity.from_seed(identity_seed(seat)).peer_id
    return next(e for e in sorted(log, key=lambda e: e.seq) if e.author == author
                and e.kind == kind and (turn is None or e.turn == turn) and where(e))


# ---- the document


def first_bad(report: GameReport) -> dict[str, Any] | None:
    if not report.problems:
        return None
    p = report.problems[0]
    return {"author": p.author.hex() if p.author else None, "seq": p.seq, "kind": p.kind,
            "record": p.record, "reason": p.reason}


def case(name: str, item: int, spec: str, base: str, bases: dict[str, list[Entry]],
         dropped: Sequence[Entry] = (), added: Sequence[Entry] = (), phrase: str = "",
         issue: int = 14, claims: bool = False) -> dict[str, Any]:
    """One case; ``item`` is its number in ``issue`` (14, or 29 for the cases a seated
    cheater's attacks added; only those write their issue)."""
    drop = {e.hash for e in dropped}
    log = [e for e in bases[base] if e.hash not in drop] + list(added)
    report = verify_game(log)
    bad = first_bad(report)
    # a case named for a broken rule must be found breaking it (and only such a case)
    assert (bad is None) == (not phrase), (name, report.verdict, bad)
    if bad is not None:
        assert phrase and phrase in bad["reason"], (name, bad)
        bad["reason_contains"] = phrase
        del bad["reason"]
    said = {"claims": claims_of(report)} if claims else {}
    return {"name": name, "item": item, **({"issue": issue} if issue != 14 else {}),
            "spec": spec, "base": base,
            "drop": sorted(e.hash.hex() for e in dropped),
            "add": [e.encoded.hex() for e in added],
            "verdict": report.verdict.value, "first_bad": bad, **said, "digest": report.digest}


def claims_of(report: GameReport) -> list[dict[str, Any]]:
    """Each seed that stopped the game blaming someone: its author, whom it blames, and
    whether the log supports it (a problem of the log names that peer, SPEC 5.7)."""
    return [{"author": c.author.hex(), "blame": c.blame.hex() if c.blame else None,
             "supported": any(p.author == c.blame for p in report.problems)}
            for c in report.claims]


def issue_29_cases(bases: dict[str, list[Entry]]) -> list[dict[str, Any]]:
    """Issue 29: what a seated cheater does must never get an honest player named."""
    f = bases["forged-shuffle-3p"]
    s = bases["short-2p"]
    clue = find(s, 0, "action", 0)
    kind, target, named, value, touched = clue.body["act"]
    hand = range(5, 10)  # p1's hand at turn 1 (SPEC 5.3: seat 1 holds positions H..2H-1)
    false_touched = sorted({*touched, min(set(hand) - set(touched))})
    return [
        # case 1: a card that does not decode stops the game blaming nobody; the audit
        # names the seat whose step does not reproduce, and a seed kept back hides nothing
        case("a forged shuffle, every seed revealed", 1, "2.9, 2.10, 5.7",
             "forged-shuffle-3p", bases, phrase="its shuffle does not reproduce", issue=29),
        case("a forged shuffle whose forger keeps its seed back", 1, "2.9, 5.7",
             "forged-shuffle-3p", bases, dropped=[find(f, FORGER, "seed")],
             phrase="never revealed its seed", issue=29),
        case("a forged shuffle and an honest seat's seed missing", 1, "2.9, 5.7",
             "forged-shuffle-3p", bases, dropped=[find(f, 0, "seed")],
             phrase="its shuffle does not reproduce", issue=29),
        # case 2: two legal versions of one action, each acked by one honest player, who
        # then follows it: only the forker is named; the answers to the version not
        # replayed wait (they name it), never refused (SPEC 5.4 forks, 5.7 step 1)
        case("two legal versions of one action, each answered", 2, "3.6, 5.4, 5.7",
             "forked-action-3p", bases, phrase="equivocation", issue=29),
        # case 6: a seed's reason is its author's claim, never the verdict; the verifier
        # says whether the log supports whom it blames
        case("a seed blaming an honest player", 6, "5.1, 5.7", "short-2p", bases,
             *rewrite(s, 1, find(s, 1, "seed"), body={
                 **find(s, 1, "seed").body, "reason": "p0 refused by the game: wrong-key",
                 "blame": Identity.from_seed(identity_seed(0)).peer_id}),
             issue=29, claims=True),
        # case 9: the refused entry that proves a cheat is kept by every honest copy, and
        # names its author there (SPEC 5.5)
        case("a second, different seed kept as evidence", 9, "5.5, 5.7", "short-2p", bases,
             added=[append(s, 1, "seed", 4, {"deck": [["deck.seed", bytes(range(32))]]})],
             phrase="revealed its seed twice", issue=29),
        # case 5: a clue naming a card it does not touch, which no player but its giver
        # could check in a 2-player game: the audited faces show it (the live end too)
        case("a false clue in a 2-player game", 5, "5.3, 5.5, 5.7", "short-2p", bases,
             *rewrite(s, 0, clue, body={**clue.body, "act": [kind, target, named, value,
                                                              false_touched]}),
             phrase="clue touches", issue=29),
    ]


# ---- issue 29 case 3: moves and table talk per turn (SPEC 3.6 batch application, 5.5)

SIDE_POSTS_ITEM = 29  # issue 29's cases, beside issue 14's items


def with_inserted(log: Sequence[Entry], seat: int,
                  before: dict[int, list[tuple[str, int, Any]]]) -> tuple[list[Entry], list[Entry]]:
    """Re-sign `seat`'s chain with new entries (kind, turn, body) put before some of its
    entries (by seq; one past the last seq appends). Returns (dropped, added)."""
    identity = Identity.from_seed(identity_seed(seat))
    chain = chain_of(log, identity.peer_id)
    start = min(before)
    tail = [e for e in chain if e.seq >= start]
    specs: list[tuple[str, int, Any]] = []
    for seq in range(start, len(chain) + 1):
        specs.extend(before.get(seq, []))
        if seq < len(chain):
            specs.append((chain[seq].kind, chain[seq].turn, chain[seq].body))
    prev = chain[start - 1].hash if start else bytes(32)
    added = []
    for offset, (kind, at, body) in enumerate(specs):
        entry = make_entry(identity, table_id=TABLE_ID, seq=start + offset, prev=prev,
                           turn=at, kind=kind, body=body)
        added.append(entry)
        prev = entry.hash
    return tail, added


def side_post_cases(bases: dict[str, list[Entry]]) -> list[dict[str, Any]]:
    """p1 of the short game fidgets and talks: at most 64 moves and 256 chat lines between
    two of its other entries are valid, one more is its fault; and a valid log with more
    of one author's entries than a live peer may hold (512) verifies valid (a verifier has
    no holding limit)."""
    from hanabi_p2p.session.pace import MAX_CHATS_PER_TURN, MAX_MOVES_PER_TURN

    s = bases["short-2p"]
    action = find(s, 1, "action", 1)
    ack = find(s, 1, "ack", 0)
    resign = find(s, 1, "resign")
    own_card = action.body["act"][1]  # a card in p1's hand at turn 2 (it discards it)

    def moves(count: int, turn: int) -> list[tuple[str, int, Any]]:
        return [("move", turn, {"card": own_card, "to": i % 2}) for i in range(count)]

    def chats(count: int, turn: int) -> list[tuple[str, int, Any]]:
        return [("chat", turn, {"text": f"line {i}"}) for i in range(count)]

    many = 200  # per gap: 600 chat lines of p1 in all, over three of its turns
    return [
        case("as many moves as one turn allows", SIDE_POSTS_ITEM, "5.5", "short-2p", bases,
             *with_inserted(s, 1, {action.seq: moves(MAX_MOVES_PER_TURN, 1)})),
        case("one move more than one turn allows", SIDE_POSTS_ITEM, "5.5", "short-2p", bases,
             *with_inserted(s, 1, {action.seq: moves(MAX_MOVES_PER_TURN + 1, 1)}),
             phrase=f"moved cards more than {MAX_MOVES_PER_TURN} times in one turn"),
        case("one chat line more than one turn allows", SIDE_POSTS_ITEM, "5.5", "short-2p",
             bases, *with_inserted(s, 1, {action.seq: chats(MAX_CHATS_PER_TURN + 1, 1)}),
             phrase=f"said more than {MAX_CHATS_PER_TURN} lines in one turn"),
        case("more entries of one author than a live peer holds, each turn within its limits",
             SIDE_POSTS_ITEM, "3.6, 5.5", "short-2p", bases,
             *with_inserted(s, 1, {ack.seq: chats(many, 0), action.seq: chats(many, 1),
                                   resign.seq: chats(many, 3)})),
    ]


# ---- issue 29 case 8: ending a game by agreement (SPEC 5.3, 5.4, 5.7)

ABANDON_ITEM = 29


def abandoned_game() -> list[Entry]:
    """2 players: p0 clues at turn 1 and asks to end the game; p1, to move at turn 2,
    agrees: its vote ends the game there, in place of its action."""
    table = old_table("abandoned-2p", GameConfig(2))
    seat_everyone(table)
    p0, p1 = (p.session for p in table.peers)
    assert p0.state is not None
    card = p0.state.hands[1][0]
    face = p0.state.faces[card]
    assert face is not None
    p0.take_action(Clue(0, 1, rank=face.rank))
    table.pump()
    p0.abandon()
    table.pump()
    p1.abandon()
    table.pump()
    assert p0.abandoned_at == 1 and p0.audit is not None and p0.audit.ok
    return applied(table)


def abandon_cases(bases: dict[str, list[Entry]]) -> list[dict[str, Any]]:
    a = bases["abandoned-2p"]
    vote = find(a, 0, "abandon")
    return [
        case("a game ended by agreement", ABANDON_ITEM, "5.3, 5.7", "abandoned-2p", bases),
        case("the end vote of a seat that is not to move", ABANDON_ITEM, "5.4", "abandoned-2p",
             bases, *rewrite(a, 0, vote, body={"end": True}), phrase="can never apply"),
        case("a second vote of one seat", ABANDON_ITEM, "5.5", "abandoned-2p", bases,
             added=[append(a, 0, "abandon", 1, {"end": False})],
             phrase="asked twice to end the game by agreement"),
    ]


def game_file(entries: Sequence[Entry], tail: bytes) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "game.hlog"
        with GameFile.create(path, TABLE_ID, created=CREATED, name="verdict table") as game:
            for entry in entries:
                game.append(entry)
        return path.read_bytes() + tail


def build() -> dict[str, Any]:
    short, forgetful_hash = short_game()
    bases = {"short-2p": short, "first-turn-resignation-3p": first_turn_resignation(),
             "lobby-extra-joiner-2p": lobby_with_an_extra_joiner(),
             "forged-shuffle-3p": forged_shuffle(),
             "forked-action-3p": forked_action()}
    s = bases["short-2p"]
    r = bases["first-turn-resignation-3p"]
    lobby = bases["lobby-extra-joiner-2p"]
    seeds = [e for e in s if e.kind == "seed"]
    wrong_hash = rewrite(s, 1, find(s, 1, "action", 1), body={
        **find(s, 1, "action", 1).body, "hash": bytes(32)})
    cases = [
        case("valid short game", 0, "5.7", "short-2p", bases),
        # item 1: one stage per kind; a resignation applies at its author's own turn only
        case("resignation at the first turn", 1, "5.4", "first-turn-resignation-3p", bases),
        case("resignation for a turn that is not the resigner's", 1, "5.4",
             "first-turn-resignation-3p", bases,
             *rewrite(r, 0, find(r, 0, "resign"), turn=1), phrase="can never apply"),
        # item 2: outsiders are set aside, never judged
        case("lobby chat by a joiner never seated", 2, "3.6, 5.7", "lobby-extra-joiner-2p",
             bases),
        # issue 30, item 1: a copy that never held the outsider's entries (it joined after
        # the host removed it) has the same digest as one that did (SPEC 3.7)
        case("a copy without the entries of a joiner never seated", 1, "3.7",
             "lobby-extra-joiner-2p", bases, issue=30, dropped=[
                 e for e in lobby if e.author == Identity.from_seed(EXTRA_SEED).peer_id]),
        case("a seated player's lobby chat with a blank text", 2, "5.1", "lobby-extra-joiner-2p",
             bases, *rewrite(lobby, 1, find(lobby, 1, "chat"), body={"text": " "}),
             phrase="must not be empty"),
        # item 3 and 9: every deck message audited; no reveal the game never called for
        case("a public key the game never called for, after the last seed", 3, "5.5, 5.7",
             "short-2p", bases, added=[append(s, 1, "deck", 0, {"deck": [PublicKey(
                 find(s, 1, "action", 1).body["act"][1], (5).to_bytes(32, "little")
             ).to_wire()]})], phrase="a deck entry holds its author's deck steps"),
        # item 4: the seating repeats each joiner's name and address
        case("seating that changes a joiner's address", 4, "5.5", "short-2p", bases,
             *rewrite(s, 0, find(s, 0, "lobby.seat"), body={"seats": [
                 [*seat[:2], "198.51.100.7", seat[3]] if i == 1 else seat
                 for i, seat in enumerate(find(s, 0, "lobby.seat").body["seats"])]}),
             phrase="changed p1's name or address at seating"),
        # issue 30, item 4: a joiner asks again under another name before the seating; the
        # seat names the request it repeats (SPEC 5.1 `join`, 5.3)
        case("a joiner that asked again under another name, seated under it", 4, "5.1, 5.3",
             "short-2p", bases, *renamed(s, seat_names_second=True), issue=30),
        case("a seating with a joiner's second name, naming its first request", 4, "5.5",
             "short-2p", bases, *renamed(s, seat_names_second=False), issue=30,
             phrase="changed root's name or address at seating"),
        # item 5: options once each, in protocol order
        case("options in the wrong order", 5, "5.1", "short-2p", bases,
             *rewrite(s, 0, find(s, 0, "table.open"), body={
                 **find(s, 0, "table.open").body, "options": list(reversed(OPTIONS))}),
             phrase="options must be listed once each"),
        # item 6: only a resign may give a blank reason
        case("a seed with an empty reason", 6, "5.1", "short-2p", bases,
             *rewrite(s, 1, find(s, 1, "seed"), body={**find(s, 1, "seed").body, "reason": ""}),
             phrase="must not be empty"),
        # item 8: the stuck entry itself is named, not one waiting behind it
        case("a resignation that can never apply", 8, "5.7", "short-2p", bases,
             *rewrite(s, 1, find(s, 1, "resign"), turn=9), phrase="can never apply"),
        # item 9: incomplete reveals
        case("a discard without its owner key for the replacement", 9, "5.3, 5.5", "short-2p",
             bases, *rewrite(s, 1, find(s, 1, "action", 1), body={
                 **find(s, 1, "action", 1).body,
                 "deck": find(s, 1, "action", 1).body["deck"][:1]}),
             phrase="not the ones the game calls for"),
        case("an answer to a discard with no key shares", 9, "5.3, 5.5", "short-2p", bases,
             *rewrite(s, 0, find(s, 0, "ack", 1), body={
                 **find(s, 0, "ack", 1).body, "deck": []}),
             phrase="not the ones the game calls for"),
        # item 10: in an action the state hash is checked before the rules
        case("an illegal action that also reports a wrong hash", 10, "5.5", "short-2p", bases,
             *rewrite(s, 1, find(s, 1, "action", 1), body={
                 **find(s, 1, "action", 1).body, "act": ["discard", 59],
                 "hash": bytes(32)}), phrase="diverged at turn 2"),
        # item 11: white space is the White_Space property, not a language's isspace
        case("a chat that is not blank (a zero-width space)", 11, "5.1", "short-2p", bases,
             added=[append(s, 0, "chat", 4, {"text": "\u200b"})]),
        case("a chat made only of White_Space characters", 11, "5.1", "short-2p", bases,
             added=[append(s, 0, "chat", 4, {"text": "\u3000\u2003\u00a0"})],
             phrase="must not be empty"),
        # item 12: clue records stay with a card after it leaves the hand
        case("a hash that forgets the clues of a discarded card", 12, "5.5", "short-2p",
             bases, *rewrite(s, 1, find(s, 1, "ack", 2), body={
                 **find(s, 1, "ack", 2).body, "hash": forgetful_hash}),
             phrase="diverged at turn 3"),
        # item 13: without every seed (no faces) the turns are still checked as far as
        # public reveals go, so a wrong hash is found all the same
        case("a game without its seeds: every turn checked, unfinished", 13, "5.7",
             "short-2p", bases, dropped=seeds),
        case("a wrong hash in a game without its seeds", 13, "5.7", "short-2p", bases,
             dropped=[*seeds, *wrong_hash[0]],
             added=[e for e in wrong_hash[1] if e.kind != "seed"],
             phrase="diverged at turn 2"),
    ]
    cases += side_post_cases(bases)
    bases["abandoned-2p"] = abandoned_game()
    cases += abandon_cases(bases)
    cases += issue_29_cases(bases)
    last = max((e for e in s if e.kind == "seed"), key=lambda e: e.hash)
    rest = [e for e in s if e is not last]
    whole = game_file([*rest, last], b"")
    files = [
        {"name": "a zero-filled tail after a whole game", "item": 7, "spec": "3.8, 5.7",
         "file": (whole + bytes(300)).hex(), "verdict": "valid", "torn_tail_bytes": 300},
        {"name": "the last record torn off mid-way", "item": 7, "spec": "3.8, 5.7",
         "file": whole[:len(whole) - 40].hex(), "verdict": "unfinished",
         "torn_tail_bytes": len(last.encoded) + 8 - 40},
    ]
    return {
        "description": (
            "hanabi-p2p verdict vectors for protocol/SPEC.md 5.4-5.7 (issue 14). A case's "
            "log is its base's entries minus 'drop' (entry hashes) plus 'add' (entry "
            "bytes), in any order: every permutation MUST give the same verdict, first bad "
            "entry (author, seq, kind, and a phrase of the reference's reason) and digest. "
            "'files' are whole game files (SPEC 3.8) with their verdict and torn tail."
        ),
        "table_id": TABLE_ID.hex(),
        "identities": {f"p{seat}": {"seed": identity_seed(seat).hex(), "fingerprint":
                                    fingerprint(Identity.from_seed(identity_seed(seat)).peer_id)}
                       for seat in range(3)}
        | {"late": {"seed": EXTRA_SEED.hex(),
                    "fingerprint": fingerprint(Identity.from_seed(EXTRA_SEED).peer_id)}},
        "bases": {name: [e.encoded.hex() for e in log] for name, log in bases.items()},
        "cases": cases,
        "files": files,
    }


def render(doc: dict[str, Any]) -> str:
    """The file's text: what test_verdict_vectors.py compares with the stored file."""
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def main() -> None:
    doc = build()
    VECTOR_PATH.parent.mkdir(parents=True, exist_ok=True)
    VECTOR_PATH.write_text(render(doc), encoding="utf-8")
    print(f"wrote {VECTOR_PATH}")
    for c in doc["cases"]:
        bad = c["first_bad"]
        print(f"  {c.get('issue', 14)}.{c['item']:<2} {c['verdict']:<10} {c['name']}"
              + (f"  [{bad['kind']} seq {bad['seq']}: {bad['reason_contains']}]" if bad else ""))


if __name__ == "__main__":
    main()
