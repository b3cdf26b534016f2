"""How every `--help` ends: two or three examples, one command a line, as written.

argparse wraps a parser's description and epilog into one paragraph; the examples must keep
their lines (a reader copies one whole). `ExamplesFormatter` keeps indented paragraphs as
they are and wraps the others as usual, so one formatter serves every parser.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any


class ExamplesFormatter(argparse.HelpFormatter):
    """Paragraphs (separated by a blank line) whose lines are indented are kept verbatim;
    the others are wrapped to the terminal as argparse always does."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = text.split("\n\n")
        filled = []
        for paragraph in paragraphs:
            lines = paragraph.splitlines()
            if len(lines) > 1 and all(line.startswith("  ") for line in lines[1:]):
                filled.append("\n".join(indent + line for line in lines))
            else:
                filled.append(super()._fill_text(paragraph, width, indent))
        return "\n\n".join(filled)


def examples_text(examples: Sequence[str]) -> str:
    """The closing block of a --help: 'examples:' then one command a line, indented."""
    return "examples:\n" + "\n".join(f"  {example}" for example in examples)


def with_examples(examples: Sequence[str], before: str = "") -> dict[str, Any]:
    """`add_parser` keyword arguments for a --help that ends with `examples` (after the
    paragraph `before`, wrapped, if given)."""
    epilog = examples_text(examples)
    return {"epilog": f"{before}\n\n{epilog}" if before else epilog,
            "formatter_class": ExamplesFormatter}
