"""Names that look alike: the skeleton of a name, after Unicode TR39.

`Sеat1` with a Cyrillic `е` reads exactly as `Seat1`. Two names are the same name for a
person when their skeletons are equal: case, accents, spacing and look-alike characters
folded away (`skeleton`). Names at a table are kept unique by skeleton, and the lobby marks a
name whose skeleton is another player's (`look_alike`).

The look-alike characters are Unicode's own list (confusables.txt, UTS #39), as the
`confusable-homoglyphs` package ships it (each character with the characters it can be taken
for). TR39 maps each character to one prototype; the package keeps the pairs, not the
prototypes, so here every character is mapped to the one of its look-alikes that stands for
them (an ASCII letter or digit where there is one, then the one most characters look like):
Cyrillic `е` to `e`; `I`, `1` and `|` to `l`. Only single characters are mapped: a pair
such as `rn` for `m` is left as it is.

The table (3,844 characters) is built from the package by `build_prototypes` and shipped
built, in `data/lookalike.json`: building it means loading the package's 900 kB of JSON and
ranking every group, 0.2-1.5 s of CPU, which a program paid the first time it folded a name:
on the way to every seat (the joiner asking for one, the host seating the table). Loading the
built table takes a few milliseconds; a test builds it again and compares, so the file
follows the package (`write_prototypes` writes it anew).
"""

from __future__ import annotations

import functools
import json
import unicodedata
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path

PROTOTYPES_FILE = "lookalike.json"


def _fold_marks(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _preference(ch: str, data: Mapping[str, list[dict[str, str]]]) -> tuple[bool, int, int]:
    """Which of a group of look-alikes stands for it: an ASCII letter or digit first, then
    the one most others look like (Unicode's prototype: `l` for `I`, `1` and `|`), then the
    lowest code point."""
    return (not (ch.isascii() and ch.isalnum()), -len(data.get(ch, ())), ord(ch))


@functools.cache
def _prototypes() -> Mapping[str, str]:
    """The table `build_prototypes` makes, as shipped in `data/` (loaded once)."""
    text = resources.files("hanabi_p2p").joinpath("data", PROTOTYPES_FILE).read_text("utf-8")
    table: dict[str, str] = json.loads(text)
    return table


def write_prototypes(path: Path) -> None:
    """Write the table `build_prototypes` makes to `path` (``data/lookalike.json``)."""
    path.write_text(json.dumps(build_prototypes(), ensure_ascii=True, sort_keys=True,
                               separators=(",", ":")) + "\n", encoding="utf-8")


def build_prototypes() -> dict[str, str]:
    """Each character that looks like another, mapped to the one of its look-alikes (itself
    included) that stands for them (`_preference`)."""
    from confusable_homoglyphs import confusables

    data: Mapping[str, list[dict[str, str]]] = confusables.confusables_data
    table: dict[str, str] = {}
    for key, homoglyphs in data.items():
        if len(key) != 1:
            continue
        # (some entries carry direction marks around the character)
        others = (glyph["c"].strip("\u200e\u200f") for glyph in homoglyphs)
        best = min([key, *(o for o in others if len(o) == 1)],
                   key=lambda ch: _preference(ch, data))
        if best != key:
            table[key] = best
    for key in list(table):  # a prototype that itself looks like a better one: follow it
        seen = {key}
        while (further := table.get(table[key])) is not None and further not in seen:
            seen.add(further)
            table[key] = further
    return table


def skeleton(name: str) -> str:
    """`name` as people read it: every character that looks like another replaced by the
    one that stands for them (as TR39 does, before case is folded: `I` and `l` look alike,
    `i` and `l` do not), then case, accents and spacing folded."""
    prototypes = _prototypes()
    mapped = "".join(prototypes.get(ch, ch) for ch in unicodedata.normalize("NFKD", name))
    return _fold_marks(" ".join(mapped.split()))


def look_alike(name: str, others: Iterable[str]) -> str | None:
    """The first of `others` that reads as `name` does but is not spelled the same (a name
    made to pass for someone else's), or None."""
    key = skeleton(name)
    return next((other for other in others if other != name and skeleton(other) == key),
                None)
