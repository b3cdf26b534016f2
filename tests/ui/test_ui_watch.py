"""Spectators on screen: the read-only table, the lists of who watches, the table options,
and the coach at networked tables opened with the hints option."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace
from typing import Any, cast

import pytest
from prompt_toolkit.output import DummyOutput
from ui_helpers import FACE_PATTERN, NAMES, card, game, texts, widest

from hanabi_p2p import i18n
from hanabi_p2p.frontends.screen import ScreenFrontend
from hanabi_p2p.peer.handle import PeerHandle
from hanabi_p2p.rules.actions import Clue
from hanabi_p2p.rules.cards import GameConfig, Suit
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.session.bodies import TableOption
from hanabi_p2p.ui.app import App
from hanabi_p2p.ui.commands import CommandError, Info, Quit, Show, parse_watching
from hanabi_p2p.ui.lobby import render_lobby
from hanabi_p2p.ui.table import render_table
from hanabi_p2p.ui.text import plain
from hanabi_p2p.ui.view import (
    LobbySeat,
    LobbyView,
    TableView,
    WatcherRow,
    Watching,
    WatchView,
)
from hanabi_p2p.ui.watch import render_watch, watch_board

HANDS_3 = (
    ("R1", "Y1", "G1", "B1", "W1"),
    ("R2", "Y2", "G2", "B2", "W2"),
    ("R3", "Y3", "G3", "B3", "W3"),
)
HANDS_BY_PLAYERS = {
    2: HANDS_3[:2],
    3: HANDS_3,
    4: (("R1", "Y1", "G1", "B1"), ("R2", "Y2", "G2", "B2"),
        ("R3", "Y3", "G3", "B3"), ("R4", "Y4", "G4", "B4")),
    5: (("R1", "Y1", "G1", "B1"), ("R2", "Y2", "G2", "B2"), ("R3", "Y3", "G3", "B3"),
        ("R4", "Y4", "G4", "B4"), ("W1", "W2", "W3", "W4")),
}
EVE = WatcherRow("Eve\x1b[31m", "K7QF-2M9D", sees_hands=True)
FRANK = WatcherRow("Frank", "ZZ9P-LURA", sees_hands=False)


class Recorder:
    """The callbacks of a spectator's App: nothing may ever be sent."""

    def __init__(self) -> None:
        self.sent: list[object] = []
        self.quits = 0

    def on_action(self, action: object) -> None:
        self.sent.append(action)

    def on_say(self, text: str) -> None:
        self.sent.append(text)

    def on_start(self) -> None:
        self.sent.append("start")

    def on_kick(self, peer_id: bytes, ban: bool = False) -> None:
        self.sent.append(peer_id)

    def on_hint(self) -> str:
        self.sent.append("hint")
        return ""

    def on_quit(self) -> None:
        self.quits += 1


def hidden(state: GameState, seats: tuple[int, ...]) -> GameState:
    """`state` as a spectator that decoded no card of `seats` knows it."""
    copy = state.copy()
    for seat in seats:
        for position in copy.hands[seat]:
            copy.faces[position] = None
    return copy


def watch_view(players: int = 3, watching: Watching = Watching.HANDS,
               state: GameState | None = None) -> WatchView:
    config = GameConfig(players)
    return WatchView(
        config=config,
        names=NAMES[:players],
        state=state or game(config, HANDS_BY_PLAYERS[players]),
        watching=watching,
        table_name="Friday",
        log=("Everyone is seated", "turn 1: Alice clues Bob"),
    )


@pytest.fixture(params=["en", "it", "ro", "nb"])
def lang(request: pytest.FixtureRequest) -> Any:
    i18n.setup(request.param)
    yield request.param
    i18n.setup("en")


# --- the spectator's table ------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_watch_table_fills_80x24_and_up_in_every_language(players: int, lang: str) -> None:
    view = watch_view(players)
    for columns, rows in ((80, 24), (100, 30), (140, 40)):
        lines = render_watch(view, columns, rows)
        assert len(lines) == rows and widest(lines) <= columns
        shown = "\n".join(texts(lines))
        # every card of every hand, each face once per line it is drawn on
        for hand in HANDS_BY_PLAYERS[players]:
            assert " ".join(hand) in " ".join(shown.split()) or all(f in shown for f in hand)
        for name in NAMES[:players]:
            assert name in shown


def test_every_face_the_spectator_decoded_is_shown_and_no_other() -> None:
    config = GameConfig(3)
    full = game(config, HANDS_3)
    view = watch_view(watching=Watching.PUBLIC, state=hidden(full, (0, 1, 2)))
    lines = texts(render_watch(view, 80, 24))
    hand_rows = [line for line in lines if any(name in line for name in NAMES[:3])
                 and "??" in line]
    assert len(hand_rows) == 3
    for line in hand_rows:
        assert not FACE_PATTERN.search(line), line  # a card back, never a guess
        assert line.count("??") == 5
    assert "public view only" in lines[-1]
    partly = hidden(full, (1,))
    lines = texts(render_watch(watch_view(state=partly), 80, 24))
    assert any("Alice" in line and "R1 " in line + " " for line in lines)
    bob = next(line for line in lines if "Bob" in line)
    assert "??" in bob and "R2" not in bob


def test_the_title_and_status_say_watching_and_what_is_visible() -> None:
    lines = texts(render_watch(watch_view(), 80, 24))
    assert lines[0].startswith("Watching · Friday")
    assert "every hand visible" in lines[-1]
    assert "Waiting for Alice" in lines[-1]
    assert "You (" not in "\n".join(lines)  # nobody's seat is "You"


def test_clue_marks_and_what_the_holder_knows_show_under_each_hand() -> None:
    config = GameConfig(3)
    state = game(config, HANDS_3)
    touched = frozenset(c for c in state.hands[1] if state.faces[c] == card("R2"))
    state.apply(Clue(seat=0, target=1, colour=Suit.RED, touched=touched))
    lines = texts(render_watch(watch_view(state=state), 100, 30))
    bob = next(i for i, line in enumerate(lines) if "Bob" in line and "R2" in line)
    assert "R2(R)" in lines[bob]
    assert "R····" in lines[bob + 1] or "R...." in lines[bob + 1]


# --- what a spectator may type ------------------------------------------------------------


@pytest.mark.parametrize("typed", [
    "play 1", "discard 2", "clue bob red", "say hello", "move 1 2", "hint", "note bob 1 x",
    "p 1", "di 1",
])
def test_a_players_command_is_refused_with_a_reason(typed: str) -> None:
    board = watch_board(watch_view())
    with pytest.raises(CommandError) as refused:
        parse_watching(typed, board, NAMES[:3])
    assert "you are watching" in str(refused.value)
    assert "for the players" in str(refused.value)


def test_info_log_rules_help_and_quit_work_for_a_spectator() -> None:
    view = watch_view()
    board = watch_board(view)
    names = NAMES[:3]
    assert parse_watching("info bob 2", board, names) == Info(view.state.hands[1][1])
    assert parse_watching("info 3 1", board, names) == Info(view.state.hands[2][0])
    for word in ("log", "rules", "help"):
        assert parse_watching(word, board, names) == Show(word)
    assert parse_watching("quit", board, names) == Quit()
    with pytest.raises(CommandError, match="usage: info PLAYER SLOT"):
        parse_watching("info 2", board, names)
    with pytest.raises(CommandError, match="no card in slot 9"):
        parse_watching("info bob 9", board, names)


def test_the_spectators_app_sends_nothing_and_explains(lang: str) -> None:
    session = Recorder()
    app = App(session, input=None, output=DummyOutput())
    view = watch_view()
    app.update(view)
    for typed in ("play 1", "clue bob red", "say hi", "hint"):
        assert not app.handle_text(typed)
        assert app.message.startswith("✖")
    assert session.sent == []
    app.handle_text("info bob 1")
    assert app.panel == "info"
    assert "R2" in "\n".join(plain(line) for line in app.screen_lines())
    app.handle_text("help")
    help_text = "\n".join(plain(line) for line in app.screen_lines())
    assert "info bob 2" in help_text and "play 2" not in help_text
    app.handle_text("help")
    app.handle_text("quit")  # no "really leave?": a spectator holds nobody up
    assert session.quits == 1


# --- players see who watches; the lobby shows the table options ------------------------------


def lobby(**changes: Any) -> LobbyView:
    seats = (LobbySeat("Ann", "AAAA-1111", is_host=True, is_me=True, peer_id=b"A"),
             LobbySeat("Bob", "BBBB-2222", peer_id=b"B"))
    view = LobbyView("Friday", GameConfig(3), seats, i_am_host=True)
    return dataclasses.replace(view, **changes)


def test_the_lobby_lists_spectators_with_fingerprints_and_clean_names(lang: str) -> None:
    lines = texts(render_lobby(lobby(watchers=(EVE, FRANK)), 80, 24))
    shown = "\n".join(lines)
    assert "\x1b" not in shown
    eve = next(line for line in lines if "Eve" in line)
    assert "K7QF-2M9D" in eve
    frank = next(line for line in lines if "Frank" in line)
    assert "ZZ9P-LURA" in frank
    assert eve != frank
    assert widest(render_lobby(lobby(watchers=(EVE, FRANK)), 80, 24)) <= 80


def test_the_lobby_shows_the_table_options_to_everyone() -> None:
    plain_table = "\n".join(texts(render_lobby(lobby(), 80, 24)))
    assert "Table options" not in plain_table
    both = texts(render_lobby(lobby(spectators_see_hands=True, hints_on=True,
                                    i_am_host=False), 80, 24))
    line = next(line for line in both if "Table options" in line)
    assert "spectators see every hand" in line and "hints on" in line


def test_a_spectator_in_the_lobby_is_told_it_watches() -> None:
    lines = texts(render_lobby(lobby(i_am_host=False, watching=Watching.PUBLIC), 80, 24))
    shown = "\n".join(lines)
    assert "public view only" in shown
    assert "type start" not in shown


def test_the_players_table_names_who_is_watching() -> None:
    config = GameConfig(3)
    view = TableView(config=config, my_seat=1, names=NAMES[:3], state=game(config, HANDS_3),
                     watchers=(EVE, FRANK))
    for seat in (0, 1):  # on our own turn too
        title = texts(render_table(dataclasses.replace(view, my_seat=seat), 80, 24))[0]
        assert "2 watching: Eve" in title and "Frank" in title and "\x1b" not in title
        assert title.startswith("standard") and title.endswith("turn 1")


# --- the coach at networked tables --------------------------------------------------------


def frontend_at(options: frozenset[TableOption]) -> ScreenFrontend:
    """A screen front end on a fake peer: seat 0 of three people (no computer players)."""
    config = GameConfig(3)
    state = game(config, HANDS_3)
    session = SimpleNamespace(
        state=state, my_seat=0, seats=("a", "b", "c"), names=list(NAMES[:3]),
        table=SimpleNamespace(table_options=options),
    )
    peer = SimpleNamespace(session=session, address="127.0.0.1:1")
    front = ScreenFrontend(lang="en")
    front.attach(cast(PeerHandle, peer))
    return front


def test_hint_is_refused_at_a_table_of_people_and_says_how_to_turn_it_on() -> None:
    text = frontend_at(frozenset()).on_hint()
    assert "Hints are off at this table" in text
    assert "hanabi-p2p host --option hints" in text


def test_hint_advises_at_a_table_opened_with_the_hints_option() -> None:
    text = frontend_at(frozenset({TableOption.HINTS})).on_hint()
    assert text.startswith("Hint: ")


def test_a_spectator_in_the_lobby_leaves_at_once_and_cannot_talk_or_start() -> None:
    session = Recorder()
    app = App(session, input=None, output=DummyOutput())
    app.update(lobby(i_am_host=False, seated=True, watching=Watching.HANDS))
    for typed in ("say hi", "start", "kick bob"):
        assert not app.handle_text(typed)
        assert "you are watching" in app.message
    assert not app.handle_text("info bob 1")
    assert "the game has not started yet" in app.message
    app.handle_text("quit")  # the shuffle goes on without a spectator: no question
    assert session.quits == 1 and session.sent == []


def test_the_cores_refusal_of_a_spectator_reads_in_the_players_language(lang: str) -> None:
    from hanabi_p2p.refusals import SpectatorsWatch
    from hanabi_p2p.ui.refusals import translate_refusal

    text = translate_refusal(SpectatorsWatch())
    assert str(SpectatorsWatch()) == "spectators watch: they cannot play, talk or start the game"
    assert "spectators watch" not in text and "{" not in text
