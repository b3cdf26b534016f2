"""The `hanabi-p2p` command line: parses arguments and hands off to one module per subcommand.

Each module in ``hanabi_p2p.commands`` defines ``HELP`` (one line), ``add_arguments(parser)``
and ``run(args) -> int``. Errors the user causes (``HanabiError``) print one line to stderr
and exit non-zero, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

from hanabi_p2p import __version__
from hanabi_p2p.errors import HanabiError

# subcommand name -> module in hanabi_p2p.commands
SUBCOMMANDS: dict[str, str] = {
    "play": "play",
    "host": "host",
    "join": "join",
    "tables": "tables",
    "replay": "replay",
    "log": "log",
    "rules": "rules",
}


def _load(module: str) -> ModuleType:
    return importlib.import_module(f"hanabi_p2p.commands.{module}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hanabi-p2p",
        description="Hanabi for 2-5 players on a LAN, with no server anyone has to trust.",
    )
    parser.add_argument("--version", action="version", version=f"hanabi-p2p {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name in SUBCOMMANDS.items():
        module = _load(module_name)
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        code: int = args._run(args)
        return code
    except HanabiError as exc:
        print(f"hanabi-p2p: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("hanabi-p2p: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    sys.exit(main())
