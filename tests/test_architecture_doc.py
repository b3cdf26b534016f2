"""docs/architecture.md stays true: its state diagrams are the tables' own drawings, every
path it names exists, and it is the ten-minute read it claims (at least 150 lines)."""

from __future__ import annotations

import re

from architecture_doc import DOC, ROOT, redrawn

# `some/path.py`, `folder/`: what the page names in code spans (paths have a slash or end in .py)
PATH = re.compile(r"`([\w./-]+(?:/|\.py|\.md|\.json))`")
BASES = (ROOT, ROOT / "hanabi_p2p")


def test_every_diagram_is_drawn_from_its_table() -> None:
    text = DOC.read_text()
    assert "<!-- table: " in text
    assert redrawn(text) == text, "run: .venv/bin/python tests/architecture_doc.py"


def test_every_path_it_names_exists() -> None:
    named = set(PATH.findall(DOC.read_text()))
    assert len(named) > 40
    missing = sorted(p for p in named
                     if not any((base / p).exists() or _in_folder(base, p) for base in BASES))
    assert missing == []


def _in_folder(base: object, path: str) -> bool:
    """A module named by its file alone after its folder was named (`dealing.py` beside
    `session/lobby.py`): it exists in one of the program's folders."""
    if "/" in path:
        return False
    return any(ROOT.glob(f"hanabi_p2p/**/{path}")) or any(ROOT.glob(f"tests/**/{path}"))


def test_it_is_a_ten_minute_read_not_a_note() -> None:
    assert len(DOC.read_text().splitlines()) >= 150
