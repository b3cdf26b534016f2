"""The game in numbers and pictures, in memory: the charts' rows (ui/charts.py), the summary
table (ui/summary.py) and the end screen that holds them, at 80x24."""

from __future__ import annotations

import random
import re

import pytest
from ui_helpers import texts, widest

from hanabi_p2p import i18n
from hanabi_p2p.bots.simple import choose_action
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.rules.stats import GameStats, Mark, stats_of_state
from hanabi_p2p.ui.charts import chart_rows, column_of, column_runs, sparkline, timeline
from hanabi_p2p.ui.end import render_end
from hanabi_p2p.ui.summary import chart_lines, efficiency_text, summary_lines, tall_chart_text
from hanabi_p2p.ui.symbols import ASCII, UNICODE
from hanabi_p2p.ui.text import plain
from hanabi_p2p.ui.view import EndView

NAMES = ("Ann", "bot1", "bot2", "bot3", "bot4")


def played_game(players: int, seed: int, blunders: float = 0.15) -> GameState:
    """A whole game of the simple computer player, with some random moves (misplays)."""
    rng = random.Random(seed)
    config = GameConfig(players)
    faces = config.deck_faces()
    rng.shuffle(faces)
    state = GameState(config, faces)
    while not state.over:
        legal = state.legal_actions()
        state.apply(rng.choice(legal) if rng.random() < blunders
                    else choose_action(state, state.current_seat))
    return state


def end_view_of(state: GameState) -> EndView:
    names = NAMES[: state.config.players]
    return EndView(
        config=state.config, score=state.score, rating=state.rating, end=state.end,
        fireworks=tuple(state.fireworks.items()), strikes=state.strikes, audit_ok=True,
        audit_text="Every card and clue checked out.",
        log_path="/home/ann/.local/share/hanabi-p2p/games/0123456789abcdef0123456789abcdef.hlog",
        names=names, log=tuple(f"line {i}" for i in range(40)),
        hands=tuple(tuple(state.faces[c] for c in hand) for hand in state.hands),
        state=state, faces={}, my_seat=0,
    )


def stats_of(state: GameState) -> GameStats:
    stats = stats_of_state(state)
    assert stats is not None
    return stats


# --- charts ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("count", "width"), [(1, 10), (10, 10), (71, 50), (200, 7), (5, 1)])
def test_columns_cover_every_turn_once_in_order(count: int, width: int) -> None:
    runs = column_runs(count, width)
    assert len(runs) == min(count, width)
    assert [i for run in runs for i in run] == list(range(count))
    assert all(len(run) > 0 for run in runs)
    assert [column_of(i, count, width) for i in range(count)] == [
        c for c, run in enumerate(runs) for _ in run]


def test_a_sparkline_rises_with_its_values_and_spans_the_blocks() -> None:
    values = list(range(26))
    line = sparkline(values, 80, 0, 25)
    assert len(line) == 26
    levels = [UNICODE.blocks.index(ch) for ch in line]
    assert levels == sorted(levels)
    assert line[0] == UNICODE.blocks[1] and line[-1] == UNICODE.blocks[-1]
    # narrower than the game: each column the value after the last turn of its run
    narrow = sparkline(values, 5, 0, 25)
    assert len(narrow) == 5 and narrow[-1] == UNICODE.blocks[-1]
    assert set(sparkline(values, 30, 0, 25, ASCII)) <= set(ASCII.blocks)


def test_a_tall_chart_fills_each_column_up_to_its_value() -> None:
    rows = chart_rows([0, 4, 8], 10, 2, 0, 8)  # 2 rows of 8 eighths: 0, half, full
    assert len(rows) == 2 and all(len(row) == 3 for row in rows)
    top, bottom = rows
    assert bottom == " " + UNICODE.blocks[-1] + UNICODE.blocks[-1]
    assert top == "  " + UNICODE.blocks[-1]


def test_the_timeline_marks_misplays_over_saves_and_the_cursor() -> None:
    marks = [None, Mark.SAVE, None, Mark.MISPLAY, None]
    text = "".join(t for _s, t in timeline(marks, 10))
    assert text == "─◆─✖─"
    # two turns a column: the misplay wins its column
    squeezed = "".join(t for _s, t in timeline([Mark.SAVE, Mark.MISPLAY, None, None], 2))
    assert squeezed == "✖─"
    cursor = timeline(marks, 10, cursor=3)
    assert [style for style, _t in cursor if "cursor" in style] == [
        "class:bad class:timeline-cursor"]


# --- the summary -------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 5])
def test_the_summary_has_a_row_per_player_and_the_tables_totals(players: int) -> None:
    state = played_game(players, seed=players)
    stats = stats_of(state)
    hands = [[state.faces[c] for c in hand] for hand in state.hands]
    lines = [plain(line) for line in summary_lines(stats, NAMES[:players], 80, hands, 0)]
    assert len(lines) == players + 2
    assert all(len(line) <= 80 for line in lines)
    assert lines[0].split() == ["Hands", "at", "the", "end", "Clues", "Plays", "Misplays",
                                "Discards", "Efficiency"]
    for seat, tally in enumerate(stats.players):
        row = lines[1 + seat]
        assert row.split()[:2] == [str(seat + 1), NAMES[seat]]
        hand = " ".join(str(face) for face in hands[seat])
        assert hand in row
        numbers = row.split()[-5:]
        assert numbers == [str(tally.clues), str(tally.plays), str(tally.misplays),
                           str(tally.discards), efficiency_text(tally.efficiency)]
    table = stats.table
    assert lines[-1].split() == ["Table", str(table.clues), str(table.plays),
                                 str(table.misplays), str(table.discards),
                                 efficiency_text(stats.efficiency)]


def test_a_narrow_summary_leaves_the_hands_out() -> None:
    state = played_game(5, seed=1)
    hands = [[state.faces[c] for c in hand] for hand in state.hands]
    lines = [plain(line) for line in summary_lines(stats_of(state), NAMES, 60, hands, 0)]
    assert all(len(line) <= 60 for line in lines)
    assert "Hands at the end" not in lines[0] and "Efficiency" in lines[0]


def test_the_charts_line_up_turn_for_turn_and_end_with_the_last_values() -> None:
    state = played_game(3, seed=7)
    stats = stats_of(state)
    lines = [plain(line) for line in chart_lines(stats, state.config, 80)]
    assert [line.split()[0] for line in lines] == ["Score", "Clue", "Pace", "Turns"]
    assert all(len(line) <= 80 for line in lines)
    last = stats.points[-1]
    assert lines[0].split()[-1] == str(last.score)
    assert lines[1].split()[-1] == str(last.clue_tokens)
    assert lines[2].split()[-1] == str(last.pace)
    assert lines[3].endswith("✖ misplay  ◆ save")
    # the bars start in one column and are as long as one another
    bars = [re.search(r"[▁▂▃▄▅▆▇█]+", line) for line in lines[:3]]
    assert all(bar is not None for bar in bars)
    assert len({bar.start() for bar in bars if bar}) == 1
    assert len({len(bar.group(0)) for bar in bars if bar}) == 1


def test_log_shows_tall_charts_with_their_scales() -> None:
    state = played_game(2, seed=3)
    text = tall_chart_text(stats_of(state), state.config, 80)
    assert text[0].startswith("Score (last ") and text[1].strip().startswith("25 │")
    assert all(len(line) <= 80 for line in text)
    assert text[-2] == "Turns (✖ misplay  ◆ save)"
    misplays = text[-1].count("✖")
    assert 0 < misplays <= state.strikes  # a column may hold two


# --- the end screen ----------------------------------------------------------------------------


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("players", [2, 5])
def test_the_end_screen_holds_summary_and_charts_at_80_by_24(lang: str, players: int) -> None:
    i18n.setup(lang)
    try:
        state = played_game(players, seed=11)
        rendered = render_end(end_view_of(state), 80, 22)  # 24 less the input rows
        lines = texts(rendered)
        assert len(lines) == 22 and widest(rendered) <= 80
        stats = stats_of(state)
        for seat, tally in enumerate(stats.players):
            row = next(line for line in lines if line.split()[:2] == [str(seat + 1),
                                                                     NAMES[seat]])
            assert row.split()[-1] == efficiency_text(tally.efficiency)
        timeline_row = next(line for line in lines if "✖" in line and "◆" in line)
        assert timeline_row  # the legend at least
        # what the screen is for is all there: the verdict, where the log is, what to type
        assert any("/games/0123456789abcdef" in line for line in lines)
        assert "quit" in " ".join(lines)
    finally:
        i18n.setup("en")


def test_a_narrow_end_screen_keeps_every_hand_above_the_numbers() -> None:
    state = played_game(3, seed=5)
    rendered = render_end(end_view_of(state), 50, 40)
    lines = texts(rendered)
    assert widest(rendered) <= 50
    start = lines.index("Hands at the end")
    for seat, hand in enumerate(state.hands):
        faces = " ".join(str(state.faces[c]) for c in hand)
        assert lines[start + 1 + seat].split()[:2] == [str(seat + 1), NAMES[seat]]
        assert lines[start + 1 + seat].endswith(faces)
    header = next(line for line in lines if line.split()[-5:] == [
        "Clues", "Plays", "Misplays", "Discards", "Efficiency"])
    assert "Hands" not in header
