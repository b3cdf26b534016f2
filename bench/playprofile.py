"""A cProfile that runs only while a game is in play (for bench/meetup.py).

bench/meetup.py gives each seat's and spectator's CPU from the game's first action to its
last, so its profiles should cover the same window: a whole program's profile is mostly its
handshakes, the deal and the audit, where a spectator costs a seat things it costs only
once a game. `profile_play(profiler)` turns `profiler` on when a node of this process
carries out an effect with its session in play, and off at the first effect after that.
"""

from __future__ import annotations

import cProfile
from typing import Any


def profile_play(profiler: cProfile.Profile) -> None:
    """Run `profiler` only while a node's session is in play (see the module docstring)."""
    from hanabi_p2p.peer.node import Node
    from hanabi_p2p.session.phase import Phase

    carry_out = Node._apply
    on = False

    def _apply(node: Node, effect: Any) -> None:
        nonlocal on
        carry_out(node, effect)
        playing = node.core.session.phase is Phase.PLAY
        if playing and not on:
            profiler.enable()
        elif on and not playing:
            profiler.disable()
        on = playing

    Node._apply = _apply  # type: ignore[method-assign]
