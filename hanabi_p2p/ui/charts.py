"""Charts in a terminal: a value per turn as a row of blocks, and a timeline of marks.

Pure text. A game has more turns than a terminal has columns only on a narrow one: then
each column stands for a run of consecutive turns and shows the value after the last of
them (a timeline column shows the most serious mark of its run: a misplay before a save).
"""

from __future__ import annotations

from collections.abc import Sequence

from hanabi_p2p.rules.stats import Mark
from hanabi_p2p.ui.symbols import UNICODE, Glyphs
from hanabi_p2p.ui.text import Line


def column_runs(count: int, width: int) -> list[range]:
    """The indices each of at most `width` columns stands for, in order."""
    if count <= 0 or width <= 0:
        return []
    if count <= width:
        return [range(i, i + 1) for i in range(count)]
    return [range(i * count // width, (i + 1) * count // width) for i in range(width)]


def column_of(index: int, count: int, width: int) -> int:
    """The column that stands for `index` (of `count`) once laid out in `width` columns."""
    for column, run in enumerate(column_runs(count, width)):
        if index in run:
            return column
    return max(min(count, width) - 1, 0)


def _level(value: int, low: int, high: int, steps: int) -> int:
    """`value` on a scale of 0..steps between `low` and `high` (clamped)."""
    if high <= low:
        return steps if value > low else 0
    clamped = min(max(value, low), high)
    return round((clamped - low) * steps / (high - low))


def sparkline(
    values: Sequence[int], width: int, low: int, high: int, glyphs: Glyphs = UNICODE
) -> str:
    """One row: a block per column, its height the value (the lowest value still shows
    the lowest block, so a flat line at the bottom is seen)."""
    levels = glyphs.blocks[1:]
    return "".join(
        levels[_level(values[run[-1]], low, high, len(levels) - 1)]
        for run in column_runs(len(values), width)
    )


def chart_rows(
    values: Sequence[int], width: int, height: int, low: int, high: int,
    glyphs: Glyphs = UNICODE,
) -> list[str]:
    """`height` rows, top first: columns of blocks filled up to each value, in eighths
    of a row (in the ASCII set, in its eight levels)."""
    steps = len(glyphs.blocks) - 1  # fillings of one row
    heights = [_level(values[run[-1]], low, high, steps * height)
               for run in column_runs(len(values), width)]
    rows = []
    for row in range(height - 1, -1, -1):
        rows.append("".join(glyphs.blocks[min(max(h - row * steps, 0), steps)]
                            for h in heights))
    return rows


def timeline(
    marks: Sequence[Mark | None],
    width: int,
    glyphs: Glyphs = UNICODE,
    cursor: int | None = None,
) -> Line:
    """The turns as a rule, a misplay as a burnt fuse, a save as its mark; the column of
    turn index `cursor` (if given) in the cursor's style (reverse video)."""
    here = column_of(cursor, len(marks), width) if cursor is not None else -1
    line: Line = []
    for column, run in enumerate(column_runs(len(marks), width)):
        found = {marks[i] for i in run}
        fragment = ("class:rule", glyphs.rule)
        if Mark.MISPLAY in found:
            fragment = ("class:bad", glyphs.fuse_burnt)
        elif Mark.SAVE in found:
            fragment = ("class:good", glyphs.save)
        if column == here:
            fragment = (f"{fragment[0]} class:timeline-cursor", fragment[1])
        line.append(fragment)
    return line
