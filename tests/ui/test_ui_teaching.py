"""The board that teaches and the table for people (issue 12): what the screens show and
what the commands accept, rendered as plain text."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest
from ui_helpers import FACE_PATTERN, NAMES, board, game, line_with, texts, widest

from hanabi_p2p import i18n
from hanabi_p2p.narration.narrator import describe
from hanabi_p2p.rules.actions import Clue, Discard, Play
from hanabi_p2p.rules.cards import Card, GameConfig, Suit
from hanabi_p2p.rules.engine import End
from hanabi_p2p.ui.commands import CommandError, Info, Mode, Note, SendAction, parse_on_board
from hanabi_p2p.ui.completion import CompletionContext, suggestions
from hanabi_p2p.ui.end import render_end
from hanabi_p2p.ui.helptext import command_help, rules_summary
from hanabi_p2p.ui.lobby import render_lobby
from hanabi_p2p.ui.notes import MAX_NOTE_CHARS, NoteBook
from hanabi_p2p.ui.refusals import translate_refusal
from hanabi_p2p.ui.table import render_table
from hanabi_p2p.ui.view import EndView, LobbySeat, LobbyView, TableView

THREE = GameConfig(3)
HANDS = [
    ["R1", "R2", "Y1", "Y3", "B5"],
    ["R3", "R4", "G1", "W1", "R5"],
    ["Y2", "G2", "B1", "B2", "W2"],
]


def view_of(state, seat: int = 0, **changes: object) -> TableView:  # type: ignore[no-untyped-def]
    view = TableView(THREE, seat, NAMES[:3], state, table_name="Friday")
    return dataclasses.replace(view, **changes)  # type: ignore[arg-type]


def screen(view: TableView, columns: int = 80, rows: int = 24) -> list[str]:
    lines = render_table(view, columns, rows)
    assert len(lines) == rows and widest(lines) <= columns
    return texts(lines)


# --- item 8: max score, pace, last copies ------------------------------------------------------


def test_max_score_and_pace_are_shown() -> None:
    state = game(THREE, HANDS)
    fireworks = line_with(screen(view_of(state)), "Fireworks")
    # 0 + 35 cards in the deck + 3 players - 25 = 13 discards to spare
    assert "pace 13" in fireworks and "max 25" in fireworks and "score 0/25" in fireworks


def test_losing_the_only_5_lowers_max_and_the_log_says_so() -> None:
    config = GameConfig(3)
    # Alice holds B5 in slot 5: spend a clue so that a discard is allowed, then throw it away
    state = game(config, HANDS)
    state.apply(Clue(seat=0, target=1, rank=1))
    state.apply(Clue(seat=1, target=2, rank=2))
    state.apply(Clue(seat=2, target=1, rank=5))
    before = state.copy()
    hands_before = [list(h) for h in state.hands]
    action = Discard(seat=0, card=state.hands[0][4])
    outcome = state.apply(action)
    lines = describe(action, outcome, NAMES[:3], hands_before, before)
    assert lines[0] == "Alice discards B5 from slot 5"
    assert lines[1] == "★ that was the last B5: it can no longer be played"
    assert "max 24" in line_with(screen(view_of(state)), "Fireworks")


def test_last_copies_are_starred_in_hands_and_in_the_discard_pile() -> None:
    state = game(THREE, HANDS)
    state.apply(Clue(seat=0, target=1, rank=1))
    state.apply(Clue(seat=1, target=2, rank=2))
    # Carol discards W2: the other W2 becomes a last copy
    state.apply(Discard(seat=2, card=state.hands[2][4]))
    lines = screen(view_of(state))
    assert "W:2★" in line_with(lines, "Discards")
    bob = line_with(lines, "Bob").split()
    assert "R5★" in bob and "R3" in bob  # a 5 is always the last of its kind; R3 is not


def test_no_star_for_a_card_that_can_no_longer_score() -> None:
    hands = [["R4", "R4", "Y1", "Y3", "B5"], ["R3", "R1", "G1", "W1", "R5"], HANDS[2]]
    state = game(THREE, hands)
    assert board(state).hands[1][4].last_copy  # R5, while an R4 may still come
    state.apply(Clue(seat=0, target=1, rank=1))
    for _ in range(2):  # Alice throws both R4 away (the drawn card pushes the other to slot 2)
        state.apply(Clue(seat=1, target=2, rank=2))
        state.apply(Clue(seat=2, target=1, rank=3))
        state.apply(Discard(seat=0, card=state.hands[0][1]))
    assert not board(state).hands[1][4].last_copy  # R5 can never be played now
    assert "max 23" in line_with(screen(view_of(state)), "Fireworks")


# --- item 9/10: note and info -----------------------------------------------------------------


def test_note_and_info_commands_parse() -> None:
    state = game(THREE, HANDS)
    seen = board(state)
    assert parse_on_board("note 3 chop  soon", seen, NAMES[:3]) == Note(
        state.hands[0][2], "chop  soon"
    )
    assert parse_on_board("note bob 5 save it", seen, NAMES[:3]) == Note(
        state.hands[1][4], "save it"
    )
    assert parse_on_board("note 2", seen, NAMES[:3]) == Note(state.hands[0][1], "")
    assert parse_on_board("info #3 1", seen, NAMES[:3]) == Info(state.hands[2][0])
    assert parse_on_board("i 4", seen, NAMES[:3]) == Info(state.hands[0][3])
    with pytest.raises(CommandError, match="Bob has no card in slot 7"):
        parse_on_board("info bob 7", seen, NAMES[:3])
    with pytest.raises(CommandError, match="too long"):
        parse_on_board("note 1 " + "x" * (MAX_NOTE_CHARS + 1), seen, NAMES[:3])


def test_notes_survive_a_restart(tmp_path: Path) -> None:
    games = tmp_path / "games"
    private = tmp_path / "private"
    games.mkdir()
    private.mkdir()
    log = games / "ab12.hlog"
    book = NoteBook.for_game(log)
    book.set(17, "  maybe   R5 ")
    book.set(3, "x")
    book.set(3, "")
    again = NoteBook.for_game(log)
    assert again.all() == {17: "maybe R5"}
    saved = private / "ab12.notes.json"
    assert json.loads(saved.read_text()) == {"17": "maybe R5"}
    assert saved.stat().st_mode & 0o777 == 0o600


def test_a_damaged_notes_file_is_an_empty_notebook(tmp_path: Path) -> None:
    (tmp_path / "games").mkdir()
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "ab.notes.json").write_text("{not json")
    assert NoteBook.for_game(tmp_path / "games" / "ab.hlog").all() == {}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_notes_file_that_is_a_fifo_or_a_link_is_an_empty_notebook_never_a_hang(
    tmp_path: Path,
) -> None:
    (tmp_path / "games").mkdir()
    private = tmp_path / "private"
    private.mkdir()
    os.mkfifo(private / "ab.notes.json")  # read as a file, nobody ever writes it: a hang
    assert NoteBook.for_game(tmp_path / "games" / "ab.hlog").all() == {}
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text('{"1": "from somewhere else"}')
    (private / "cd.notes.json").symlink_to(elsewhere)
    assert NoteBook.for_game(tmp_path / "games" / "cd.hlog").all() == {}


def test_the_end_screen_shows_every_hand_face_up() -> None:
    state = game(THREE, HANDS)
    faces = {c: f for c, f in enumerate(state.faces) if f is not None}
    view = EndView(
        config=THREE, score=0, rating="horrible", end=End.TERMINATED,
        fireworks=tuple((s, 0) for s in THREE.suits), names=NAMES[:3],
        hands=tuple(tuple(state.faces[c] for c in hand) for hand in state.hands),
        state=state, faces=faces, my_seat=0,
        log_path="/a/very/long/path/" + "x" * 90 + "/game.hlog",
    )
    lines = texts(render_end(view, 80, 30))
    assert widest(render_end(view, 80, 30)) <= 80
    assert line_with(lines, "1 Alice").split()[-5:] == HANDS[0]  # our own hand too, face up
    assert line_with(lines, "3 Carol").split()[-5:] == HANDS[2]
    # the log path wraps instead of being cut
    joined = "".join(line.strip() for line in lines)
    assert "x" * 90 + "/game.hlog" in joined
    assert any("info NAME SLOT" in line for line in lines)


# --- item 11: narrow terminals -----------------------------------------------------------------


@pytest.mark.parametrize(("columns", "rows"), [(60, 20), (50, 24), (40, 30)])
def test_a_narrow_terminal_wraps_but_never_hides_a_card(columns: int, rows: int) -> None:
    state = game(THREE, HANDS)
    lines = screen(view_of(state), columns, rows)
    text = "\n".join(lines)
    for hand in HANDS[1:]:
        for face in hand:
            assert face in text, f"{face} hidden at {columns}x{rows}:\n{text}"
    assert "…" not in "".join(line for line in lines if FACE_PATTERN.search(line))
    assert "Deck 35" in text  # the counters wrap too, never cut
    own = [w for line in lines for w in line.split() if w[:1].isdigit() and ":" in w]
    assert [w.split(":")[0] for w in own] == ["1", "2", "3", "4", "5"]


# --- item 2: seat numbers --------------------------------------------------------------------


def test_two_players_with_one_name_are_told_apart_by_seat_number() -> None:
    names = ("Dave", "Bob", "Dave")
    state = game(THREE, HANDS)
    seen = board(state)
    with pytest.raises(CommandError, match=r"Dave \(seat 1\), Dave \(seat 3\)"):
        parse_on_board("clue dave 1", seen, names)
    intent = parse_on_board("clue 3 blue", seen, names, state.check)
    assert isinstance(intent, SendAction) and isinstance(intent.action, Clue)
    assert intent.action.target == 2
    context = CompletionContext(Mode.TABLE, seen, names)
    assert suggestions(context, ["clue"], "") == ["Bob", "3"]
    assert suggestions(context, ["info"], "") == ["1", "2", "3", "4", "5", "Bob", "#3"]


# --- issue 10 item 12: whose machine runs a computer player --------------------------------------


def test_computer_seats_name_the_machine_that_runs_them() -> None:
    state = game(THREE, HANDS)
    lines = screen(view_of(state, runners=("", "Alice", "")))
    assert "2 Bob ⚙Alice" in line_with(lines, "Bob")
    lobby = LobbyView(
        "Friday", THREE,
        (
            LobbySeat("Alice", "a1", is_host=True, is_me=True),
            LobbySeat("bot1", "b2", runner="Alice"),
        ),
        i_am_host=True,
    )
    assert "computer player run by Alice's machine" in line_with(
        texts(render_lobby(lobby, 100, 20)), "bot1"
    )


# --- item 7, 18, 20: rules, translations, help ----------------------------------------------------


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_rules_give_the_copies_and_the_hand_sizes(lang: str) -> None:
    i18n.setup(lang)
    text = "\n".join(rules_summary())
    assert "1" in text and "5" in text
    source = "Hands: 5 cards each with 2 or 3 players, 4 cards each with 4 or 5 players."
    shown = i18n._(source)
    assert shown in text
    assert (shown != source) == (lang != "en")


def test_engine_refusals_reach_the_player_translated() -> None:
    from hanabi_p2p import refusals as rf
    from hanabi_p2p.errors import IllegalAction

    i18n.setup("it")
    assert translate_refusal(rf.NotYourTurn("Bob")) == "è il turno di Bob"
    assert translate_refusal(rf.NoClueTokens()) != "no clue tokens left"
    # a peer's name is made safe to print
    assert translate_refusal(rf.NotYourTurn("B\x1b[2Jb")) == "è il turno di B?[2Jb"
    # an untyped refusal, or a reason as text, is shown as it is, made safe
    assert translate_refusal(IllegalAction("odd \x1b[2J thing")) == "odd ?[2J thing"
    assert translate_refusal("it is Bob's turn") == "it is Bob's turn"


def test_start_is_in_the_lobby_help_for_the_host_only() -> None:
    assert not any(line.strip().startswith("start") for line in command_help(Mode.LOBBY))
    assert any(line.strip().startswith("start") for line in command_help(Mode.LOBBY, True))
    table_help = "\n".join(command_help(Mode.TABLE))
    assert "note 3 TEXT" in table_help and "info 3" in table_help and "★" in table_help


def test_a_play_in_the_end_mode_is_unknown_but_info_works() -> None:
    state = game(THREE, HANDS)
    seen = board(state)
    assert parse_on_board("info bob 1", seen, NAMES[:3], mode=Mode.END) == Info(state.hands[1][0])
    with pytest.raises(CommandError, match="unknown command 'play'"):
        parse_on_board("play 1", seen, NAMES[:3], mode=Mode.END)


def test_card_faces_known_after_the_end_are_in_its_story() -> None:
    from hanabi_p2p.ui.info import card_story

    state = game(THREE, HANDS)
    state.apply(Play(seat=0, card=state.hands[0][0]))
    card = state.hands[0][1]
    mine = card_story(state, card, NAMES[:3], 0)
    assert mine[0] == "Your card in slot 2: ??"
    audited = card_story(state, card, NAMES[:3], 0, faces={card: Card(Suit.RED, 2)})
    assert audited[0] == "Your card in slot 2: R2"


def test_a_hostile_name_never_reaches_the_message_line_or_the_menu() -> None:
    from prompt_toolkit.output import DummyOutput

    from hanabi_p2p.ui.app import App

    class Quiet:
        def on_action(self, action: object) -> None: ...
        def on_say(self, text: str) -> None: ...
        def on_start(self) -> None: ...
        def on_quit(self) -> None: ...

    names = ("Alice", "Bob\x1b[2J", "Bo\u202eb")
    state = game(THREE, HANDS)
    app = App(Quiet(), input=None, output=DummyOutput())  # type: ignore[arg-type]
    app.update(view_of(state, names=names))
    app.handle_text("clue bo red")
    shown = "".join(text for line in app._message_lines() for _style, text in line)
    assert "could be" in shown and "\x1b" not in shown and "\u202e" not in shown
    context = CompletionContext(Mode.TABLE, board(state), names)
    assert suggestions(context, ["clue"], "") == ["2", "3"]


def test_a_player_seated_under_another_name_is_told_so() -> None:
    """Names are unique at a table ("Ann 2"); the screen tells the player who sits under
    another name than the one asked for, and keeps it in the log."""
    from types import SimpleNamespace

    from prompt_toolkit.output import DummyOutput
    from test_ui_live import Pair

    from hanabi_p2p.frontends.screen import ScreenFrontend
    from hanabi_p2p.session import events as ev
    from hanabi_p2p.session.bodies import Address
    from hanabi_p2p.ui.app import App

    pair = Pair()
    pair.ann.open_table("Ann's table", "Ann", GameConfig(2))
    pair.deliver()
    # the joiner asked to sit as "Ann"; the name was taken, so it sits as "Ann 2"
    pair.bob.request_seat("Ann 2", Address("127.0.0.1", 40001))
    pair.deliver()
    pair.ann.seat_players(Address("127.0.0.1", 40000))
    pair.deliver()
    bob = pair.bob
    front = ScreenFrontend("en", output=DummyOutput())
    front.app = App(front, output=DummyOutput())
    front.peer = SimpleNamespace(  # type: ignore[assignment]
        session=bob, table_id=bytes(16), player_name="Ann"
    )
    front._tell(ev.Seated())
    assert front.app.message == "Another player has your name: you sit as Ann 2 (seat 2)"
    assert front.log[-1] == front.app.message


def test_every_refusal_the_engine_gives_a_player_is_translated() -> None:
    from hanabi_p2p.errors import IllegalAction

    state = game(THREE, HANDS)
    attempts = [
        Discard(seat=0, card=state.hands[0][0]),  # all 8 tokens available
        Clue(seat=0, target=0, rank=1),  # ourselves
        Play(seat=1, card=state.hands[1][0]),  # not our turn
        Play(seat=0, card=state.hands[0][0], announce=Suit.RED),  # no choreography
        Clue(seat=0, target=1, rank=2),  # Bob holds no 2: an empty clue
    ]
    i18n.setup("it")
    for action in attempts:
        with pytest.raises(IllegalAction) as refused:
            state.check(action)
        english = str(refused.value)
        assert translate_refusal(refused.value) != english, english


def test_a_burnt_fuse_is_counted_and_a_wrong_announcement_is_named() -> None:
    config = GameConfig(3, choreography=True)
    state = game(config, HANDS)
    before = state.copy()
    action = Play(seat=0, card=state.hands[0][0], announce=Suit.YELLOW)  # R1, said yellow
    outcome = state.apply(action)
    lines = describe(action, outcome, NAMES[:3], before.hands, before)
    assert lines[0] == (
        "Alice announces yellow and plays R1 from slot 1: "
        "wrong colour announced: discarded, fuse 1 of 3 burns"
    )
    before = state.copy()
    misplay = Play(seat=1, card=state.hands[1][1])  # Bob's R4 on an empty red firework
    outcome = state.apply(misplay)
    assert describe(misplay, outcome, NAMES[:3], before.hands, before)[0] == (
        "Bob plays R4 from slot 2: it does not fit, fuse 2 of 3 burns"
    )
