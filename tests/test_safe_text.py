"""The one sanitiser for peer-provided text: nothing a terminal would act on survives it."""

from __future__ import annotations

import sys
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hanabi_p2p.limits import MAX_SHOWN_NAME_CHARS
from hanabi_p2p.safe_text import (
    ELLIPSIS,
    REPLACEMENT,
    UNSAFE_CATEGORIES,
    safe,
    safe_name,
)

# The characters seen reaching a terminal in the hostile-peer session (issue 10, item 9),
# plus the rest of the bidi controls and the usual escapes.
HOSTILE = [
    "\x1b",  # ESC: starts every ANSI sequence
    "\x9b",  # CSI as one C1 character
    "\x9d",  # OSC (sets the window title, hyperlinks)
    "\x7f",  # DEL
    "\x07",  # BEL
    "\r",
    "\n",
    "\t",
    "\u202a", "\u202b", "\u202c", "\u202d", "\u202e",  # embeddings and overrides
    "\u2066", "\u2067", "\u2068", "\u2069",  # isolates
    "\u200e", "\u200f",  # directional marks
    "\u2028", "\u2029",  # line and paragraph separators
    "\ufeff",  # zero-width no-break space
]


def test_every_hostile_character_seen_is_replaced() -> None:
    for ch in HOSTILE:
        out = safe(f"Eve{ch}x")
        assert ch not in out
        assert out.startswith("Eve") and out.endswith("x")


def test_a_right_to_left_override_cannot_reverse_a_name() -> None:
    assert safe("Mallory\u202eecilA") == f"Mallory{REPLACEMENT}ecilA"


def test_an_ansi_escape_is_left_visible_but_harmless() -> None:
    assert safe("\x1b[2J\x1b]0;pwned\x07") == "?[2J?]0;pwned?"


def test_printable_text_in_every_script_is_kept() -> None:
    for text in ("Alice", "Zoë", "Ștefan", "Bjørn", "李雷", "Дмитрий", "Ann Marie", "🎆 fire"):
        assert safe(text) == text


def test_names_are_capped() -> None:
    assert len(safe_name("x" * 100)) == MAX_SHOWN_NAME_CHARS
    assert safe("abcdef", 3) == "ab" + ELLIPSIS


# The three rules the two sanitisers of old decided differently (issue 28): decided once here.


def test_a_run_of_spaces_in_a_name_is_one_space_and_ends_are_trimmed() -> None:
    assert safe_name("Alice\u2003\u2003Smith") == "Alice Smith"
    assert safe_name("  Alice \u00a0Smith  ") == "Alice Smith"
    # (other text keeps its spacing: a chat line "R3  R4" is said as typed)
    assert safe("Alice\u2003\u2003Smith") == "Alice  Smith"


def test_a_name_too_long_is_cut_with_an_ellipsis_to_the_limit() -> None:
    name = "Bartholomew Fitzgerald-Smith"  # 28 characters
    shown = safe_name(name + "xy")
    assert len(shown) == MAX_SHOWN_NAME_CHARS
    assert shown == name[: MAX_SHOWN_NAME_CHARS - 1] + ELLIPSIS
    exact = "y" * MAX_SHOWN_NAME_CHARS
    assert safe_name(exact) == exact  # at the limit: nothing cut, no ellipsis


def test_a_blank_name_is_shown_as_the_replacement() -> None:
    for blank in ("   ", "\u2003", " \u00a0 "):
        assert safe_name(blank) == REPLACEMENT
    assert safe_name("") == ""  # no name at all (a table not named) is shown as none
    assert safe("   ") == "   "  # blank text (not a name) stays blank


def test_names_are_sanitised_like_any_text() -> None:
    assert safe_name("Eve\x1b[2J\nroot") == "Eve?[2J?root"
    assert safe_name("a\u202eb") == "a?b"
    assert safe_name("  spaced \t out ") == "spaced ? out"  # a tab is a control: replaced


@settings(max_examples=2000)
@given(st.text(alphabet=st.characters(codec=None), max_size=60), st.integers(1, 40))
def test_a_shown_name_is_safe_bounded_never_blank_and_stable(name: str, limit: int) -> None:
    out = safe_name(name, limit)
    assert (len(out) >= 1) == (name != "") and len(out) <= limit
    assert out.strip() == out and "  " not in out
    assert all(unicodedata.category(ch) not in UNSAFE_CATEGORIES for ch in out)
    assert safe_name(out, limit) == out


@pytest.mark.slow
@settings(max_examples=3000)
@given(st.text(alphabet=st.characters(codec=None), max_size=60), st.integers(0, 80))
def test_output_never_holds_an_unsafe_character(text: str, limit: int) -> None:
    out = safe(text, limit)
    assert len(out) <= limit
    assert all(unicodedata.category(ch) not in UNSAFE_CATEGORIES for ch in out)
    # no whitespace but the plain space: nothing moves the cursor
    assert all(ch == " " or not ch.isspace() for ch in out)
    assert safe(out, limit) == out  # idempotent


@pytest.mark.slow
def test_every_character_left_is_printable() -> None:
    """So a reason made safe fits a frame, which refuses anything not printable (clip_reason)."""
    left = {safe(chr(code)) for code in range(sys.maxunicode + 1)}
    assert all(text.isprintable() for text in left)


@settings(max_examples=1000)
@given(st.text(alphabet=st.characters(categories=("L", "N", "P", "S")), max_size=40))
def test_printable_text_passes_unchanged(text: str) -> None:
    assert safe(text) == text


def test_error_messages_are_sanitised_too(capsys) -> None:  # type: ignore[no-untyped-def]
    from hanabi_p2p import cli

    assert cli.main(["log", "show", "evil\x1b]0;pwned\x07\u202e"]) != 0
    err = capsys.readouterr().err
    assert err.startswith("hanabi-p2p log show: error:")
    assert not any(ch in err for ch in "\x1b\x07\u202e")
