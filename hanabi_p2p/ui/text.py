"""Lines of styled text and the arithmetic of fitting them into a terminal.

Every screen is rendered as a list of `Line`s (prompt_toolkit style/text fragments, one line
each, no newlines inside) for an exact width, so the layout is a pure function that tests can
check column by column, and the App only joins the lines.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from wcwidth import wcwidth

from hanabi_p2p.safe_text import ELLIPSIS

if TYPE_CHECKING:  # importing prompt_toolkit costs ~0.1 s, too much for `hanabi-p2p rules`
    from prompt_toolkit.formatted_text import StyleAndTextTuples

Fragment = tuple[str, str]
Line = list[Fragment]

CWIDTH_CACHE_SIZE = 4096


@lru_cache(maxsize=CWIDTH_CACHE_SIZE)
def get_cwidth(text: str) -> int:
    """Terminal columns of `text`, as prompt_toolkit.utils.get_cwidth counts them (wcwidth per
    character, control characters 0), without importing the whole of prompt_toolkit."""
    return sum(max(0, wcwidth(ch)) for ch in text)


ASCII_ELLIPSIS = "~"


def width(line: Sequence[Fragment]) -> int:
    """Terminal columns the line occupies (wide characters count twice)."""
    return sum(get_cwidth(text) for _style, text in line)


def plain(line: Sequence[Fragment]) -> str:
    return "".join(text for _style, text in line)


def plain_lines(lines: Iterable[Sequence[Fragment]]) -> list[str]:
    return [plain(line) for line in lines]


def _cut(text: str, columns: int) -> str:
    """The longest prefix of `text` that fits in `columns`."""
    used = 0
    for i, ch in enumerate(text):
        used += get_cwidth(ch)
        if used > columns:
            return text[:i]
    return text


def fit(line: Sequence[Fragment], columns: int, ellipsis: str = ELLIPSIS) -> Line:
    """`line` cut to at most `columns` columns, marking the cut with `ellipsis`."""
    if width(line) <= columns:
        return list(line)
    room = max(columns - get_cwidth(ellipsis), 0)
    out: Line = []
    used = 0
    last_style = ""
    for style, text in line:
        piece = _cut(text, room - used)
        if piece:
            out.append((style, piece))
            used += get_cwidth(piece)
            last_style = style
        if used >= room or len(piece) < len(text):
            break
    if columns >= get_cwidth(ellipsis):
        out.append((last_style, ellipsis))
    return out


def pad(line: Sequence[Fragment], columns: int, style: str = "") -> Line:
    """`line` fitted and then padded with spaces to exactly `columns` columns."""
    out = fit(line, columns)
    missing = columns - width(out)
    if missing > 0:
        out.append((style, " " * missing))
    return out


def join_cells(cells: Sequence[Sequence[Fragment]], gap: str = "  ") -> Line:
    out: Line = []
    for i, cell in enumerate(cells):
        if i:
            out.append(("", gap))
        out.extend(cell)
    return out


def flow(
    prefix: Sequence[Fragment], cells: Sequence[Sequence[Fragment]], columns: int, gap: str = "  "
) -> list[Line]:
    """Lay `cells` out after `prefix`, wrapping onto indented lines instead of overflowing.

    A cell wider than a whole line is cut (it never is in practice: cells are short).
    """
    indent = width(prefix)
    lines: list[Line] = []
    current: Line = list(prefix)
    used = indent
    fresh = True
    for cell in cells:
        cell_width = width(cell)
        needed = cell_width + (0 if fresh else len(gap))
        if not fresh and used + needed > columns:
            lines.append(current)
            current, used, fresh = [("", " " * indent)], indent, True
            needed = cell_width
        if not fresh:
            current.append(("", gap))
        current.extend(cell)
        used += needed
        fresh = False
    lines.append(current)
    return [fit(line, columns) for line in lines]


def to_formatted(lines: Sequence[Sequence[Fragment]]) -> StyleAndTextTuples:
    """Join lines for a prompt_toolkit control."""
    out: StyleAndTextTuples = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out.extend(line)
    return out


def wrap_text(text: str, columns: int) -> list[str]:
    """Word-wrap plain text to `columns`, keeping blank lines, leading indentation and the
    spacing inside lines that fit; continuation lines keep the paragraph's indentation."""
    result: list[str] = []
    for paragraph in text.split("\n"):
        if get_cwidth(paragraph) <= columns:
            result.append(paragraph)
            continue
        body = paragraph.lstrip(" ")
        indent = paragraph[: len(paragraph) - len(body)]
        if len(indent) >= columns // 2:
            indent = ""
        # Indented lines (commands) and bullets hang; plain paragraphs wrap flush.
        hanging = "  " if indent or body.startswith("- ") else ""
        wrapper = textwrap.TextWrapper(
            width=columns,
            initial_indent=indent,
            subsequent_indent=indent + hanging,
            break_long_words=True,
            break_on_hyphens=False,
        )
        result.extend(wrapper.wrap(body) or [""])
    return result
