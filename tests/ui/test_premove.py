"""Premoves: queued during another player's turn, carried out or cancelled when ours comes.

The decision (`ui.premove.decide`) in memory on real engine states, then the table's command
line: what is queued, what the status line shows, what is sent and what the player is told.
"""

from __future__ import annotations

import copy

from prompt_toolkit.output import DummyOutput
from ui_helpers import NAMES, game

from hanabi_p2p.rules.actions import Action, Clue, Discard, Play, Terminate
from hanabi_p2p.rules.cards import GameConfig, Suit
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.ui.app import App
from hanabi_p2p.ui.premove import Cancelled, Drop, Go, Premove, decide
from hanabi_p2p.ui.table import status_line
from hanabi_p2p.ui.text import plain
from hanabi_p2p.ui.view import TableView

THREE = GameConfig(3)
# Alice (seat 0) holds R1 R2 Y1 Y3 B5; Bob holds R3 R4 G1 W1 R5; Carol holds Y2 G2 B1 B2 W2.
HANDS = [
    ["R1", "R2", "Y1", "Y3", "B5"],
    ["R3", "R4", "G1", "W1", "R5"],
    ["Y2", "G2", "B1", "B2", "W2"],
]
BOB, CAROL = 1, 2


def fresh() -> GameState:
    return game(THREE, HANDS)


def clue(state: GameState, target: int, *, colour: Suit | None = None,
         rank: int | None = None) -> Clue:
    hand = state.hands[target]
    touched = frozenset(c for c in hand if (face := state.faces[c]) is not None and (
        face.suit == colour if colour is not None else face.rank == rank))
    return Clue(state.current_seat, target, colour=colour, rank=rank, touched=touched)


# --- the decision --------------------------------------------------------------------------


def test_a_premove_waits_for_its_turn_then_goes() -> None:
    state = fresh()
    bobs_first = state.hands[BOB][0]
    premove = Premove.queue(Play(BOB, bobs_first), "play 1", state)
    assert decide(premove, state, BOB) is None  # Alice's turn: keep it
    state.apply(clue(state, CAROL, rank=2))  # Alice clues someone else
    assert decide(premove, state, BOB) == Go(Play(BOB, bobs_first))


def test_a_clue_touching_the_card_cancels_it_and_one_elsewhere_does_not() -> None:
    state = fresh()
    g1, r5 = state.hands[BOB][2], state.hands[BOB][4]
    play_g1 = Premove.queue(Play(BOB, g1), "play 3", state)
    play_r5 = Premove.queue(Discard(BOB, r5), "discard 5", state)
    state.apply(clue(state, BOB, rank=1))  # touches G1 and W1, not R5
    assert decide(play_g1, state, BOB) == Drop(Cancelled.CLUED)
    assert decide(play_r5, state, BOB) == Go(Discard(BOB, r5))


def test_a_clue_whose_target_changed_hand_is_cancelled() -> None:
    state = fresh()
    state.apply(clue(state, BOB, colour=Suit.RED))  # Alice: 7 tokens left
    twos = clue(state, CAROL, rank=2)  # queued by Alice during Bob's turn
    assert twos.touched is not None and len(twos.touched) == 4
    premove = Premove.queue(dataclass_seat(twos, 0), "clue Carol 2", state)
    state.apply(clue(state, 0, rank=1))  # Bob
    assert decide(premove, state, 0) is None  # Carol's turn still
    state.apply(Discard(CAROL, state.hands[CAROL][3]))  # Carol discards her B2
    assert decide(premove, state, 0) == Drop(Cancelled.HAND_CHANGED)


def test_an_unchanged_clue_goes() -> None:
    state = fresh()
    state.apply(clue(state, CAROL, rank=1))  # Alice
    premove = Premove.queue(dataclass_seat(clue(state, CAROL, rank=2), 0), "clue Carol 2",
                            state)
    state.apply(clue(state, 0, rank=3))  # Bob
    state.apply(clue(state, BOB, rank=4))  # Carol
    outcome = decide(premove, state, 0)
    assert isinstance(outcome, Go) and outcome.action == premove.action


def test_what_became_illegal_is_cancelled_with_the_rules_reason() -> None:
    state = fresh()
    state.apply(clue(state, BOB, rank=1))  # Alice: 7 tokens
    state.apply(clue(state, 0, rank=1))  # Bob: 6
    state.apply(Discard(CAROL, state.hands[CAROL][0]))  # Carol: 7
    premove = Premove.queue(Discard(BOB, state.hands[BOB][4]), "discard 5", state)
    state.apply(Discard(0, state.hands[0][4]))  # Alice: 8, every token back
    outcome = decide(premove, state, BOB)
    assert isinstance(outcome, Drop) and outcome.reason is Cancelled.ILLEGAL
    assert outcome.error is not None and "clue token" in str(outcome.error)


def test_nothing_goes_while_a_card_is_still_being_revealed_or_after_the_end() -> None:
    state = fresh()
    premove = Premove.queue(Play(BOB, state.hands[BOB][0]), "play 1", state)
    state.apply(clue(state, CAROL, rank=2))
    hidden = copy.deepcopy(state)
    hidden.faces[hidden.hands[CAROL][0]] = None  # Carol's card not decoded yet
    assert decide(premove, hidden, BOB) is None
    state.apply(Terminate(BOB))
    assert state.over and decide(premove, state, BOB) == Drop(Cancelled.OVER)


def dataclass_seat(action: Clue, seat: int) -> Clue:
    import dataclasses

    return dataclasses.replace(action, seat=seat)


# --- at the table ---------------------------------------------------------------------------


class Recorder:
    def __init__(self) -> None:
        self.actions: list[Action] = []

    def on_action(self, action: Action) -> None:
        self.actions.append(action)

    def on_say(self, text: str) -> None: ...
    def on_start(self) -> None: ...
    def on_kick(self, peer_id: bytes) -> None: ...
    def on_hint(self) -> str:
        return ""

    def on_quit(self) -> None: ...
    def on_abandon(self) -> None: ...


def status(app: App) -> str:
    return plain(app.screen_lines()[-1])


def test_typed_during_anothers_turn_it_is_queued_shown_and_played_when_our_turn_comes() -> None:
    state = fresh()
    session = Recorder()
    app = App(session, input=None, output=DummyOutput())
    app.update(TableView(THREE, BOB, NAMES[:3], copy.deepcopy(state)))
    assert app.handle_text("play 1")
    assert session.actions == []  # nothing is sent during Alice's turn
    assert app.message.startswith("Queued for your turn: play 1")
    assert "Waiting for Alice" in status(app) and "queued: play 1" in status(app)
    state.apply(clue(state, CAROL, rank=2))
    app.update(TableView(THREE, BOB, NAMES[:3], copy.deepcopy(state)))
    assert session.actions == [Play(BOB, state.hands[BOB][0])]
    assert app.message == "Premove carried out: play 1" and app.premove is None


def test_a_clue_on_the_card_cancels_it_and_the_player_is_told_why() -> None:
    state = fresh()
    session = Recorder()
    app = App(session, input=None, output=DummyOutput())
    app.update(TableView(THREE, BOB, NAMES[:3], copy.deepcopy(state)))
    app.handle_text("discard 3")  # G1: about to be clued (every token is back: the turn to
    # come may differ, so only then are the tokens counted)
    assert app.premove is not None
    state.apply(clue(state, BOB, rank=1))
    app.update(TableView(THREE, BOB, NAMES[:3], copy.deepcopy(state)))
    assert session.actions == [] and app.premove is None
    assert app.message == ("✖ Premove cancelled (discard 3): a clue touched that card since "
                           "you queued it")
    assert "queued" not in status(app)


def test_unqueue_drops_it_in_one_command_and_a_new_one_replaces_it() -> None:
    state = fresh()
    session = Recorder()
    app = App(session, input=None, output=DummyOutput())
    app.update(TableView(THREE, BOB, NAMES[:3], copy.deepcopy(state)))
    app.handle_text("clue carol 2")
    app.handle_text("play 2")
    assert app.premove is not None and app.premove.command == "play 2"
    assert app.handle_text("unqueue")
    assert app.message == "Premove cancelled: play 2" and app.premove is None
    app.handle_text("unqueue")
    assert "there is no premove to cancel" in app.message
    state.apply(clue(state, CAROL, rank=2))
    app.update(TableView(THREE, BOB, NAMES[:3], copy.deepcopy(state)))
    assert session.actions == []


def test_a_mistyped_premove_is_refused_at_once_and_c_is_still_clue() -> None:
    app = App(Recorder(), input=None, output=DummyOutput())
    app.update(TableView(THREE, BOB, NAMES[:3], fresh()))
    assert not app.handle_text("play 9")
    assert "slot 9 does not exist" in app.message and app.premove is None
    assert app.handle_text("c carol 2")
    assert app.premove is not None and app.premove.command == "clue Carol 2"


def test_the_status_line_shows_no_premove_by_default() -> None:
    from hanabi_p2p.ui.board import board_from_state
    from hanabi_p2p.ui.symbols import UNICODE
    from hanabi_p2p.ui.table import labels_for

    view = TableView(THREE, BOB, NAMES[:3], fresh())
    line = plain(status_line(board_from_state(view.state, BOB), labels_for(view), UNICODE, 80))
    assert line == "Waiting for Alice"


# --- a timed table's clock ----------------------------------------------------------------


def test_a_timed_tables_clock_runs_on_everyones_status_line_and_restarts_each_turn() -> None:
    import dataclasses

    now = [100.0]
    state = fresh()
    app = App(Recorder(), input=None, output=DummyOutput(), clock=lambda: now[0])
    view = TableView(THREE, BOB, NAMES[:3], copy.deepcopy(state), turn_timer=60)
    app.update(view)
    assert status(app) == "Waiting for Alice · ⏱ 60 s left"
    now[0] += 18
    assert status(app) == "Waiting for Alice · ⏱ 42 s left"
    app.update(view)  # a redraw of the same turn: the clock goes on
    assert "⏱ 42 s left" in status(app)
    state.apply(clue(state, CAROL, rank=2))
    app.update(dataclasses.replace(view, state=copy.deepcopy(state)))
    assert status(app).startswith("▶ ⏱ 60 s left · Your turn")
    now[0] += 90
    assert "⏱ 0 s left" in status(app)  # the game ends then: the peer says so
    app.update(dataclasses.replace(view, turn_timer=None))
    assert "⏱" not in status(app)  # an untimed table shows no clock


def test_a_total_clock_counts_each_players_turns_together() -> None:
    import dataclasses

    now = [0.0]
    state = fresh()
    app = App(Recorder(), input=None, output=DummyOutput(), clock=lambda: now[0])
    view = TableView(THREE, BOB, NAMES[:3], copy.deepcopy(state), total_clock=100)
    app.update(view)
    assert status(app) == "Waiting for Alice · ⏱ 100 s left in all"
    now[0] = 30.0  # Alice takes 30 s
    state.apply(clue(state, CAROL, rank=2))
    app.update(dataclasses.replace(view, state=copy.deepcopy(state)))
    assert "⏱ 100 s left in all" in status(app)  # Bob's own clock: untouched
    now[0] = 40.0
    state.apply(clue(state, 0, rank=1))  # Bob, 10 s
    state.apply(clue(state, BOB, rank=1))  # Carol, at once
    app.update(dataclasses.replace(view, state=copy.deepcopy(state)))
    now[0] = 45.0  # Alice again: 30 + 5 of her 100 s
    assert status(app) == "Waiting for Alice · ⏱ 65 s left in all"
    timed = dataclasses.replace(view, state=copy.deepcopy(state), turn_timer=60)
    app.update(timed)  # both: the turn's seconds (the lesser), and the player's in all
    assert status(app) == "Waiting for Alice · ⏱ 55 s left, 65 s in all"


def test_the_lobby_shows_the_clocks_before_the_deal() -> None:
    from hanabi_p2p.ui.lobby import render_lobby
    from hanabi_p2p.ui.view import LobbySeat, LobbyView

    seats = tuple(LobbySeat(name, "ab") for name in NAMES[:2])
    view = LobbyView("Blitz", THREE, seats, i_am_host=False, turn_timer=30, total_clock=600)
    text = " ".join(" ".join(plain(line) for line in render_lobby(view, 200, 30)).split())
    assert "turn timer 30 s (a longer turn ends the game)" in text
    assert "each player has 600 s for all its turns (running out ends the game)" in text


def test_a_premove_waiting_for_a_card_to_be_revealed_stays_on_the_status_line() -> None:
    state = fresh()
    session = Recorder()
    app = App(session, input=None, output=DummyOutput())
    app.update(TableView(THREE, BOB, NAMES[:3], copy.deepcopy(state)))
    app.handle_text("play 1")
    state.apply(clue(state, CAROL, rank=2))
    hidden = copy.deepcopy(state)
    hidden.faces[hidden.hands[CAROL][0]] = None  # our turn, a card of Carol's not decoded yet
    app.update(TableView(THREE, BOB, NAMES[:3], hidden))
    assert session.actions == [] and app.premove is not None
    assert "Your turn" in status(app) and "queued: play 1" in status(app)
    app.update(TableView(THREE, BOB, NAMES[:3], copy.deepcopy(state)))  # revealed: it goes
    assert session.actions == [Play(BOB, state.hands[BOB][0])]
