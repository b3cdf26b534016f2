"""hanab.live's variant names typed where ours are (issue 30): `black` is its "Black (6 Suits)",
which our rules play as multicolor-short; a table, its log and its advert name it once."""

from __future__ import annotations

import pytest

from hanabi_p2p import cli
from hanabi_p2p.errors import UserError
from hanabi_p2p.hanablive import HANABLIVE_NAME
from hanabi_p2p.rules.cards import GameConfig, Suit, Variant
from hanabi_p2p.session.bodies import TableOpen


def test_black_is_the_sixth_suit_of_one_card_per_number() -> None:
    config = GameConfig.from_names(3, "black")
    assert config.variant is Variant.MULTICOLOR_SHORT
    assert config.deck_size == 55 and config.copies(Suit.MULTI) == {r: 1 for r in range(1, 6)}
    assert Suit.MULTI in config.clue_colours  # named in clues like any other colour
    assert HANABLIVE_NAME[config.variant] == "Black (6 Suits)"
    # one encoding per table: the wire names our variant, never the alias
    assert TableOpen("t", "p0", config).to_wire()["variant"] == "multicolor-short"


def test_an_unknown_variant_lists_the_hanablive_names_too() -> None:
    with pytest.raises(UserError, match="known: standard, multicolor, multicolor-short, "
                                        "rainbow, black"):
        GameConfig.from_names(3, "pink")


def test_the_commands_take_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["rules", "--variant", "black"]) == 0
    out = capsys.readouterr().out
    assert "a sixth colour with a single card of each number" in out
    assert "rainbow" not in out.lower().split("variants and options:")[1]
