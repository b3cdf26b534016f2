"""The pure parts of bench/hgroup_anchor.py (issue 32's paired anchor), without node: the deck
the H-group bot is given, its actions read as ours, and the replay that checks its games
against our rules engine and scores them under the rulebook's and hanab.live's end rules."""

from __future__ import annotations

import math
import sys
from collections import Counter
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import hgroup_anchor as anchor  # noqa: E402
from bots import play_game, shuffled_faces  # noqa: E402

from hanabi_p2p.bots import BotKind  # noqa: E402
from hanabi_p2p.rules.actions import Clue, Discard, Play  # noqa: E402
from hanabi_p2p.rules.cards import MAX_CLUE_TOKENS, Card, GameConfig, Suit  # noqa: E402
from hanabi_p2p.rules.engine import End, GameState  # noqa: E402

R, Y, G, B, W = Suit.RED, Suit.YELLOW, Suit.GREEN, Suit.BLUE, Suit.WHITE


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_bots_deck_is_the_one_our_bot_plays(players: int) -> None:
    config = GameConfig(players=players)
    seed = 1_000_000 + players
    state, _, _ = play_game(config, seed, BotKind.HGROUP)
    faces = shuffled_faces(config, seed)
    assert state.faces == faces
    exported = anchor.deck_for_bot(faces)
    assert len(exported) == config.deck_size
    # the same face at every position, in hanab.live's suit order (purple where our white is)
    live_suits = ["Red", "Yellow", "Green", "Blue", "Purple"]
    assert [(live_suits[s], r) for s, r in exported] == [
        ("Purple" if f.suit is W else f.suit.value.capitalize(), f.rank) for f in faces]


def test_the_bots_action_types_read_as_ours() -> None:
    assert anchor.to_our_action(2, [0, 17, 0]) == Play(2, 17)
    assert anchor.to_our_action(1, [1, 4, 0]) == Discard(1, 4)
    assert anchor.to_our_action(0, [2, 3, 4]) == Clue(0, 3, colour=W)
    assert anchor.to_our_action(0, [2, 1, 0]) == Clue(0, 1, colour=R)
    assert anchor.to_our_action(3, [3, 0, 5]) == Clue(3, 0, rank=5)
    with pytest.raises(anchor.AlignmentError, match="unknown action type 4"):
        anchor.to_our_action(0, [4, 0, 1])


def _deck(config: GameConfig, first: list[Card]) -> list[Card]:
    """``first`` at the top of the deck, the rest of a full deck after it."""
    rest = Counter(config.deck_faces())
    rest.subtract(first)
    return first + sorted(rest.elements())


def _clue_for(state: GameState) -> list[int]:
    """A legal number clue of the current seat, as the bot writes it."""
    clue = next(a for a in state.legal_actions() if isinstance(a, Clue) and a.rank is not None)
    assert clue.rank is not None
    return [anchor.RANK_CLUE, clue.target, clue.rank]


def _blocked_then_strikeout() -> tuple[GameConfig, list[Card], list[list[int]]]:
    """A two-player game, written move by move: every 1 but the reds is discarded, red is
    played to 5 (then 5 is the most still possible: hanab.live ends the game there), and
    three misplays follow (our rules play on: a strikeout)."""
    config = GameConfig(players=2)
    # seat 0 is dealt positions 0-4, seat 1 positions 5-9; each draws the next position
    ones = [Card(suit, 1) for suit in (Y, G, B, W) for _ in range(3)]
    faces = _deck(config, [*ones, *(Card(R, rank) for rank in range(1, 6))])
    state = GameState(config, faces)
    actions: list[list[int]] = []

    def do(action: list[int]) -> None:
        actions.append(action)
        state.apply(anchor.to_our_action(state.current_seat, action))

    for discard in range(5, 12):  # seat 0 clues, seat 1 lets its 1s go and draws r1..r5
        do(_clue_for(state))
        do([anchor.DISCARD, discard, 0])
    seat0_ones, reds = [0, 1, 2, 3, 4], [12, 13, 14, 15, 16]
    while reds:  # seat 0 lets its 1s go, seat 1 plays r1..r5; both clue to make room
        if state.current_seat == 0:
            tokens_full = state.clue_tokens == MAX_CLUE_TOKENS
            do([anchor.DISCARD, seat0_ones.pop(0), 0] if seat0_ones and not tokens_full
               else _clue_for(state))
        else:
            do(_clue_for(state) if state.clue_tokens == MAX_CLUE_TOKENS
               else [anchor.PLAY, reds.pop(0), 0])
    assert state.fireworks_total == state.max_achievable == 5 and not state.over
    for _ in range(3):  # every card left misplays
        do([anchor.PLAY, state.hands[state.current_seat][0], 0])
    return config, faces, actions


def test_replay_scores_a_game_both_ways() -> None:
    config, faces, actions = _blocked_then_strikeout()
    done = anchor.replay(config, faces, anchor.seated(2, actions))
    assert done.state.end is End.STRIKEOUT
    assert (done.state.fireworks_total, done.state.strikes, done.state.score) == (5, 3, 0)
    assert done.hanablive_score == 5


def test_the_alignment_check_accepts_only_the_game_as_the_bot_counted_it() -> None:
    config, faces, actions = _blocked_then_strikeout()
    counted = {"actions": actions, "score": 5, "strikes": 3, "error": None}
    assert anchor.check_alignment(config, faces, counted).state.end is End.STRIKEOUT
    with pytest.raises(anchor.AlignmentError, match="4 and 3"):
        anchor.check_alignment(config, faces, {**counted, "score": 4})
    with pytest.raises(anchor.AlignmentError, match="going on"):
        anchor.check_alignment(config, faces, {**counted, "actions": actions[:-1]})
    # a game the bot broke off must not have ended in our engine
    broken = {"actions": actions[:-1], "score": None, "strikes": None, "error": "boom"}
    assert not anchor.check_alignment(config, faces, broken).state.over
    with pytest.raises(anchor.AlignmentError, match="broke off a game our engine ended"):
        anchor.check_alignment(config, faces, {**broken, "actions": actions})


def test_replay_refuses_a_misaligned_action_list() -> None:
    config, faces, actions = _blocked_then_strikeout()
    with pytest.raises(anchor.AlignmentError, match="after the game ended"):
        anchor.replay(config, faces, anchor.seated(2, [*actions, [anchor.PLAY, 30, 0]]))
    # a card seat 0 does not hold (deck position 7 is dealt to seat 1)
    with pytest.raises(anchor.AlignmentError, match="illegal"):
        anchor.replay(config, faces, anchor.seated(2, [[anchor.PLAY, 7, 0]]))
    # the same game read with seat 1 first
    with pytest.raises(anchor.AlignmentError, match="not seat 0's turn"):
        anchor.replay(config, faces, [anchor.to_our_action((t + 1) % 2, a)
                                      for t, a in enumerate(actions)])


def test_schedule_alternates_table_sizes_by_chunks() -> None:
    order = list(anchor.schedule([3, 4], games=5, chunk=2))
    assert order == [(3, 0), (3, 1), (4, 0), (4, 1), (3, 2), (3, 3), (4, 2), (4, 3),
                     (3, 4), (4, 4)]


def test_summary_pairs_the_decks() -> None:
    def record(hgroup: int, ours: int, end: str = "normal") -> dict[str, object]:
        kept = 12 if end == "strikeout" else hgroup
        return {"hgroup": hgroup, "hgroup_kept": kept, "ours": ours, "hgroup_hanablive": hgroup,
                "ours_hanablive": ours, "hgroup_end": end, "hgroup_error": None,
                "ours_end": "normal", "hgroup_seconds": 40.0, "ours_seconds": 0.05}

    rows = [record(25, 23), record(24, 24), record(0, 23, "strikeout")]
    row = anchor.summarise(3, rows)
    diffs = [2, 0, -23]
    mean = sum(diffs) / 3
    se = math.sqrt(sum((d - mean) ** 2 for d in diffs) / 2 / 3)
    assert (row.decks, row.hgroup_strikeouts, row.ours_strikeouts) == (3, 1, 0)
    assert row.diff_mean == pytest.approx(mean, abs=1e-3)
    assert row.diff_stderr == pytest.approx(se, abs=1e-3)
    assert row.ours_mean == pytest.approx(70 / 3, abs=1e-3)
    assert row.hgroup_mean == pytest.approx(49 / 3, abs=1e-3)
    assert row.hgroup_kept_mean == pytest.approx(61 / 3, abs=1e-3)  # the strikeout's 12
