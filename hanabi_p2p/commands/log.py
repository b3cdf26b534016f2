"""`hanabi-p2p log` (not implemented yet)."""

from __future__ import annotations

import argparse

from hanabi_p2p.errors import UserError

HELP = "log (not implemented yet)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    raise UserError("'log' is not implemented yet")
