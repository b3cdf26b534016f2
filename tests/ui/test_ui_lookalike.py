"""The host's lobby marks a name that reads as another player's (issue 31, case 6)."""

from __future__ import annotations

from test_ui_live import Pair, facts, lobby_text

from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session.bodies import Address
from hanabi_p2p.ui.live import lobby_view
from hanabi_p2p.ui.view import LobbyView

SPOOF = "\u0410nn"  # a Cyrillic А, then "nn": the host is "Ann"


def test_a_joiner_named_like_the_host_is_marked_in_the_hosts_lobby() -> None:
    pair = Pair()
    pair.ann.open_table("Ann's table", "Ann", GameConfig(2))
    pair.deliver()
    # a hostile joiner skips the renaming an honest one does (unique_name)
    pair.bob.request_seat(SPOOF, Address("127.0.0.1", 40001))
    pair.deliver()
    view = lobby_view(pair.ann, facts())
    assert isinstance(view, LobbyView)
    assert [s.looks_like for s in view.seats] == [SPOOF, "Ann"]
    text = lobby_text(view)
    assert "looks like Ann" in text and f"looks like {SPOOF}" in text


def test_names_that_differ_are_not_marked() -> None:
    pair = Pair()
    pair.open_and_join()
    view = lobby_view(pair.ann, facts())
    assert [s.looks_like for s in view.seats] == ["", ""]
    assert "looks like" not in lobby_text(view)


def test_the_hosts_plain_text_output_marks_a_look_alike_with_both_fingerprints() -> None:
    from hanabi_p2p.identity import fingerprint
    from hanabi_p2p.ui.live import looks_like_note, table_members

    pair = Pair()
    pair.ann.open_table("Ann's table", "Ann", GameConfig(2))
    pair.deliver()
    pair.bob.request_seat(SPOOF, Address("127.0.0.1", 40001))
    pair.deliver()
    members = table_members(pair.ann)
    note = looks_like_note(SPOOF, pair.bob.me, members)
    assert note == f" — looks like Ann ({fingerprint(pair.ann.me)})"
    assert looks_like_note("Ann", pair.ann.me, members).endswith(
        f"({fingerprint(pair.bob.me)})")
    assert looks_like_note("Bob", pair.bob.me, members) == ""
