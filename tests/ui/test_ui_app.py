"""The real Application driven through a pipe: keys in, callbacks and screen out."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Iterator

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from ui_helpers import NAMES, game

from hanabi_p2p import i18n
from hanabi_p2p.rules.actions import Action, Clue, Play
from hanabi_p2p.rules.cards import GameConfig, Suit
from hanabi_p2p.ui.app import App
from hanabi_p2p.ui.text import plain
from hanabi_p2p.ui.view import LobbySeat, LobbyView, TableView

HANDS = [
    ["R1", "R2", "Y1", "Y3", "B5"],
    ["R3", "R4", "G1", "W1", "R5"],
    ["Y2", "G2", "B1", "B2", "W2"],
]


class Recorder:
    """Session callbacks that remember what the UI asked for."""

    def __init__(self) -> None:
        self.actions: list[Action] = []
        self.said: list[str] = []
        self.starts = 0
        self.quits = 0
        self.kicked: list[bytes] = []
        self.banned: list[bytes] = []
        self.renamed: list[str] = []

    def on_action(self, action: Action) -> None:
        self.actions.append(action)

    def on_say(self, text: str) -> None:
        self.said.append(text)

    def on_start(self) -> None:
        self.starts += 1

    def on_quit(self) -> None:
        self.quits += 1

    def on_kick(self, peer_id: bytes, ban: bool = False) -> None:
        (self.banned if ban else self.kicked).append(peer_id)

    def on_rename(self, name: str) -> None:
        self.renamed.append(name)

    def on_hint(self) -> str:
        self.hints = getattr(self, "hints", 0) + 1
        return "Hint: clue Bob red"


class BellCountingOutput(DummyOutput):
    def __init__(self) -> None:
        self.rang = 0

    def bell(self) -> None:
        self.rang += 1


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe_input:
        yield pipe_input


def table(seat: int = 0) -> TableView:
    config = GameConfig(3)
    return TableView(config, seat, NAMES[:3], game(config, HANDS))


Step = tuple[str, Callable[[], bool]]


def drive_steps(app: App, pipe: PipeInput, steps: list[Step]) -> None:
    """Run the app; for each step type its keys and wait until its condition holds.

    Waiting is bounded (~5 s per step) but nothing asserts on time: a step that never
    completes shows up as the test's own assertion failing afterwards.
    """

    async def main() -> None:
        task = asyncio.create_task(app.run_async())
        await asyncio.sleep(0)
        for keys, until in steps:
            pipe.send_text(keys)
            for _ in range(500):
                if until():
                    break
                await asyncio.sleep(0.01)
        app.exit()
        await task

    asyncio.run(main())


def drive(app: App, pipe: PipeInput, keys: str, until: Callable[[], bool]) -> None:
    drive_steps(app, pipe, [(keys, until)])


def screen(app: App) -> list[str]:
    return [plain(line) for line in app.screen_lines()]


def test_a_legal_command_is_sent_as_an_action(pipe: PipeInput) -> None:
    session = Recorder()
    app = App(session, input=pipe, output=DummyOutput())
    view = table()
    app.update(view)
    bob = view.state.hands[1]
    drive(app, pipe, "clue bob red\r", lambda: bool(session.actions))
    assert session.actions == [
        Clue(seat=0, target=1, colour=Suit.RED, touched=frozenset({bob[0], bob[1], bob[4]}))
    ]
    assert app.message == ""


def test_an_illegal_command_sends_nothing_and_says_why(pipe: PipeInput) -> None:
    session = Recorder()
    app = App(session, input=pipe, output=DummyOutput())
    app.update(table())
    drive(app, pipe, "discard 1\r", lambda: bool(app.message))
    assert session.actions == []
    assert app.message == "✖ discard 1: you cannot discard: all 8 clue tokens are available"
    # the line is cleared, so the next command is not typed onto the rejected one
    assert app.input_text == ""
    assert app.application.current_buffer.history.get_strings()[-1] == "discard 1"


def test_not_my_turn_is_queued_not_sent(pipe: PipeInput) -> None:
    session = Recorder()
    app = App(session, input=pipe, output=DummyOutput())
    app.update(table(seat=2))
    drive(app, pipe, "play 1\r", lambda: bool(app.message))
    assert session.actions == []  # a premove (tests/ui/test_premove.py): kept for our turn
    assert app.message.startswith("Queued for your turn: play 1")


def test_tab_completes_names_and_colours(pipe: PipeInput) -> None:
    session = Recorder()
    app = App(session, input=pipe, output=DummyOutput())
    view = table()
    app.update(view)
    drive_steps(
        app,
        pipe,
        [
            ("c\t", lambda: app.input_text == "clue "),
            ("ca\t", lambda: app.input_text == "clue Carol "),
            ("gr\t", lambda: app.input_text == "clue Carol green "),
            ("\r", lambda: bool(session.actions or app.message)),
        ],
    )
    assert session.actions and isinstance(session.actions[0], Clue)
    assert session.actions[0].target == 2 and session.actions[0].colour is Suit.GREEN


def test_say_and_quit(pipe: PipeInput) -> None:
    session = Recorder()
    app = App(
        session, input=pipe, output=DummyOutput(), resume_command="hanabi-p2p join --resume"
    )
    app.update(table())
    drive(app, pipe, "say good luck\rquit\r", lambda: app.leaving)
    assert session.said == ["good luck"]
    assert session.quits == 0  # asked first: a game is on
    assert "come back with: hanabi-p2p join --resume" in app.message
    drive(app, pipe, "quit\r", lambda: session.quits > 0)
    assert session.quits == 1
    assert session.actions == []


def test_bell_rings_once_when_my_turn_begins() -> None:
    output = BellCountingOutput()
    app = App(Recorder(), input=None, output=output)
    view = table(seat=1)  # Alice to move: not our turn
    app.update(view)
    assert output.rang == 0
    state = view.state
    state.apply(Play(seat=0, card=state.hands[0][0]))
    app.update(dataclasses.replace(view, state=state))  # now Bob, us
    assert output.rang == 1
    app.update(dataclasses.replace(view, state=state, log=("chat",)))  # same turn: no bell
    assert output.rang == 1
    assert screen(app)[-1].startswith("▶ Your turn")


def test_help_rules_and_log_panels_toggle(pipe: PipeInput) -> None:
    app = App(Recorder(), input=pipe, output=DummyOutput())
    app.update(dataclasses.replace(table(), log=("Alice plays R1 from slot 1: placed",)))
    drive(app, pipe, "help\r", lambda: app.panel == "help")
    assert screen(app)[0].startswith("Help")
    assert any("clue bob red" in line for line in screen(app))
    app.handle_text("rules")
    assert app.panel == "rules"
    assert any("HANABI" in line for line in screen(app))
    app.handle_text("log")
    assert any("Alice plays R1" in line for line in screen(app))
    app.handle_text("log")
    assert app.panel is None


def test_lobby_start_only_for_the_host_once_full() -> None:
    session = Recorder()
    app = App(session, input=None, output=DummyOutput())
    seats = tuple(LobbySeat(name, "ab") for name in NAMES[:3])
    guest = LobbyView("Friday", GameConfig(3), seats, i_am_host=False)
    app.update(guest)
    app.handle_text("start")
    assert session.starts == 0 and app.message == "only the host can start the game"
    app.update(dataclasses.replace(guest, i_am_host=True, seats=seats[:2]))
    app.handle_text("start")
    assert session.starts == 0 and app.message == "not everyone is here yet"
    app.update(dataclasses.replace(guest, i_am_host=True))
    app.handle_text("start")
    assert session.starts == 1


def test_screen_fills_the_terminal_above_the_input() -> None:
    app = App(Recorder(), input=None, output=DummyOutput())  # DummyOutput is 80x40
    app.update(table())
    lines = app.screen_lines()
    assert len(lines) == 38
    assert all(len(plain(line)) <= 80 for line in lines)


def test_ctrl_c_asks_once_and_anything_else_stays(pipe: PipeInput) -> None:
    session = Recorder()
    app = App(session, input=pipe, output=DummyOutput())  # a practice game: no way back
    app.update(table())
    drive(app, pipe, "\x03", lambda: app.leaving)
    assert session.quits == 0 and "cannot be resumed" in app.message
    app.handle_text("log")  # anything else: we stay
    assert not app.leaving and session.quits == 0
    drive(app, pipe, "\x03\x03", lambda: session.quits > 0)
    assert session.quits == 1


def test_yes_and_no_answer_the_question_to_leave() -> None:
    # "no" used to run as the start of "note" (usage: note ...), "yes" was unknown and stayed
    session = Recorder()
    app = App(session, input=None, output=DummyOutput())
    app.update(table())
    app.handle_text("quit")
    assert app.leaving and app.handle_text("no")
    assert not app.leaving and session.quits == 0 and app.message == "You stay at the table"
    app.handle_text("quit")
    app.handle_text("Yes")
    assert session.quits == 1


def test_the_answer_to_leave_may_be_in_the_players_language() -> None:
    i18n.setup("it")
    try:
        session = Recorder()
        app = App(session, input=None, output=DummyOutput())
        app.update(table())
        app.handle_text("quit")
        app.handle_text("no")
        assert session.quits == 0 and app.message == "Resti al tavolo"
        app.handle_text("quit")
        app.handle_text("sì")
        assert session.quits == 1
    finally:
        i18n.setup("en")


def test_leaving_the_end_screen_needs_no_confirmation() -> None:
    session = Recorder()
    app = App(session, input=None, output=DummyOutput())
    view = table()
    state = view.state
    while not state.over:
        state.apply(state.legal_actions()[0])
    app.update(dataclasses.replace(view, state=state))
    app.handle_text("quit")
    assert session.quits == 1


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_notices_expire_and_refusals_last_longer() -> None:
    clock = Clock()
    app = App(Recorder(), input=None, output=DummyOutput(), clock=clock)
    app.update(table())
    app.notify("bot2 sits down")
    assert app.message == "bot2 sits down"
    clock.now += 30
    assert app.message == ""  # not there all game
    app.handle_text("discard 1")
    clock.now += 10
    assert "you cannot discard" in app.message
    clock.now += 60
    assert app.message == ""


def test_a_long_message_wraps_under_the_input_instead_of_being_cut() -> None:
    app = App(Recorder(), input=None, output=DummyOutput())  # 80 columns
    app.update(table())
    long = "non puoi scartare: tutti gli 8 gettoni blu sono disponibili " * 2 + "FINE"
    app.notify(long)
    shown = [plain(line) for line in app._message_lines()]
    assert len(shown) == 2 and shown[-1].endswith("FINE")
    assert len(app.screen_lines()) == 40 - 1 - 2  # the body gives the message its rows


def test_note_and_info_on_cards(pipe: PipeInput) -> None:
    app = App(Recorder(), input=pipe, output=DummyOutput())
    view = table()
    state = view.state
    state.apply(Clue(seat=0, target=1, colour=Suit.RED, touched=frozenset(
        c for c in state.hands[1] if (face := state.faces[c]) is not None and face.suit is Suit.RED
    )))
    app.update(dataclasses.replace(view, state=state))
    app.handle_text("note 3 maybe a 5")
    assert app.notes.get(state.hands[0][2]) == "maybe a 5"
    app.handle_text("note carol 2 save")
    lines = screen(app)
    assert any("3✎ maybe a 5" in line and "Carol 2✎ save" in line for line in lines)
    app.handle_text("info bob 1")
    assert app.panel == "info"
    story = "\n".join(screen(app))
    assert "Bob's card in slot 1: R3" in story
    assert "turn 1: Alice clued red, touching this card" in story
    app.handle_text("info #2 3")
    assert "Bob's card in slot 3: G1" in "\n".join(screen(app))
    assert "not touching this card" in "\n".join(screen(app))


def test_log_lines_since_my_last_turn_are_marked() -> None:
    app = App(Recorder(), input=None, output=DummyOutput())
    view = table()
    app.update(dataclasses.replace(view, log=("dealt",)))  # our turn, at the start
    state = view.state
    state.apply(Play(seat=0, card=state.hands[0][0]))
    app.update(dataclasses.replace(view, state=state, log=("dealt", "Alice plays R1")))
    state.apply(Play(seat=1, card=state.hands[1][0]))
    log = ("dealt", "Alice plays R1", "Bob plays R3")
    app.update(dataclasses.replace(view, state=state, log=log))
    lines = screen(app)
    assert any(line.startswith("▸ Bob plays R3") for line in lines)
    assert any(line.startswith("  Alice plays R1") for line in lines)


def test_a_light_theme_draws_white_and_yellow_dark() -> None:
    from hanabi_p2p.ui.symbols import Theme, detect_theme, style_for

    light = style_for(Theme.LIGHT).get_attrs_for_style_str("class:suit.white")
    dark = style_for(Theme.DARK).get_attrs_for_style_str("class:suit.white")
    assert dark.color == "ffffff" and light.color != "ffffff"
    yellow = style_for(Theme.LIGHT).get_attrs_for_style_str("class:suit.yellow")
    assert yellow.color != "ffd700"
    assert detect_theme({"COLORFGBG": "0;15"}) is Theme.LIGHT
    assert detect_theme({"COLORFGBG": "15;0"}) is Theme.DARK
    assert detect_theme({}) is Theme.DARK


def test_the_host_kicks_a_joiner_by_name_or_number_before_the_deal() -> None:
    session = Recorder()
    app = App(session, input=None, output=DummyOutput())
    seats = (
        LobbySeat("Ann", "a1", is_host=True, is_me=True, peer_id=b"A"),
        LobbySeat("Bob", "b2", peer_id=b"B"),
        LobbySeat("Mallory", "m3", peer_id=b"M"),
    )
    view = LobbyView("Friday", GameConfig(4), seats, i_am_host=True)
    app.update(view)
    app.handle_text("kick mal")
    app.handle_text("kick 2")
    assert session.kicked == [b"M", b"B"]
    app.handle_text("kick ann")
    assert "you cannot remove yourself" in app.message
    app.update(dataclasses.replace(view, i_am_host=False))
    app.handle_text("kick bob")
    assert "only the host" in app.message and len(session.kicked) == 2
    app.update(dataclasses.replace(view, seated=True))
    app.handle_text("kick bob")
    assert "nobody can be removed now" in app.message and len(session.kicked) == 2


def test_ban_removes_for_good_and_a_joiner_types_name_to_change_its_own() -> None:
    """Issue 30: `kick` removes (the player may come back), `ban` on purpose; a joiner
    changes its name in the lobby with `name NEW`."""
    session = Recorder()
    app = App(session, input=None, output=DummyOutput())
    seats = (
        LobbySeat("Ann", "a1", is_host=True, is_me=True, peer_id=b"A"),
        LobbySeat("root", "r2", peer_id=b"R"),
    )
    view = LobbyView("Friday", GameConfig(3), seats, i_am_host=True)
    app.update(view)
    app.handle_text("ban root")
    assert session.banned == [b"R"] and session.kicked == []
    app.handle_text("ban")
    assert "usage: ban NAME" in app.message
    app.update(dataclasses.replace(view, i_am_host=False))
    app.handle_text("name Bob the Builder")
    assert session.renamed == ["Bob the Builder"]
    app.handle_text("name")
    assert "usage: name NEW-NAME" in app.message and len(session.renamed) == 1


def test_hint_shows_the_advice_and_sends_nothing(pipe: PipeInput) -> None:
    session = Recorder()
    app = App(session, input=pipe, output=DummyOutput())
    app.update(table())
    drive(app, pipe, "hint\r", lambda: bool(app.message))
    assert app.message == "Hint: clue Bob red"
    assert session.actions == [] and getattr(session, "hints", 0) == 1


def test_the_practice_coach_advises_a_legal_move_in_words() -> None:
    """The hot-seat coach runs the convention player for the seat to move: its advice names
    an action the rules allow, in words."""
    from hanabi_p2p.ui.demo import HotSeat

    seat = HotSeat(GameConfig(3), seed=4, names=["Ann", "Bob", "Cid"])
    text = seat.on_hint()
    assert text.startswith("Hint: ")
    assert any(word in text for word in ("play", "discard", "clue"))


def test_the_lobbys_lines_go_at_the_deal() -> None:
    # A joiner who typed start saw "only the host can start the game" on the game screen,
    # and "bot2 sits down" stayed under the prompt on the first turn (issue 30).
    app = App(Recorder(), input=None, output=DummyOutput())
    seats = tuple(LobbySeat(name, "ab") for name in NAMES[:3])
    app.update(LobbyView("Friday", GameConfig(3), seats, i_am_host=False))
    app.handle_text("start")
    assert app.message == "only the host can start the game"
    app.update(table(1))
    assert app.message == ""
    app.update(LobbyView("Friday", GameConfig(3), seats, i_am_host=False))
    app.notify("bot2 sits down")
    app.update(table(1))
    assert app.message == ""
    app.notify("Carol dropped out")  # news during the game stays
    app.update(table(1))
    assert app.message == "Carol dropped out"


def test_any_other_answer_to_leave_stays_without_an_error() -> None:
    # "stay" used to stay but also print "unknown command 'stay'"
    session = Recorder()
    app = App(session, input=None, output=DummyOutput())
    app.update(table())
    app.handle_text("quit")
    assert app.leaving
    assert app.handle_text("stay")
    assert not app.leaving and session.quits == 0
    assert app.message == "You stay at the table"
    assert app.handle_text("bogus") is False  # not leaving any more: an ordinary refusal
    assert "unknown command 'bogus'" in app.message


def test_the_coach_ends_its_hint_with_the_command_to_type_in_every_language() -> None:
    # In Italian the hint said "gioca la carta in posizione 1", and "gioca 1" is no command:
    # the command words are English, so the hint shows the one to type.
    from hanabi_p2p.ui.demo import HotSeat

    i18n.setup("it")
    try:
        seat = HotSeat(GameConfig(3), seed=4, names=["Ann", "Bob", "Cid"])
        text = seat.on_hint()
        assert text.startswith("Suggerimento: ") and " — scrivi: " in text
        command = text.rsplit(" — scrivi: ", 1)[1]
        recorder = Recorder()
        app = App(recorder, input=None, output=DummyOutput())
        app.update(seat.view())
        assert app.handle_text(command), app.message
        assert len(recorder.actions) == 1
    finally:
        i18n.setup("en")
