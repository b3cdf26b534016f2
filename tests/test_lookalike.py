"""Look-alike names (issue 31, case 6): names are folded to their skeleton (Unicode TR39's
confusables) when a table keeps them unique."""

from __future__ import annotations

import pytest

from hanabi_p2p import lookalike
from hanabi_p2p.lookalike import look_alike, skeleton
from hanabi_p2p.peer.lobby import unique_name

CYRILLIC_E = "\u0435"
GREEK_ALPHA = "\u0391"


@pytest.mark.parametrize(("spoof", "real"), [
    (f"S{CYRILLIC_E}at1", "Seat1"),  # the name
    (f"{GREEK_ALPHA}lice", "Alice"),
    ("\uff24\uff41\uff56\uff45", "Dave"),  # fullwidth
    ("SeatI", "Seat1"),  # capital I, digit one
    ("Zoë", "zoe"),  # accents and case, as before
    ("Ann\u2003 Lee", "ann lee"),  # an em space and a double space
])
def test_a_look_alike_name_has_the_skeleton_of_the_name_it_copies(spoof: str, real: str) -> None:
    assert skeleton(spoof) == skeleton(real)
    assert look_alike(spoof, ["Bob", real]) == real


@pytest.mark.parametrize(("one", "other"), [
    ("Ann", "Anna"), ("Ada", "Ida"), ("Seat1", "Seat2"), ("Ruth", "Rita"), ("Eve", "Ewe"),
])
def test_names_that_differ_to_the_eye_stay_different(one: str, other: str) -> None:
    assert skeleton(one) != skeleton(other)
    assert look_alike(one, [other]) is None


def test_a_name_is_no_look_alike_of_itself() -> None:
    assert look_alike("Seat1", ["Seat1"]) is None


def test_a_joiner_never_sits_under_a_look_alike_of_a_name_taken() -> None:
    assert unique_name(f"S{CYRILLIC_E}at1", ["Seat1"]) == f"S{CYRILLIC_E}at1 2"
    assert unique_name("Seat1", [f"S{CYRILLIC_E}at1"]) == "Seat1 2"


def test_the_shipped_table_is_the_one_the_package_gives() -> None:
    """data/lookalike.json is what build_prototypes makes from confusable-homoglyphs now
    (after an upgrade of the package: lookalike.write_prototypes(PATH) writes it again)."""
    shipped = dict(lookalike._prototypes())
    assert len(shipped) > 3000
    assert shipped == lookalike.build_prototypes()
