"""bench/bots.py: --losses counts every point a game is short of the maximum once; its tuning and
reporting seed ranges are apart."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from hanabi_p2p.bots import BotKind
from hanabi_p2p.rules.cards import GameConfig

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bots.py"
CAUSES = {"strikeout", "cut_chop", "cut_clued", "cut_misplay", "time_clued", "time_unclued"}


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_bots", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("players", [2, 3])
def test_losses_account_for_every_missing_point(players: int) -> None:
    bench = _bench()
    config = GameConfig.from_names(players, "standard", [])
    for kind in (BotKind.HGROUP, BotKind.SIMPLE):
        for seed in range(3):
            losses: Counter[str] = Counter()
            state, _, _ = bench.play_game(config, seed, kind, losses)
            assert set(losses) <= CAUSES
            assert all(v > 0 for v in losses.values())
            assert sum(losses.values()) == config.max_score - state.score


def test_tuning_and_reporting_seeds_never_overlap() -> None:
    bench = _bench()
    tuning, reporting = bench.TUNING_SEEDS, bench.REPORTING_SEEDS
    assert tuning.stop <= reporting.start or reporting.stop <= tuning.start
    assert bench.first_seed(reporting, 0, 10) == reporting.start
    assert bench.first_seed(tuning, 5, 10) == tuning.start + 5
    with pytest.raises(ValueError):
        bench.first_seed(tuning, len(tuning) - 5, 10)  # a run that spills into the other
