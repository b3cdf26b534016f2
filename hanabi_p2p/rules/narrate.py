"""A plain-English summary of a state reached (used by `replay`).

Actions are told by the one narrator, `hanabi_p2p.ui.narrate`, as on every other output.
"""

from __future__ import annotations

from hanabi_p2p.rules.engine import GameState


def final_summary(state: GameState) -> list[str]:
    """A few lines describing the state reached (finished or not)."""
    fireworks = " ".join(f"{suit.letter}{rank}" for suit, rank in state.fireworks.items())
    status = f"over ({state.end.value})" if state.over else "not over"
    lines = [
        f"game {status} after {state.turn} turns",
        f"fireworks {fireworks}  total {state.fireworks_total}/{state.max_score}",
        f"score {state.score} ({state.rating})  strikes {state.strikes}  "
        f"clue tokens {state.clue_tokens}  cards left {state.cards_left}",
    ]
    if state.final_round_turns_left is not None and not state.over:
        lines.append(f"final round: {state.final_round_turns_left} turns left")
    return lines
