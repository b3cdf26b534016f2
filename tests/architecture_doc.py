"""docs/architecture.md's state diagrams, drawn from the transition tables themselves (as
h11 draws its documentation from `_state.py`): each block between
``<!-- table: NAME -->`` and ``<!-- end table -->`` is the text `render(NAME)` gives.

    .venv/bin/python tests/architecture_doc.py           # redraw the blocks in place
    .venv/bin/python tests/architecture_doc.py --check   # exit 1 if a block is stale

`tests/test_architecture_doc.py` fails when a table changes and the document does not.
"""

from __future__ import annotations

import enum
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
BLOCK = re.compile(r"(<!-- table: (?P<name>[\w.]+) -->\n)(?P<body>.*?)(<!-- end table -->)",
                   re.S)


def _name(value: Any) -> str:
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, type):
        return value.__name__.upper()
    if callable(value):
        return str(value.__name__)
    return str(value)


def _draw(rows: Mapping[tuple[Any, Any], Any]) -> str:
    """One line per row, grouped by the state the row leaves: ``FROM --TRIGGER--> TO``."""
    width = max(len(_name(source)) for source, _trigger in rows)
    lines = [f"{_name(source):<{width}} --{_name(trigger)}--> {_name(target)}"
             for (source, trigger), target in rows.items()]
    return "```text\n" + "\n".join(lines) + "\n```\n"


def _tables() -> dict[str, Callable[[], Mapping[tuple[Any, Any], Any]]]:
    from hanabi_p2p.deck import states as deck_states
    from hanabi_p2p.net.handshake import Handshake
    from hanabi_p2p.peer import lifecycle
    from hanabi_p2p.session import phase

    return {
        "peer.lifecycle.PLAYER_TRANSITIONS": lambda: lifecycle.PLAYER_TRANSITIONS,
        "peer.lifecycle.WATCHER_TRANSITIONS": lambda: lifecycle.WATCHER_TRANSITIONS,
        "session.phase.TRANSITIONS": lambda: phase.TRANSITIONS,
        "deck.states.TRANSITIONS": lambda: deck_states.TRANSITIONS,
        "net.handshake.Handshake._TRANSITIONS": lambda: Handshake._TRANSITIONS,
    }


def render(name: str) -> str:
    return _draw(_tables()[name]())


def redrawn(text: str) -> str:
    return BLOCK.sub(lambda m: m.group(1) + render(m.group("name")) + m.group(4), text)


def main() -> int:
    text = DOC.read_text()
    new = redrawn(text)
    if "--check" in sys.argv[1:]:
        return 0 if new == text else 1
    DOC.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
