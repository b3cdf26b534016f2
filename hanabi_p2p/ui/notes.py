"""Private notes on cards (`note 3 TEXT`), kept on disk so `--resume` brings them back.

A note belongs to a card (its deck position), not to a slot, so it follows the card when the
hand is reordered. Notes never leave this machine: they live in a small JSON file in the
private directory next to the game's secrets (mode 0600), one file per game.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from hanabi_p2p.datadir import PRIVATE_DIR
from hanabi_p2p.portable import open_no_follow
from hanabi_p2p.userfile import FileRefused, read_regular_file

# A note is a reminder, not an essay; the file is ours but is still read defensively.
MAX_NOTE_CHARS = 80
MAX_NOTES_FILE_BYTES = 64_000
NOTES_SUFFIX = ".notes.json"
FILE_MODE = 0o600


class NoteBook:
    """Notes by card id; saved after every change when it has a path (else in memory)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._notes: dict[int, str] = {}
        if path is not None:
            self._notes = _read(path)

    @classmethod
    def for_game(cls, log_path: Path) -> NoteBook:
        """The notebook of the game logged at `log_path` (``<data>/games/<id>.hlog``): it
        lives in ``<data>/private/<id>.notes.json``, with the game's other secrets."""
        private = log_path.parent.parent / PRIVATE_DIR
        if not private.is_dir():
            return cls()  # not our data directory's layout: keep the notes in memory
        return cls(private / (log_path.stem + NOTES_SUFFIX))

    def get(self, card: int) -> str:
        return self._notes.get(card, "")

    def all(self) -> dict[int, str]:
        return dict(self._notes)

    def set(self, card: int, text: str) -> None:
        """Keep `text` on `card`; an empty text removes the note."""
        text = " ".join(text.split())[:MAX_NOTE_CHARS]
        if text:
            self._notes[card] = text
        else:
            self._notes.pop(card, None)
        self._save()

    def _save(self) -> None:
        if self.path is None:
            return
        data = json.dumps({str(card): text for card, text in sorted(self._notes.items())})
        tmp = self.path.with_name(self.path.name + ".tmp")
        # written whole then renamed: a crash leaves the old notes, never half a file
        fd = open_no_follow(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(data)
        os.replace(tmp, self.path)


def _read(path: Path) -> dict[int, str]:
    """The saved notes; a missing, oversized or damaged file is an empty notebook (notes are
    a convenience: losing them must never stop a game from resuming)."""
    with contextlib.suppress(FileRefused, ValueError):
        # a regular file only (a FIFO would hang the game, a link could point anywhere)
        data = read_regular_file(path, limit=MAX_NOTES_FILE_BYTES, what="notes file")
        raw = json.loads(data.decode("utf-8"))
        if isinstance(raw, dict):
            return {
                int(card): str(text)[:MAX_NOTE_CHARS]
                for card, text in raw.items()
                if isinstance(card, str) and card.isdigit() and isinstance(text, str)
            }
    return {}
