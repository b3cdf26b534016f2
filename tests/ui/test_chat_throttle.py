"""A flood of one player's table talk is summed up, never scrolled over the game."""

from __future__ import annotations

from hanabi_p2p.ui.throttle import CHAT_SHOWN_PER_WINDOW, CHAT_SHOWN_WINDOW_S, ChatThrottle


def test_three_thousand_messages_in_a_second_show_a_handful_and_a_count() -> None:
    throttle = ChatThrottle()
    shown = [throttle.admit(1, i / 3000)[0] for i in range(3000)]
    assert sum(shown) == CHAT_SHOWN_PER_WINDOW
    # the next message after the window says how many were not shown
    show, hidden = throttle.admit(1, 1 + CHAT_SHOWN_WINDOW_S)
    assert show and hidden == 3000 - CHAT_SHOWN_PER_WINDOW


def test_one_players_flood_does_not_silence_another() -> None:
    throttle = ChatThrottle()
    for i in range(100):
        throttle.admit(1, i / 100)
    assert throttle.admit(2, 0.5) == (True, 0)


def test_ordinary_talk_is_never_held_back() -> None:
    throttle = ChatThrottle()
    assert all(throttle.admit(0, t * 2.0) == (True, 0) for t in range(50))
