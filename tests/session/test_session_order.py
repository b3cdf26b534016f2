"""The verdict of a log is a function of its set of entries (issue 14, items 1-3).

For real games of every size and variant, and for logs with entries injected (a resignation
at the first turn, a lobby chat by a joiner never seated, a reveal appended after the game,
an entry removed, a player leaving mid-game), any permutation of the records gives the same
verdict, the same first bad entry and the same digest, both when the verifier stores the
set first (its own mode) and when the entries are replayed one by one in that order, as a
live peer receives them (``arrival_order=True``): the session's rules, not the verifier's
sorting, make the outcome order-free.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from session_harness import Peer, Table, bot_action, play_bot_game

from hanabi_p2p.deck.messages import PublicKey
from hanabi_p2p.identity import Identity
from hanabi_p2p.log.entry import Entry, make_entry
from hanabi_p2p.log.replica import Replica
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session.bodies import Address
from hanabi_p2p.session.table import TableSession
from hanabi_p2p.session.verify import GameReport, Verdict, verify_game

# whole games between in-memory peers, often in many delivery orders: too slow for the fast tier
pytestmark = pytest.mark.slow

# Entries a seated player could add at the end of its chain, at any turn: harmless, late,
# malformed or cheating (the verdict may be anything, but the same for every order).
INJECTED: list[tuple[str, object]] = [
    ("chat", {"text": "psst"}),
    ("chat", {"text": " "}),
    ("move", {"card": 3, "to": 0}),
    ("resign", {"reason": ""}),
    ("ack", {"hash": bytes(32), "deck": []}),
    ("action", {"act": ["clue", 0, "rank", 1, []], "hash": bytes(32), "deck": []}),
    ("action", {"act": ["discard", 2], "hash": bytes(32), "deck": []}),
    ("deck", {"deck": []}),
    ("seed", {"deck": []}),
    ("lobby.join", {"name": "again", "addr": ["192.0.2.1", 1]}),
]

Log = tuple[Entry, ...]


def everything(table: Table) -> Log:
    """Every entry any peer holds (applied), once each, in a fixed order."""
    seen = {e.hash: e for p in table.peers for e in p.replica.applied}
    return tuple(sorted(seen.values(), key=lambda e: e.hash))


def append(peer: Peer, kind: str, turn: int, body: object) -> Entry:
    """Sign one more entry at the end of `peer`'s chain (what a cheater could add)."""
    seq, prev = peer.replica.next_link(peer.identity.peer_id)
    return make_entry(peer.identity, table_id=peer.replica.table_id, seq=seq, prev=prev,
                      turn=turn, kind=kind, body=body)


# ---- the logs


@cache
def bot_game(players: int, variant: str, options: tuple[str, ...]) -> Log:
    return everything(play_bot_game(GameConfig.from_names(players, variant, options), seed=11))


@cache
def resigned_at_first_turn() -> Log:
    """Seat 0 resigns at turn 1 (envelope turn 0), right after the deal (issue 14, item 1)."""
    table = Table(GameConfig(3), seed=2)
    table.seat_everyone()
    table.pump()
    host = table.peers[0].session
    assert host.state is not None and host.my_turn()
    host.resign("bye")
    table.pump()
    assert all(p.session.state is not None and p.session.state.over for p in table.peers)
    return everything(table)


@cache
def lobby_chat_by_a_joiner_never_seated() -> Log:
    """A joiner who talks in the lobby and is left without a seat (issue 14, item 2)."""
    table = Table(GameConfig(2), seed=3)
    extra_id = Identity.from_seed(b"\x09" * 32)
    extra = TableSession(extra_id, table.peers[0].replica.table_id, seed=b"\x01" * 32)
    extra.host_id = table.peers[0].identity.peer_id
    table.peers.append(Peer(extra_id, extra, Replica(table.peers[0].replica.table_id, extra)))
    host, bob = table.peers[0], table.peers[1]
    host.session.open_table("test table", "p0", GameConfig(2))
    table.pump()
    bob.session.request_seat("p1", Address("127.0.0.1", 40001))
    table.pump()
    extra.request_seat("late", Address("127.0.0.1", 40009))
    table.pump()
    extra.say("is there room for me?")
    table.pump()
    host.session.seat_players(Address("127.0.0.1", 40000))
    table.pump(eager=bot_action)
    assert extra.my_seat is None and host.session.audit is not None
    return everything(table)


@cache
def wrong_reveal_after_the_game() -> Log:
    """A seated player appends a public key the game never called for, with a wrong k,
    after every seed is in (issue 14, items 3 and 9)."""
    table = play_bot_game(GameConfig(2), seed=4)
    cheat = table.peers[1]
    played = next(e for e in everything(table) if e.kind == "action"
                  and e.body["act"][0] in ("play", "discard"))
    wrong_k = (5).to_bytes(32, "little")
    body = {"deck": [PublicKey(played.body["act"][1], wrong_k).to_wire()]}
    state = table.peers[0].session.state
    assert state is not None and state.over
    return (*everything(table), append(cheat, "deck", 0, body))


@cache
def left_mid_game() -> Log:
    """Seat 2 leaves after a few turns: it reveals its seed; the others stop too."""
    table = Table(GameConfig(3), seed=6)
    table.seat_everyone()
    for _ in range(4):
        actor = next(p for p in table.peers if p.session.can_act())
        actor.session.take_action(bot_action(actor.session))  # type: ignore[arg-type]
        table.pump()
    table.peers[2].session.abort(None, "gone home")
    table.flush(table.peers[2])
    table.pump()
    return everything(table)


SCENARIOS: dict[str, Callable[[], Log]] = {
    "2p standard": lambda: bot_game(2, "standard", ()),
    "3p rainbow + empty_clues": lambda: bot_game(3, "rainbow", ("empty_clues",)),
    "4p multicolor-short + choreography": lambda: bot_game(
        4, "multicolor-short", ("choreography",)),
    "5p multicolor + all_or_nothing": lambda: bot_game(5, "multicolor", ("all_or_nothing",)),
    "resigned at the first turn": resigned_at_first_turn,
    "lobby chat by a joiner never seated": lobby_chat_by_a_joiner_never_seated,
    "wrong reveal after the game": wrong_reveal_after_the_game,
    "left mid-game": left_mid_game,
}
EXPECTED = {
    "resigned at the first turn": Verdict.VALID,
    "lobby chat by a joiner never seated": Verdict.VALID,
    "wrong reveal after the game": Verdict.INVALID,
    "left mid-game": Verdict.UNFINISHED,
}


def outcome(report: GameReport) -> tuple[object, ...]:
    first = report.problems[0] if report.problems else None
    return (
        report.verdict,
        None if first is None else (first.author, first.seq, first.kind, first.reason),
        report.digest,
        report.state.score if report.ok and report.state is not None else None,
    )


@cache
def reference(name: str, dropped: int | None) -> tuple[object, ...]:
    return outcome(verify_game(log_of(name, dropped)))


def log_of(name: str, dropped: int | None) -> list[Entry]:
    log = list(SCENARIOS[name]())
    if dropped is not None:
        del log[dropped % len(log)]
    return log


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_injected_case_has_its_verdict(name: str) -> None:
    report = verify_game(SCENARIOS[name]())
    assert report.verdict is EXPECTED[name], report.headline()


def test_the_wrong_reveal_is_named_as_the_first_bad_entry() -> None:
    log = wrong_reveal_after_the_game()
    report = verify_game(log)
    first = report.problems[0]
    assert (first.author, first.seq, first.kind) == (log[-1].author, log[-1].seq, "deck")
    assert "a deck entry holds its author's deck steps" in first.reason


def inject(log: list[Entry], picks: list[tuple[int, int, int]]) -> list[Entry]:
    """Append entries (kind and body from INJECTED, envelope turn) to seated authors' chains."""
    seated = sorted({e.author for e in log if e.kind == "deck"})
    out = list(log)
    for who, what, turn in picks:
        author = seated[who % len(seated)]
        seed = next(bytes([i + 1]) * 32 for i in range(5)
                    if Identity.from_seed(bytes([i + 1]) * 32).peer_id == author)
        last = max((e for e in out if e.author == author), key=lambda e: e.seq)
        kind, body = INJECTED[what % len(INJECTED)]
        out.append(make_entry(Identity.from_seed(seed), table_id=last.table_id,
                              seq=last.seq + 1, prev=last.hash, turn=turn, kind=kind,
                              body=body))
    return out


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(sorted(SCENARIOS)),
       picks=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 99), st.integers(0, 70)),
                      min_size=1, max_size=3),
       data=st.data())
def test_entries_injected_at_random_turns_give_one_verdict_in_any_order(
    name: str, picks: list[tuple[int, int, int]], data: st.DataObject
) -> None:
    log = inject(list(SCENARIOS[name]()), picks)
    expected = outcome(verify_game(log))
    permuted = data.draw(st.permutations(log))
    assert outcome(verify_game(permuted)) == expected
    assert outcome(verify_game(permuted, arrival_order=True)) == expected


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(sorted(SCENARIOS)), drop=st.booleans(), data=st.data())
def test_every_permutation_gives_the_same_verdict_first_bad_entry_and_digest(
    name: str, drop: bool, data: st.DataObject
) -> None:
    dropped = data.draw(st.integers(0, 10_000)) if drop else None
    log = log_of(name, dropped)
    permuted = data.draw(st.permutations(log))
    expected = reference(name, dropped)
    assert outcome(verify_game(permuted)) == expected
    assert outcome(verify_game(permuted, arrival_order=True)) == expected


def test_an_action_out_of_turn_racing_a_resignation_has_one_reason_in_any_order() -> None:
    """Found by the test above: the seat to move resigns at the first turn while another
    seat's action for that turn is on its way. Judged before the resignation arrives it is
    "not their turn"; the game-over check came first, so judged after it was "acted after
    the game ended". SPEC 5.5 now checks the seat first: one reason either way."""
    a_clue = next(i for i, (kind, _) in enumerate(INJECTED) if kind == "action")
    log = inject(list(SCENARIOS["resigned at the first turn"]()), [(0, a_clue, 0)])
    expected = outcome(verify_game(log))
    assert expected[1] is not None and "not their turn" in str(expected[1][3])
    shuffler = random.Random(5)
    for _ in range(60):
        permuted = shuffler.sample(log, len(log))
        assert outcome(verify_game(permuted, arrival_order=True)) == expected
