"""Tab-completion candidates, the action log in words, and `hanabi-p2p rules`."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from ui_helpers import NAMES, board, game

from hanabi_p2p import cli, i18n
from hanabi_p2p.narration.narrator import chat_line, describe, lost_link_line, table_opened_line
from hanabi_p2p.rules.actions import Action, Clue, Discard, Move, Play
from hanabi_p2p.rules.cards import GameConfig, Suit
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.ui.commands import Mode
from hanabi_p2p.ui.completion import CompletionContext, suggestions

HANDS = [
    ["R1", "R2", "Y1", "Y3", "B5"],
    ["R3", "R4", "G1", "W1", "R5"],
    ["Y2", "G2", "B1", "B2", "W2"],
]


def context(config: GameConfig | None = None) -> CompletionContext:
    state = game(config or GameConfig(3), HANDS)
    return CompletionContext(Mode.TABLE, board(state), NAMES[:3])


def test_completion_of_command_words_by_screen() -> None:
    assert suggestions(context(), [], "") == [
        "play",
        "discard",
        "clue",
        "move",
        "note",
        "info",
        "hint",
        "say",
        "abandon",
        "unqueue",
        "log",
        "rules",
        "help",
        "quit",
    ]
    assert suggestions(context(), [], "d") == ["discard"]
    assert suggestions(CompletionContext(Mode.LOBBY), [], "s") == ["start", "say"]


def test_completion_of_arguments() -> None:
    ctx = context()
    assert suggestions(ctx, ["play"], "") == ["1", "2", "3", "4", "5"]
    assert suggestions(ctx, ["play", "2"], "") == []  # no announcements without choreography
    assert suggestions(ctx, ["clue"], "") == ["Bob", "Carol"]  # never ourselves
    assert suggestions(ctx, ["clue", "bob"], "") == [
        "red",
        "yellow",
        "green",
        "blue",
        "white",
        "1",
        "2",
        "3",
        "4",
        "5",
    ]
    assert suggestions(ctx, ["move", "1"], "") == ["1", "2", "3", "4", "5"]
    assert suggestions(ctx, ["say"], "") == []
    chor = context(GameConfig(3, choreography=True))
    assert suggestions(chor, ["pl", "2"], "b") == ["blue"]


def test_completion_offers_colours_in_the_current_language() -> None:
    i18n.setup("ro")
    assert suggestions(context(), ["clue", "bob"], "a") == ["albastru", "alb"]


def narrate(lang: str = "en") -> list[str]:
    i18n.setup(lang)
    config = GameConfig(3, choreography=True)
    state = game(config, HANDS)
    lines: list[str] = []
    actions: list[Callable[[GameState], Action]] = [
        lambda s: Clue(seat=0, target=1, rank=1),
        lambda s: Clue(seat=1, target=2, rank=2),
        lambda s: Clue(seat=2, target=0, colour=Suit.BLUE),
        lambda s: Move(seat=0, card=s.hands[0][4], to=0),
        lambda s: Play(seat=0, card=s.hands[0][1], announce=Suit.RED),
        lambda s: Play(seat=1, card=s.hands[1][1]),  # R4 on R1: a misplay
        lambda s: Discard(seat=2, card=s.hands[2][0]),
    ]
    for make in actions:
        action = make(state)
        before = [list(hand) for hand in state.hands]
        lines.extend(describe(action, state.apply(action), NAMES[:3], before))
    return lines


def test_actions_in_words() -> None:
    assert narrate() == [
        "Alice clues Bob: 1 (slots 3, 4)",
        "Bob clues Carol: 2 (slots 1, 2, 4, 5)",
        "Carol clues Alice: blue (slot 5)",
        "Alice moves a card from slot 5 to slot 1",
        "Alice announces red and plays R1 from slot 2: placed, 1 clue token back",
        "Bob plays R4 from slot 2: it does not fit, a fuse burns",
        "Carol discards Y2 from slot 1",
    ]


def test_actions_in_words_in_norwegian() -> None:
    lines = narrate("nb")
    assert lines[1] == "Bob gir Carol en opplysning: 2 (plass 1, 2, 4, 5)"
    assert lines[2] == "Carol gir Alice en opplysning: blå (plass 5)"


def test_a_table_name_of_several_words_is_quoted() -> None:
    # was "Table practice table is open"
    assert table_opened_line("practice table") == "Table 'practice table' is open"
    i18n.setup("ro")
    assert table_opened_line("seara de vineri") == "Masa „seara de vineri” este deschisă"


def test_a_lost_link_reads_without_brackets_inside_brackets() -> None:
    # was "lost Bob (K7QF-2M9D) (the peer left (leaving)); ..."
    assert lost_link_line("Bob (K7QF-2M9D)", "the peer left (leaving)") == (
        "lost Bob (K7QF-2M9D): the peer left (leaving); waiting for them to come back")


def test_chat_from_a_peer_cannot_inject_terminal_escapes() -> None:
    line = chat_line("Eve\x1b[31m", "hi\x1b]0;pwned\x07" + "!" * 500)
    assert "\x1b" not in line and "\x07" not in line
    assert line.startswith("Eve?[31m says: hi?]0;pwned?")
    assert len(line) < 350


def rules_output(capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    assert cli.main(["rules", *args]) == 0
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_rules_command_prints_a_short_summary(
    lang: str, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = rules_output(capsys, "--lang", lang)
    assert 25 <= len(lines) <= 50
    assert all(len(line) <= 78 for line in lines)
    assert lines[0].startswith("HANABI")


def test_rules_command_uses_the_language_and_variant_asked_for(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = "\n".join(rules_output(capsys, "--lang", "it", "--variant", "rainbow"))
    assert "fuochi d'artificio" in text and "arcobaleno" in text
    assert "multicolore corto" not in text  # only the variant asked for


def test_rules_command_takes_the_language_from_the_environment(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", "ro_RO.UTF-8")
    assert "suite" in "\n".join(rules_output(capsys))


def test_rules_command_unknown_language_is_one_line_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["rules", "--lang", "klingon"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "hanabi-p2p rules: error: unknown language 'klingon' (known: en, it, ro, nb)"
    ]


def test_a_joiner_who_left_is_named_with_its_key() -> None:
    from hanabi_p2p.narration.narrator import left_lobby_line

    assert left_lobby_line("Ivy (W21Y-HXJJ)") == "Ivy (W21Y-HXJJ) left the table"
    i18n.setup("it")
    assert left_lobby_line("Ivy (W21Y-HXJJ)") == "Ivy (W21Y-HXJJ) ha lasciato il tavolo"


@pytest.mark.parametrize("lang", ["it", "ro", "nb"])
def test_why_a_lobby_ended_is_said_in_the_players_language(lang: str) -> None:
    """Every reason a lobby can end with is worded again in the catalogs, by its class
    (none is left in English)."""
    from hanabi_p2p import refusals as rf
    from hanabi_p2p.ui.refusals import translate_refusal

    reasons = [rf.RemovedByHost(), rf.HostClosedTable(), rf.TableFull(),
               rf.TableFullGameBegun(), rf.TableDidNotFill(30.0), rf.HostUnreachable(600)]
    assert str(reasons[4]) == "the table did not fill within 30 s"
    i18n.setup(lang)
    said = [translate_refusal(reason) for reason in reasons]
    assert all(line != str(reason) for line, reason in zip(said, reasons, strict=True)), said
    assert "30" in said[4] and "30.0" not in said[4] and "600" in said[5]
