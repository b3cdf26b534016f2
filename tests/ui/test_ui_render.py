"""What the screens show, read back as plain text at fixed terminal sizes."""

from __future__ import annotations

import dataclasses

import pytest
from ui_helpers import (
    FACE_PATTERN,
    NAMES,
    board,
    game,
    line_with,
    play_until,
    random_game,
    texts,
    widest,
)

from hanabi_p2p import i18n
from hanabi_p2p.rules.actions import Clue, Discard, Play
from hanabi_p2p.rules.cards import Card, GameConfig, Suit, Variant
from hanabi_p2p.rules.engine import End
from hanabi_p2p.ui.end import render_end
from hanabi_p2p.ui.lobby import render_lobby
from hanabi_p2p.ui.symbols import ASCII, UNICODE, glyphs_for
from hanabi_p2p.ui.table import TableLabels, render_board, render_table
from hanabi_p2p.ui.view import EndView, LobbySeat, LobbyView, TableView

HANDS = [
    ["R1", "R2", "Y1", "Y3", "B5"],
    ["R3", "R4", "G1", "W1", "R5"],
    ["Y2", "G2", "B1", "B2", "W2"],
]


def scripted_view(seat: int = 0) -> TableView:
    """Alice plays R1, Bob clues Alice red, Carol clues Bob 1, Alice discards B5."""
    config = GameConfig(3)
    state = game(config, HANDS)
    state.apply(Play(seat=0, card=state.hands[0][0]))
    state.apply(Clue(seat=1, target=0, colour=Suit.RED))
    state.apply(Clue(seat=2, target=1, rank=1))
    state.apply(Discard(seat=0, card=state.hands[0][4]))
    return TableView(config, seat, NAMES[:3], state, table_name="Friday")


def screen(view: TableView, columns: int = 80, rows: int = 22) -> list[str]:
    lines = render_table(view, columns, rows)
    assert len(lines) == rows
    assert widest(lines) <= columns
    return texts(lines)


def own_hand_lines(lines: list[str]) -> list[str]:
    start = next(i for i, line in enumerate(lines) if "You (" in line)
    return lines[start : start + 2]


@pytest.mark.parametrize(("columns", "rows"), [(40, 10), (40, 12), (30, 16), (80, 14)])
def test_a_tiny_terminal_shows_the_whole_own_hand_or_says_it_is_too_small(
    columns: int, rows: int
) -> None:
    # at 40x12 the board was clipped from the bottom: slots 4 and 5 of our own hand (and
    # what we know of them) were simply missing
    lines = screen(scripted_view(), columns, rows)
    slots = [f"{slot}{mark}" for slot in range(1, 6) for mark in ":*"]
    shown = sum(any(f" {slot}" in line or line.startswith(slot) for line in lines)
                for slot in slots)
    small = "too small to show the table" in " ".join(lines)
    assert small != (shown == 5), lines


def test_fireworks_score_tokens_fuses_and_deck() -> None:
    lines = screen(scripted_view())
    assert "R1 Y0 G0 B0 W0" in line_with(lines, "Fireworks")
    assert "score 1/25" in line_with(lines, "Fireworks")
    tokens = line_with(lines, "Clue tokens")
    assert "●●●●●●●○ 7" in tokens  # two clues spent, one token back from the discard
    assert "Fuses ··· 0/3" in tokens
    assert "Deck 33" in tokens  # 50 - 15 dealt - 2 drawn


def test_discards_are_grouped_by_colour() -> None:
    view = scripted_view()
    seen = dataclasses.replace(
        board(view.state),
        discards=(Card(Suit.RED, 4), Card(Suit.BLUE, 1), Card(Suit.RED, 1), Card(Suit.BLUE, 1)),
    )
    lines = texts(render_board(seen, TableLabels(names=NAMES[:3]), 80, 22))
    assert line_with(lines, "Discards").split() == ["Discards", "R:1", "4", "B:1", "1"]


def test_other_hands_show_faces_and_clue_marks() -> None:
    lines = screen(scripted_view())
    bob = line_with(lines, "Bob")
    assert bob.split()[-5:] == ["R3", "R4", "G1(1)", "W1(1)", "R5★"]  # a 5 is a last copy
    carol = line_with(lines, "Carol")
    assert carol.split()[-5:] == ["Y2", "G2", "B1", "B2", "W2"]


def test_own_hand_shows_what_is_known_never_faces() -> None:
    lines = screen(scripted_view())
    own = own_hand_lines(lines)
    assert not any(FACE_PATTERN.search(line) for line in own), own
    # Alice holds [new, R1, R2, Y1, Y3]; R1 and R2 were clued red, the rest missed by it,
    # and the card drawn after the clue knows nothing yet.
    assert own[0].split()[3:] == ["1:RYGBW", "2*R····", "3*R····", "4:·YGBW", "5:·YGBW"]


def test_own_faces_stay_hidden_even_when_the_engine_knows_them() -> None:
    """In a hot-seat replay the engine knows every face; the screen still hides our own."""
    view = scripted_view(seat=1)
    lines = screen(view)
    own = own_hand_lines(lines)
    assert not any(FACE_PATTERN.search(line) for line in own), own
    assert "Alice" in "\n".join(lines)


def test_turn_marker_and_status() -> None:
    view = scripted_view()  # four actions taken: Bob is to move
    lines = screen(view)
    assert line_with(lines, "Bob").startswith("▶ 2 Bob")  # with its seat number
    assert lines[-1].startswith("Waiting for Bob")
    mine = screen(scripted_view(seat=1))
    assert mine[-1].startswith("▶ Your turn")


def test_on_our_turn_a_problem_is_read_whole_at_80_columns() -> None:
    # (a resumed player's line once read "▶ Your turn: play, discard or clue (type help for
    # commands) · ⚠ connection prob…")
    alert = "⚠ connection problems: 16 · ⚠ wrong table passwords tried: 3"
    mine = screen(dataclasses.replace(scripted_view(seat=1), status=alert))
    assert mine[-1].startswith("▶ Your turn") and alert in mine[-1]
    roomy = screen(dataclasses.replace(scripted_view(seat=1), status="⚠ connection problems: 1"),
                   columns=120)
    assert "type help for commands" in roomy[-1]  # said in full where it fits


def test_dropped_out_players_are_shown() -> None:
    view = dataclasses.replace(scripted_view(), disconnected=frozenset({2}))
    lines = screen(view)
    assert line_with(lines, "Carol").startswith("✖ 3 Carol")
    assert "Carol dropped out" in lines[-1]
    roomy = screen(view, columns=100)
    assert line_with(roomy, "Carol").endswith("dropped out")


def test_final_round_marker() -> None:
    config = GameConfig(4)
    state = play_until(random_game(config, 7), 7, lambda s: s.final_round_turns_left is not None)
    assert state.final_round_turns_left is not None and not state.over
    view = TableView(config, 0, NAMES[:4], state)
    title = screen(view)[0]
    assert f"FINAL ROUND: {state.final_round_turns_left} turns left" in title


def test_game_over_status() -> None:
    config = GameConfig(2)
    state = play_until(random_game(config, 3), 3, lambda s: False)
    lines = screen(TableView(config, 0, NAMES[:2], state))
    assert lines[-1].startswith("Game over: ")


def test_log_shows_the_newest_lines_and_scrolls_back() -> None:
    log = tuple(f"event {n}" for n in range(40))
    view = dataclasses.replace(scripted_view(), log=log)
    lines = screen(view)
    assert lines[-2] == "event 39"
    back = texts(render_table(view, 80, 22, log_offset=10))
    assert back[-2] == "event 29"
    assert "event 39" not in back


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("variant", [Variant.STANDARD, Variant.RAINBOW])
def test_everything_fits_80_by_24(lang: str, players: int, variant: Variant) -> None:
    """Late in a game, with long names, a dropped player and a long log: still 80x24."""
    i18n.setup(lang)
    config = GameConfig(players, variant, choreography=True, empty_clues=True)
    state = play_until(random_game(config, players), players, lambda s: s.cards_left < 8)
    names = ("Bartholomew-the-Long", "Bob", "Carolina Maria", "Dave", "Eve")[:players]
    log = tuple("x" * 150 for _ in range(30))
    view = TableView(
        config, 0, names, state, table_name="a" * 60, log=log, disconnected=frozenset({1})
    )
    lines = render_table(view, 80, 22)  # 24 rows minus the input and message lines
    assert len(lines) == 22
    assert widest(lines) <= 80
    text = texts(lines)
    # the essentials survive the squeeze: every player's hand and the status line
    assert sum(1 for line in text if "Bob" in line) >= 1
    assert text[-1].strip()


def test_taller_terminal_adds_what_each_holder_knows() -> None:
    view = scripted_view()
    short = screen(view, rows=14)
    tall = screen(view, rows=40)
    # Bob's 1s were clued: on a tall screen the line below his hand says what he can know
    assert not any("12345" in line and line.startswith("   ") for line in short[:8])
    below_bob = tall[tall.index(line_with(tall, "Bob")) + 1]
    assert "1····" in below_bob


def test_wide_terminal_puts_the_log_beside_the_table() -> None:
    log = tuple(f"event {n}" for n in range(100))
    view = dataclasses.replace(scripted_view(), log=log)
    lines = screen(view, columns=140, rows=40)
    assert "Bob" in lines[5] or "Bob" in lines[6]
    assert lines[0].rstrip().endswith("event 61")  # 39 body rows: events 61..99
    assert lines[-2].rstrip().endswith("event 99")
    assert "│" in lines[3]


def test_ascii_fallback_for_other_encodings() -> None:
    assert glyphs_for("latin-1") is ASCII
    assert glyphs_for("UTF-8") is UNICODE
    assert glyphs_for("no-such-codec") is ASCII
    lines = texts(render_table(scripted_view(), 80, 22, glyphs=ASCII))
    tokens = line_with(lines, "Clue tokens")
    assert "ooooooo. 7" in tokens
    assert all(line.isascii() for line in lines)


def test_screen_in_italian() -> None:
    i18n.setup("it")
    lines = screen(scripted_view())
    assert line_with(lines, "Fuochi d'artificio")
    assert line_with(lines, "Gettoni blu")
    assert lines[-1].startswith("Si aspetta Bob")


# --- lobby and end ----------------------------------------------------------------------------


def lobby(**changes: object) -> LobbyView:
    view = LobbyView(
        table_name="Friday",
        config=GameConfig(4, Variant.RAINBOW, all_or_nothing=True),
        seats=(
            LobbySeat("Alice", "a1b2 c3d4", is_host=True),
            LobbySeat("Bob", "e5f6 0718", is_me=True),
        ),
        i_am_host=False,
    )
    return dataclasses.replace(view, **changes)  # type: ignore[arg-type]


def test_lobby_shows_table_seats_and_who_is_missing() -> None:
    lines = texts(render_lobby(lobby(), 80, 22))
    assert lines[0] == "Table Friday"
    assert "rainbow + all or nothing" in lines[1] and "4 players" in lines[1]
    assert "Alice" in line_with(lines, "a1b2 c3d4") and "(host)" in line_with(lines, "Alice")
    assert "(you)" in line_with(lines, "e5f6 0718")
    assert sum("free seat" in line for line in lines) == 2
    assert "Waiting for 2 more players to join" in lines
    assert not any("Table code" in line for line in lines)


def test_lobby_full_shows_the_code_and_who_starts() -> None:
    seats = (
        LobbySeat("Alice", "a1", is_host=True),
        LobbySeat("Bob", "b2", is_me=True),
        LobbySeat("Carol", "c3"),
        LobbySeat("Dave", "d4"),
    )
    lines = texts(render_lobby(lobby(seats=seats, table_code="123 456 789"), 80, 22))
    assert "Table code: 123 456 789" in lines
    assert "Everyone is here: waiting for Alice to start" in lines



def test_lobby_table_talk_shows_its_latest_lines_above_the_prompt() -> None:
    # issue 30: `say` in the lobby showed nothing on any screen, the sender's included
    talk = tuple(f"Bob says: line {n}" for n in range(40))
    for rows in (22, 24, 30):
        lines = texts(render_lobby(lobby(talk=talk), 80, rows))
        assert len(lines) == rows
        assert "Bob says: line 39" in lines  # the latest line, whatever room is left
        assert "Waiting for 2 more players to join" in lines  # the prompt is never cut
        assert "Bob says: line 0" not in lines
    assert "Bob says: hi" in texts(render_lobby(lobby(talk=("Bob says: hi",)), 80, 22))


def test_the_host_lobby_shows_its_address_once() -> None:
    # "Address: A" and the launcher's "table open at A" were both on the screen
    view = lobby(i_am_host=True, address="127.0.0.1:7301", status="table open at 127.0.0.1:7301")
    lines = texts(render_lobby(view, 80, 22))
    assert sum("127.0.0.1:7301" in line for line in lines) == 1
    other = texts(render_lobby(lobby(status="joining 'Friday' at 10.0.0.5:7301"), 80, 22))
    assert "joining 'Friday' at 10.0.0.5:7301" in other  # a guest's status is kept


def test_full_lobby_tells_the_host_to_start_without_promising_a_code() -> None:
    # Before `start` nobody is seated, so there is no table code yet (it is shown once the
    # deal seats everyone): the host is asked to check who sat down, not to compare a code.
    seats = (LobbySeat("Alice", "a1", is_host=True, is_me=True), LobbySeat("Bob", "b2"))
    host = texts(render_lobby(lobby(seats=seats, i_am_host=True,
                                    config=GameConfig(2)), 80, 22))
    assert "Everyone is here: check who sat down, then type start (or kick NAME)" in host
    assert not any("code" in line.lower() for line in host)


def end_view(**changes: object) -> EndView:
    view = EndView(
        config=GameConfig(3),
        score=23,
        rating="amazing",
        end=End.NORMAL,
        fireworks=(
            (Suit.RED, 5),
            (Suit.YELLOW, 5),
            (Suit.GREEN, 4),
            (Suit.BLUE, 5),
            (Suit.WHITE, 4),
        ),
        strikes=1,
        audit_ok=True,
        audit_text="every shuffle and clue matched the revealed deck",
        log_path="/home/alice/.local/share/hanabi-p2p/games/friday.log",
    )
    return dataclasses.replace(view, **changes)  # type: ignore[arg-type]


def test_end_screen_shows_score_rating_audit_and_log_path() -> None:
    lines = texts(render_end(end_view(), 80, 22))
    assert lines[0] == "Game over: the final round is over"
    assert "Score 23 of 25 · amazing" in lines
    assert "R5 Y5 G4 B5 W4" in line_with(lines, "Fireworks")
    assert "Audit passed" in lines
    assert "every shuffle and clue matched" in line_with(lines, "every shuffle")
    assert "Log saved to /home/alice/.local/share/hanabi-p2p/games/friday.log" in lines


def test_end_screen_failed_audit_and_all_or_nothing() -> None:
    view = end_view(
        config=GameConfig(3, all_or_nothing=True), rating="loss", audit_ok=False, score=0
    )
    lines = texts(render_end(view, 80, 22))
    assert "Result: loss" in lines
    assert "Audit FAILED" in lines


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_end_and_lobby_fit_80_by_24(lang: str) -> None:
    i18n.setup(lang)
    for lines in (
        render_end(end_view(log=tuple("y" * 200 for _ in range(50))), 80, 22),
        render_lobby(lobby(table_code="123 456 789 012", status="z" * 120), 80, 22),
    ):
        assert len(lines) == 22
        assert widest(lines) <= 80


def test_rating_words_are_translated_on_the_end_screen() -> None:
    i18n.setup("nb")
    lines = texts(render_end(end_view(rating="honourable", score=13), 80, 22))
    assert "Poengsum 13 av 25 · æren i behold" in lines


def test_lobby_prints_no_control_characters_from_peers() -> None:
    seats = (LobbySeat("Mallory\x1b[2J", "ff\x07ff", is_host=True), LobbySeat("Bob", "b2"))
    lines = texts(render_lobby(lobby(seats=seats, table_name="evil\x1b]0;x\x07"), 80, 22))
    assert not any(ch in line for line in lines for ch in "\x1b\x07")
    assert lines[0].rstrip() == "Table evil?]0;x?"
