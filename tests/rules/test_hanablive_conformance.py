"""Every real hanab.live game in tests/data/hanablive replays legally with hanab.live's result.

Source and licence note: tests/data/hanablive/README.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hanabi_p2p.hanablive import load_game
from hanabi_p2p.rules.engine import GameState

DATA = Path(__file__).parents[1] / "data" / "hanablive"
EXPECTED: list[dict[str, Any]] = json.loads((DATA / "expected.json").read_text())


def test_all_games_are_listed() -> None:
    files = {p.relative_to(DATA).as_posix() for p in DATA.rglob("*.json")}
    assert files - {"expected.json"} == {e["file"] for e in EXPECTED}
    assert len(EXPECTED) == 224


@pytest.mark.parametrize("expected", EXPECTED, ids=[e["file"] for e in EXPECTED])
def test_game_replays_with_the_expected_result(expected: dict[str, Any]) -> None:
    game = load_game(json.loads((DATA / expected["file"]).read_text()))
    assert game.config.players == expected["players"]
    state = GameState(game.config, game.faces)
    for action in game.actions:
        state.apply(action)  # raises if any action is illegal
    assert state.fireworks_total == expected["expected_score"]
    assert state.score == expected["expected_score"]
    assert state.strikes == expected["expected_strikes"]
    assert state.clue_tokens == expected["expected_clues_left"]
    if not expected["actions_stop_before_game_end"] and not state.over:
        # hanab.live also ends a game once no further point can be scored; the rules we
        # implement (RULES.md) play on, so such a log stops at exactly that point
        assert state.fireworks_total == state.max_achievable
