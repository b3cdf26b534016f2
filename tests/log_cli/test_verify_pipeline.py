"""The pure pipeline, ``verify_game``: entries in, report out, whatever their order."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from game_files import resign_chain, write_log
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from session_harness import Table

from hanabi_p2p.bots.simple import choose_action
from hanabi_p2p.log.entry import make_entry
from hanabi_p2p.rules.actions import Terminate
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session.table import AUDITED
from hanabi_p2p.session.verify import Verdict, verify_game

from hanabi_p2p.commands.log import read_report  # isort: skip

# whole signed games verified, shown or listed: too slow for the fast tier
pytestmark = pytest.mark.slow


def key_facts(entries: list) -> tuple:  # type: ignore[type-arg]
    report = verify_game(entries)
    state_hash = report.state.public_hash() if report.state else None
    return (report.headline(), report.digest, [report.describe(p) for p in report.problems],
            state_hash, len(report.applied))


def test_any_order_and_duplicates_give_the_same_report(game: Table) -> None:
    entries = list(game.peers[0].replica.applied)
    reference = key_facts(entries)
    assert reference[0].startswith("valid: ")
    rng = random.Random(1)
    for _ in range(2):
        shuffled = entries + rng.sample(entries, 30)
        rng.shuffle(shuffled)
        assert key_facts(shuffled) == reference


def test_a_tampered_set_is_judged_the_same_in_any_order(game: Table, other_game: Table) -> None:
    """The first bad entry is chosen by a canonical order, not by the file's order."""
    p2 = other_game.peers[2].identity.peer_id
    aliens = [e for e in other_game.peers[2].replica.applied if e.author == p2][25:28]
    entries = list(game.peers[1].replica.applied) + aliens
    reference = key_facts(entries)
    assert reference[0].startswith("invalid: ")
    rng = random.Random(2)
    rng.shuffle(entries)
    assert key_facts(entries) == reference


def test_the_verifier_replays_to_the_players_final_state(game: Table) -> None:
    report = verify_game(game.peers[2].replica.applied)
    assert report.verdict is Verdict.VALID and report.ok
    assert report.state is not None
    assert report.state.public_hash() == game.peers[0].session.state.public_hash()
    assert report.faces == game.peers[0].session.audit.faces
    assert [p.name for p in report.players] == ["p0", "p1", "p2"]
    assert report.unapplied == [] and len(report.applied) == report.entry_count


def test_a_game_without_seeds_is_unfinished_not_invalid(game: Table) -> None:
    report = verify_game(game.peers[0].replica.applied[:90])
    assert report.verdict is Verdict.UNFINISHED and report.problems == []
    assert report.headline().startswith("unfinished: deck not audited (no seed from p0 (")
    assert report.audit is None and report.missing_seeds == (0, 1, 2)


def test_without_the_seeds_every_turn_is_still_checked_as_far_as_public_reveals_go(
        game: Table) -> None:
    """No seed, no faces for the verifier (a game whose programs crashed at its end): it
    replays the turns as a spectator follows them (played and discarded cards decoded from
    the public key shares, clues taken as named), in any order, to the players' state."""
    entries = [e for e in game.peers[0].replica.applied if e.kind != "seed"]
    report = verify_game(entries)
    assert report.verdict is Verdict.UNFINISHED and report.problems == []
    assert not report.faces and report.audit is None
    players = game.peers[0].session.state
    assert report.state is not None and players is not None
    assert report.state.turn == players.turn and report.state.over
    assert report.state.public_hash() == players.public_hash()
    assert len(report.applied) == len(entries)
    reference = key_facts(entries)
    shuffled = list(entries)
    random.Random(3).shuffle(shuffled)
    assert key_facts(shuffled) == reference


def test_no_entries_at_all(tmp_path: Path) -> None:
    report = verify_game([])
    assert report.verdict is Verdict.UNFINISHED
    assert report.headline() == "unfinished: the players were never seated"


def test_an_entry_that_can_never_apply_is_invalid(game: Table) -> None:
    """A seated player appends an answer to a turn that never happens, after its seed."""
    peer = game.peers[1]
    stored = list(game.peers[0].replica.applied)
    last = max((e for e in stored if e.author == peer.identity.peer_id), key=lambda e: e.seq)
    junk = make_entry(peer.identity, table_id=last.table_id, seq=last.seq + 1, prev=last.hash,
                      turn=999, kind="ack", body={"hash": bytes(32), "deck": []})
    report = verify_game([*stored, junk])
    assert report.verdict is Verdict.INVALID
    assert report.headline() == (
        f"invalid: p1 ({peer.identity.fingerprint}) seq {junk.seq} (ack, turn 1000): "
        "can never apply: what it answers or follows is not in the log"
    )


def test_a_resigned_game_is_valid_ends_terminated_and_exports(tmp_path: Path, run_cli) -> None:
    table = Table(GameConfig(2), seed=21)
    table.seat_everyone()
    resigner = table.peers[1]
    for _ in range(200):  # bots play, one delivery at a time, until p1's 10th turn
        for p in table.peers:
            if p.session.can_act():
                if p is resigner and p.session.state.turn >= 19:
                    break
                p.session.take_action(choose_action(p.session.state, p.session.my_seat))
                table.flush(p)
        else:
            table.deliver_one()
            continue
        break
    resigner.session.resign("dinner is ready")  # on its own turn
    table.flush(resigner)
    table.pump()
    assert table.peers[0].session.phase == AUDITED
    report = verify_game(table.peers[0].replica.applied)
    assert report.ok, report.headline()
    assert report.state is not None and report.state.end.value == "terminated"
    assert report.actions[-1] == Terminate(1)
    path = write_log(tmp_path / "resigned.hlog", table.peers[1].replica.applied)
    out = tmp_path / "resigned.json"
    assert run_cli("log", "export", str(path), "-o", str(out)).code == 0
    replayed = json.loads(run_cli("replay", str(out), "--json").lines[-1])
    assert (replayed["end"], replayed["score"]) == ("terminated", report.state.score)


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.floats(min_value=0.0, max_value=0.9999), bit=st.integers(0, 7))
def test_any_flipped_bit_in_a_game_file_makes_it_invalid(
    game: Table, tmp_path: Path, where: float, bit: int
) -> None:
    """Anywhere in the file (magic, header, lengths, entries, checksums): never valid, and
    always a report, never an exception. In the last record it looks like a torn tail
    (SPEC 3.8): dropped and reported, the game then lacks its last seed (unfinished)."""
    path = tmp_path / "flip.hlog"
    path.unlink(missing_ok=True)
    write_log(path, game.peers[0].replica.applied)
    data = bytearray(path.read_bytes())
    data[int(where * len(data))] ^= 1 << bit
    path.write_bytes(bytes(data))
    report = read_report(path)
    if report.torn_tail_bytes:
        assert report.verdict is Verdict.UNFINISHED and report.missing_seeds
    else:
        assert report.verdict is Verdict.INVALID


def test_resign_chain_helper_keeps_a_valid_chain(game: Table) -> None:
    """The tampering tests rely on it: re-signing with the same bodies verifies again."""
    peer = game.peers[0]
    stored = list(peer.replica.applied)
    chain = sorted((e for e in stored if e.author == peer.identity.peer_id), key=lambda e: e.seq)
    again = resign_chain(peer.identity, chain, [e.body for e in chain])
    assert again == chain  # Ed25519 is deterministic: the very same entries


def test_a_game_stopped_early_is_unfinished_with_the_reason() -> None:
    """A player gives up waiting and reveals its seed: the others stop and reveal theirs.
    The deck is audited (every face known) but the game has no result."""
    table = Table(GameConfig(3), seed=31)
    table.seat_everyone()
    for _ in range(150):
        for p in table.peers:
            if p.session.can_act():
                p.session.take_action(choose_action(p.session.state, p.session.my_seat))
                table.flush(p)
        table.deliver_one()
    table.peers[2].session.abort(None, "waited too long")
    table.flush(table.peers[2])
    table.pump()
    report = verify_game(table.peers[0].replica.applied)
    assert report.verdict is Verdict.UNFINISHED and report.problems == []
    assert report.headline().startswith("unfinished: the game was stopped at turn ")
    assert report.audit is not None and report.audit.ok and len(report.faces) == 50
