"""The one sanitiser for peer-provided text: nothing a terminal would act on survives it."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hanabi_p2p.safe_text import (
    MAX_SHOWN_NAME,
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
    assert len(safe_name("x" * 100)) == MAX_SHOWN_NAME
    assert safe("abcdef", 3) == "abc"


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
@settings(max_examples=1000)
@given(st.text(alphabet=st.characters(categories=("L", "N", "P", "S")), max_size=40))
def test_printable_text_passes_unchanged(text: str) -> None:
    assert safe(text) == text


def test_error_messages_are_sanitised_too(capsys) -> None:  # type: ignore[no-untyped-def]
    from hanabi_p2p import cli

    assert cli.main(["log", "show", "evil\x1b]0;pwned\x07\u202e"]) != 0
    err = capsys.readouterr().err
    assert err.startswith("hanabi-p2p: error:")
    assert not any(ch in err for ch in "\x1b\x07\u202e")
