"""The README's synopsis lists every option of every subcommand (it had fallen behind:
`play --data-dir`, `join --browse-seconds` and the `log` commands were missing)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from hanabi_p2p import cli

README = Path(__file__).resolve().parent.parent / "README.md"


def synopsis(command: str) -> str:
    """The README's synopsis lines of `command` (`log show` included), continuations too."""
    block = README.read_text(encoding="utf-8").split("hanabi-p2p host [--table", 1)[1]
    block = "hanabi-p2p host [--table" + block.split("```", 1)[0]
    found, inside = [], False
    for line in block.splitlines():
        if line.startswith("hanabi-p2p "):
            inside = line.startswith(f"hanabi-p2p {command} ") or (
                command.startswith("log ") and command.split()[1] in line.split()[2])
        if inside:
            found.append(line)
    return "\n".join(found)


def long_options(parser: argparse.ArgumentParser) -> set[str]:
    return {option for action in parser._actions for option in action.option_strings
            if option.startswith("--") and option != "--help"}


def subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen: argparse.ArgumentParser = action.choices[name]
            return chosen
    raise AssertionError(name)


COMMANDS = ["host", "join", "play", "watch", "tables", "replay", "rules", "log list",
            "log show", "log verify", "log export", "log replay", "log remove"]


@pytest.mark.parametrize("command", COMMANDS)
def test_the_readme_synopsis_lists_every_option(command: str) -> None:
    top = command.split(maxsplit=1)[0]
    parser = subparser(cli.build_parser(top), top)
    if " " in command:
        parser = subparser(parser, command.split()[1])
    shown = set(re.findall(r"--[a-z-]+", synopsis(command)))
    assert synopsis(command), f"no synopsis of {command}"
    assert long_options(parser) <= shown, sorted(long_options(parser) - shown)
