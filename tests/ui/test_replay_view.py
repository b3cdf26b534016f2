"""The interactive replay: its pure view at several turns, the keys, and the audit gate.

The view is checked as text against the engine and the live table: every face of every hand
is on screen, the knowledge row under a hand is the one the live table draws for it, and the
story is the narrator's. A signed log is replayed only after `log verify`'s audit passes.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from replay_helpers import store, vector, vector_log

from hanabi_p2p import cli, i18n
from hanabi_p2p.commands import replay_interactive
from hanabi_p2p.commands.replay_interactive import game_of_report
from hanabi_p2p.hanablive import load_game
from hanabi_p2p.log.entry import decode_entry
from hanabi_p2p.log.storage import parse
from hanabi_p2p.narration.narrator import describe
from hanabi_p2p.rules.actions import Clue
from hanabi_p2p.rules.cards import Card, Suit
from hanabi_p2p.rules.stats import Mark
from hanabi_p2p.session.verify import verify_file
from hanabi_p2p.ui.board import board_from_state
from hanabi_p2p.ui.replay import (
    PAGE_STEPS,
    TOUCHED_STYLE,
    CursorMode,
    Replay,
    ReplayCursor,
    ReplayGame,
    face_up_board,
    render_replay,
    replay_stats,
    replay_steps,
)
from hanabi_p2p.ui.replay_app import ReplayApp
from hanabi_p2p.ui.table import TableLabels as LiveLabels
from hanabi_p2p.ui.table import render_board
from hanabi_p2p.ui.text import plain, width

REPO = Path(__file__).resolve().parents[2]
FIVE_PLAYERS = REPO / "tests" / "data" / "hanablive" / "5p-no_variant.json"
SIZES = [(80, 24), (100, 30), (140, 40)]
# Bound on waiting for a key's effect, reached only when the test is failing: generous, as a
# loaded machine can take more than a second to pass keys through the pipe and the loop.
KEY_WAIT_S = 10.0


@pytest.fixture(scope="module")
def replay() -> Replay:
    game = load_game(json.loads(FIVE_PLAYERS.read_text()))
    return replay_steps(
        ReplayGame(game.config, game.players, tuple(game.faces), tuple(game.actions), "five")
    )


def screen(replay: Replay, step: int, columns: int = 80, rows: int = 24) -> list[str]:
    lines = render_replay(ReplayCursor(replay, step), columns, rows)
    assert len(lines) == rows
    assert max(width(line) for line in lines) <= columns
    return [plain(line) for line in lines]


def hand_row(lines: list[str], name: str) -> tuple[list[str], str]:
    """The cards after `name` (faces with their marks) and the row under them."""
    index = next(i for i, line in enumerate(lines) if f" {name} " in line and "turn" not in line)
    cards = lines[index].split(name, 1)[1].split()
    return cards, lines[index + 1]


# --- the view ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("columns", "rows"), SIZES)
@pytest.mark.parametrize("step", [0, 1, 17, 30])
def test_every_hand_is_face_up_at_every_step(
    replay: Replay, step: int, columns: int, rows: int
) -> None:
    state = replay.steps[step].state
    lines = screen(replay, step, columns, rows)
    for seat, name in enumerate(replay.game.names):
        cards, _ = hand_row(lines, name)
        faces = [str(state.faces[card]) for card in state.hands[seat]]
        assert [c[:2] for c in cards] == faces


def test_the_deal_is_turn_0_and_says_so(replay: Replay) -> None:
    lines = screen(replay, 0)
    assert "turn 0 of 53" in lines[0]
    assert any("The deal: every hand face up" in line for line in lines)
    assert "g N Enter" in lines[-1]


@pytest.mark.parametrize("step", [1, 16, 17, 53])
def test_a_step_tells_its_action_in_the_narrators_words(replay: Replay, step: int) -> None:
    at = replay.steps[step]
    assert at.before is not None and at.action is not None and at.outcome is not None
    said = describe(at.action, at.outcome, replay.game.names, at.before.hands, at.before)
    lines = screen(replay, step)
    marked = [line[2:] for line in lines if line.startswith("▸ ")]  # this step's lines
    assert marked[0] == f"turn {at.before.turn + 1}: {said[0]}"
    assert f"turn {at.state.turn} of 53" in lines[0]
    if isinstance(at.action, Clue):
        touched = [str(at.state.faces[c]) for c in at.before.hands[at.action.target]
                   if c in at.outcome.touched]
        assert marked[1] == "it touches " + " ".join(touched)
    elif at.outcome.drew is not None:
        drawn = at.state.faces[at.outcome.drew]
        assert marked[1] == f"{replay.game.names[at.outcome.seat]} draws {drawn}"


@pytest.mark.parametrize("step", [16, 30])
def test_knowledge_rows_are_the_live_tables(replay: Replay, step: int) -> None:
    """What each player knew of their own cards: the row the live table draws under that
    hand for any other player who looks at it (here: the next seat, on a tall terminal),
    narrowed further where the holder saw the onlooker's cards, which the onlooker itself
    cannot count (rules/empathy.py); a replay counts every hand its holder saw."""
    state = replay.steps[step].state
    replayed = screen(replay, step, 80, 40)
    players = len(replay.game.names)
    narrowed = 0
    for seat, name in enumerate(replay.game.names):
        viewer = (seat + 1) % players
        live = [plain(line) for line in render_board(
            board_from_state(state, viewer), LiveLabels(names=replay.game.names), 80, 40)]
        _, replay_row = hand_row(replayed, name)
        _, live_row = hand_row(live, name)
        live_board, replay_board = board_from_state(state, viewer), face_up_board(state)
        for live_cell, replay_cell in zip(
            live_board.hands[seat], replay_board.hands[seat], strict=True
        ):
            assert replay_cell.colours <= live_cell.colours
            assert replay_cell.ranks <= live_cell.ranks
        if live_board.hands[seat] == replay_board.hands[seat]:
            assert replay_row.split() == live_row.split()
        narrowed += len(replay_row.split()) // 2
    assert narrowed > 0  # some clue had been given: the rows are not all blank


def test_a_clue_marks_the_cards_it_touched(replay: Replay) -> None:
    step = replay.steps[16]  # Alice clues Cathy: 1
    assert isinstance(step.action, Clue)
    cathy = replay.game.names[step.action.target]
    cards, row = hand_row(screen(replay, 16), cathy)
    assert [c for c in cards if "(1)" in c] == ["W1(1)"]
    assert "1····" in row
    # this step's clue stands out: the card it touched, and no other, in reverse video
    lines = render_replay(ReplayCursor(replay, 16), 80, 24)
    reversed_text = "".join(text for line in lines for style, text in line
                            if TOUCHED_STYLE in style.split())
    assert reversed_text == "W1(1)"


@pytest.mark.parametrize("lang", ["it", "ro", "nb"])
def test_every_language_fits_80_by_24(replay: Replay, lang: str) -> None:
    i18n.setup(lang)
    for step in (0, 16, replay.last):
        lines = screen(replay, step)
        assert "Replay" not in lines[0]  # the title is translated
        assert "The deal" not in " ".join(lines)
    cursor = ReplayCursor(replay)
    cursor.start_typing()
    assert "Go to turn" not in plain(render_replay(cursor, 80, 24)[-1])


def test_a_short_terminal_still_shows_the_step_and_the_keys(replay: Replay) -> None:
    lines = screen(replay, 16, 80, 14)
    assert lines[-1].startswith("←/→")
    assert any(line.startswith("▸ turn 16: Alice clues Cathy") for line in lines)


# --- the cursor -------------------------------------------------------------------------------


def test_keys_move_the_cursor_and_stay_inside_the_game(replay: Replay) -> None:
    cursor = ReplayCursor(replay)
    cursor.move(-1)
    assert cursor.step == 0
    cursor.move(PAGE_STEPS)
    assert cursor.step == PAGE_STEPS
    cursor.end()
    cursor.move(1)
    assert cursor.step == replay.last
    cursor.home()
    assert cursor.step == 0


@pytest.mark.parametrize(("typed", "turn"), [("37", 37), ("0", 0), ("9999", 53)])
def test_g_jumps_to_the_turn_typed(replay: Replay, typed: str, turn: int) -> None:
    cursor = ReplayCursor(replay)
    cursor.start_typing()
    for digit in typed:
        cursor.type_digit(digit)
    assert plain(render_replay(cursor, 80, 24)[-1]).endswith(typed + "_")
    cursor.submit()
    assert cursor.mode is CursorMode.BROWSING
    assert replay.steps[cursor.step].state.turn == turn
    if turn:
        assert any(line.startswith(f"▸ turn {turn}: ") for line in screen(replay, cursor.step))


def test_the_app_steps_jumps_and_quits_on_keys(replay: Replay) -> None:
    async def drive() -> ReplayApp:
        with create_pipe_input() as pipe:
            app = ReplayApp(replay, input=pipe, output=DummyOutput())
            task = asyncio.create_task(app.run_async())
            keys: list[tuple[str, int]] = [
                ("\x1b[C\x1b[C\x1b[C", 3),  # → three times
                ("\x1b[D", 2),  # ←
                ("\x1b[6~", 2 + PAGE_STEPS),  # PgDn
                ("g 37\r", replay.step_of_turn(37)),
                ("\x1b[F", replay.last),  # End
                ("\x1b[H", 0),  # Home
            ]
            loop = asyncio.get_running_loop()
            for data, expected in keys:
                pipe.send_text(data)
                # the keys go through a real pipe and event loop: polled, not timed
                deadline = loop.time() + KEY_WAIT_S
                while loop.time() < deadline:
                    await asyncio.sleep(0.01)
                    if app.cursor.step == expected and app.cursor.mode is CursorMode.BROWSING:
                        break
                assert app.cursor.step == expected, data
            pipe.send_text("q")
            await asyncio.wait_for(task, KEY_WAIT_S)  # q ends the application
            return app

    app = asyncio.run(drive())
    assert not app.application.is_running


# --- a signed log: only after the audit -------------------------------------------------------


@pytest.mark.slow
def test_an_audited_log_is_replayed_with_the_audits_faces(tmp_path: Path) -> None:
    path = vector_log(tmp_path)
    report = verify_file(parse(path, path.read_bytes()))
    game = game_of_report(report)
    assert isinstance(game, ReplayGame)
    expected = [Card(Suit(suit), rank) for suit, rank in vector()["faces"]]
    assert list(game.faces) == expected
    replay = replay_steps(game)
    assert replay.illegal == ""
    assert replay.steps[-1].state.public_hash().hex() == vector()["final"]["public_hash"]
    lines = screen(replay, replay.step_of_turn(20))
    assert "turn 20 of 70" in lines[0]


@pytest.mark.slow
def test_a_log_whose_audit_failed_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vector_log(tmp_path, forge_seed=True)
    code = cli.main(["log", "replay", vector()["table_id"][:6], "--data-dir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 1
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("hanabi-p2p log replay: error: cannot replay this game: invalid: ")
    assert "deck audit failed: the seed does not match its commitment" in err


@pytest.mark.slow
def test_a_log_never_audited_is_refused(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    data = vector()
    entries = [decode_entry(bytes.fromhex(e["bytes"])) for e in data["entries"]]
    path = store(tmp_path, [e for e in entries if e.kind != "seed"],
                 bytes.fromhex(data["table_id"]))
    assert cli.main(["log", "replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        "hanabi-p2p log replay: error: cannot replay this game: unfinished: deck not audited")


# --- a hanab.live file ------------------------------------------------------------------------


def test_replay_file_interactive_opens_that_files_game(
    monkeypatch: pytest.MonkeyPatch, replay: Replay
) -> None:
    shown: list[ReplayGame] = []
    monkeypatch.setattr(replay_interactive, "show", lambda game, theme: shown.append(game))
    assert cli.main(["replay", str(FIVE_PLAYERS), "--interactive"]) == 0
    assert [(g.names, g.faces, g.actions) for g in shown] == [
        (replay.game.names, replay.game.faces, replay.game.actions)]
    # titled by the file's name: its full path crowded the title out (issue 30); the pace
    # and the best score still reachable stand on the fireworks row
    assert shown[0].title == FIVE_PLAYERS.name
    top = [plain(line) for line in render_replay(ReplayCursor(replay_steps(shown[0]), 3), 80, 24)]
    assert top[0].startswith(f"Replay · {FIVE_PLAYERS.name[:20]}")
    assert str(FIVE_PLAYERS.parent) not in top[0]
    assert "pace " in top[1] and "max " in top[1]


def test_interactive_and_json_are_refused_together(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["replay", str(FIVE_PLAYERS), "--interactive", "--json"]) == cli.EXIT_USAGE
    assert "--interactive and --json cannot be combined" in capsys.readouterr().err


def test_a_file_replay_stops_before_an_illegal_action_and_says_why(tmp_path: Path) -> None:
    data = json.loads(FIVE_PLAYERS.read_text())
    data["actions"][20] = {"type": 0, "target": 49, "value": 0}  # the deck's last card
    game = load_game(data)
    replay = replay_steps(
        ReplayGame(game.config, game.players, tuple(game.faces), tuple(game.actions)))
    assert replay.last == 20  # the twenty actions before it
    lines = screen(replay, replay.last)
    assert any(line.startswith("▸ action 21 is illegal: ") for line in lines)


def test_the_final_round_is_announced_as_at_the_table(replay: Replay) -> None:
    step = next(s for s in replay.steps if s.state.final_round_turns_left == 3)
    assert "FINAL ROUND: 3 turns left" in screen(replay, step.index)[0]


def test_the_timeline_marks_misplays_saves_and_the_step_shown(replay: Replay) -> None:
    stats = replay_stats(replay.game)
    assert stats is not None
    saves = sum(p.mark is Mark.SAVE for p in stats.points)
    misplays = sum(p.mark is Mark.MISPLAY for p in stats.points)
    cursor_columns = []
    for step in (0, 30, replay.last):
        lines = render_replay(ReplayCursor(replay, step), 80, 24)
        row = next(line for line in lines if plain(line).startswith("Turns "))
        text = plain(row)
        assert text.endswith("✖ misplay  ◆ save") and width(row) <= 80
        bar = text.removeprefix("Turns ").split("  ")[0].strip()
        assert bar.count("◆") == saves and bar.count("✖") == misplays  # 54 columns: one a turn
        column = 0
        for style, fragment in row:
            if "class:timeline-cursor" in style.split():
                cursor_columns.append(column)
            column += width([(style, fragment)])
    assert cursor_columns == sorted(cursor_columns) and len(set(cursor_columns)) == 3
