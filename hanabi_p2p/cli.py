"""The `hanabi-p2p` command line: parses arguments and hands off to one module per subcommand.

Each module in ``hanabi_p2p.commands`` defines ``add_arguments(parser)`` and
``run(args) -> int``. Only the module of the subcommand being run is imported: the network,
peer and terminal modules cost a third of a second to import, which `--version`, `--help`,
`rules` and `replay` should not pay. The one-line summaries shown by `--help` therefore live
here (a module may repeat its own as ``HELP``; a test keeps the two equal). Errors the user
causes (``HanabiError``) print one line to stderr and exit non-zero, never a traceback.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from hanabi_p2p import __version__
from hanabi_p2p.errors import GameInUse, HanabiError, UserLeft
from hanabi_p2p.helpformat import with_examples
from hanabi_p2p.safe_text import safe

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 1
# the game asked for is being played in another window: no usage error, nothing wrong either
EXIT_GAME_IN_USE = 1
# How alike a misspelt word and a known one must be to be suggested (difflib's ratio):
# 'plya' is 'play' at 0.75, 'bogus' is no 'bots' at 0.67.
SUGGEST_CUTOFF = 0.75


@dataclass(frozen=True, slots=True)
class Subcommand:
    name: str
    module: str  # in hanabi_p2p.commands
    summary: str  # the one line `hanabi-p2p --help` and `hanabi-p2p NAME --help` show
    examples: tuple[str, ...] = ()  # what `hanabi-p2p NAME --help` ends with (a test parses them)


SUBCOMMANDS: tuple[Subcommand, ...] = (
    Subcommand("play", "play", "play against computer players on this machine", (
        "hanabi-p2p play",
        "hanabi-p2p play --players 4 --variant rainbow",
        "hanabi-p2p play --bot --players 2 --bot-delay 0")),
    Subcommand("host", "host", "open a table on the network and wait for players", (
        "hanabi-p2p host --table 'Friday night' --players 4",
        "hanabi-p2p host --players 3 --bots 1 --code 'blue moon'",
        "hanabi-p2p host --no-mdns --interface 192.168.1.23 --port 41019")),
    Subcommand("join", "join",
               "join a table found on the network, or at --address HOST:PORT", (
                   "hanabi-p2p join",
                   "hanabi-p2p join 'Friday night' --name Ann",
                   "hanabi-p2p join --address 192.168.1.23:41019 --code 'blue moon'")),
    Subcommand("watch", "watch",
               "watch a game at a table on the network (or at --address HOST:PORT)", (
                   "hanabi-p2p watch 'Friday night'",
                   "hanabi-p2p watch --address 192.168.1.23:41019 --headless")),
    Subcommand("tables", "tables", "list the tables hosted on the local network", (
        "hanabi-p2p tables",
        "hanabi-p2p tables --timeout 10",
        "hanabi-p2p tables --json")),
    Subcommand("replay", "replay",
               "replay a game file (hanab.live JSON) turn by turn, or the bundled example", (
                   "hanabi-p2p replay",
                   "hanabi-p2p replay friday.json --interactive",
                   "hanabi-p2p replay friday.json --json")),
    Subcommand("log", "log",
               "list, show, verify, export or remove the games stored in the data directory",
               ("hanabi-p2p log list",
                "hanabi-p2p log verify 3f2a",
                "hanabi-p2p log show 3f2a --json")),
    Subcommand("rules", "rules", "print a short summary of the rules (--lang en|it|ro|nb)", (
        "hanabi-p2p rules",
        "hanabi-p2p rules --variant rainbow",
        "hanabi-p2p rules --lang it")),
    Subcommand("completion", "completion",
               "print the tab-completion script for bash, zsh or fish", (
                   "hanabi-p2p completion bash > ~/.local/share/bash-completion/completions/"
                   "hanabi-p2p",
                   "hanabi-p2p completion zsh > ~/.zfunc/_hanabi-p2p",
                   "hanabi-p2p completion fish > ~/.config/fish/completions/hanabi-p2p.fish")),
)
# What the program exits with, whatever the subcommand (`log verify` and `log show` add
# 3, unfinished: their --help says so)
EXIT_STATUS_HELP = (
    "exit status: 0 done (a valid game for log verify), 1 failed or invalid, "
    "2 a usage error or a file that cannot be used, 3 an unfinished game (log verify, "
    "log show), 130 interrupted")


def chosen_subcommand(argv: Sequence[str]) -> str | None:
    """The subcommand named on the command line: the first argument that is not an option
    (the top-level parser only has options without values: -h, --help, --version)."""
    for arg in argv:
        if arg == "--":
            return None
        if not arg.startswith("-"):
            return arg
    return None


class OneLineParser(argparse.ArgumentParser):
    """A usage error is one line on stderr, as every other error (the usage block argparse
    prints first pushed the reason to the bottom of four or five lines); it says where the
    usage is, and names what was meant when a subcommand, a choice or an option was
    misspelled."""

    # the subcommand's parser: options the top level does not know are its options
    chosen: argparse.ArgumentParser | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # argparse took a prefix of an option for the option (`host --player 3` ran as
        # `--players 3`) without a word; a shortened option is now unknown, and the error
        # names the option it is a prefix of. The subparsers are of this class too.
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        where = self.chosen or self
        # prefixed with the command it is about, as every other error (`hanabi-p2p host:
        # error: ...`), even when the top-level parser found the fault (an unknown option)
        self.exit(EXIT_USAGE, f"{where.prog}: error: {message}{_suggestion(message, where)}; "
                              f"see '{where.prog} --help'\n")


def _suggestion(message: str, parser: argparse.ArgumentParser) -> str:
    """" (did you mean 'play'?)" after an invalid choice or an unknown option close to a
    valid one, else ""."""
    _before, sep, rest = message.partition("invalid choice: ")
    if sep:
        typed, *choices = re.findall(r"'([^']*)'", rest) or [""]
        close = difflib.get_close_matches(typed, choices, n=1, cutoff=SUGGEST_CUTOFF)
        return f" (did you mean {close[0]!r}?)" if close else ""
    _before, sep, rest = message.partition("unrecognized arguments: ")
    typed = next((word for word in rest.split() if word.startswith("--")), "")
    # compared without the dashes, which every option shares
    names = {option.removeprefix("--"): option for action in parser._actions
             for option in action.option_strings if option.startswith("--")}
    word = typed.removeprefix("--").split("=", 1)[0]
    # a shortened option (`--addr`) is far from the whole in difflib's ratio, but is
    # what the user meant when it shortens one option only
    extended = [name for name in names if name.startswith(word)] if word else []
    close = extended if len(extended) == 1 else (
        difflib.get_close_matches(word, names, n=1, cutoff=SUGGEST_CUTOFF) if word else [])
    return f" (did you mean {names[close[0]]!r}?)" if close else ""


def build_parser(chosen: str | None = None, *, every: bool = False) -> OneLineParser:
    """The parser, with the arguments of the `chosen` subcommand only: the others keep just
    their summary, which is all the top-level help shows. With `every`, the arguments of
    every subcommand (what shell completion is generated from: slower to build)."""
    parser = OneLineParser(
        prog="hanabi-p2p",
        description="Hanabi for 2-5 players on a LAN, with no server anyone has to trust.",
        **with_examples(("hanabi-p2p play", "hanabi-p2p host --table 'Friday night'",
                         "hanabi-p2p join"), EXIT_STATUS_HELP),
    )
    parser.add_argument("--version", action="version", version=f"hanabi-p2p {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in SUBCOMMANDS:
        p = sub.add_parser(command.name, help=command.summary, description=command.summary,
                           **with_examples(command.examples))
        if every or command.name == chosen:
            module = importlib.import_module(f"hanabi_p2p.commands.{command.module}")
            module.add_arguments(p)
            p.set_defaults(_run=module.run)
            if command.name == chosen:
                parser.chosen = p
    return parser


def innermost_subcommand(parser: argparse.ArgumentParser,
                         arguments: Sequence[str]) -> argparse.ArgumentParser | None:
    """The parser of the innermost subcommand named in `arguments` (`log list`'s, not
    `log`'s: the options a misspelt one is compared with), None if none is named."""
    found: argparse.ArgumentParser | None = None
    current = parser
    for arg in arguments:
        if arg == "--":
            break
        if arg.startswith("-"):
            continue
        sub = next((action for action in current._actions
                    if isinstance(action, argparse._SubParsersAction)), None)
        if sub is None or arg not in sub.choices:
            break
        current = found = sub.choices[arg]
    return found


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line (``argv``: the arguments; None: this program's own, and then
    the process ends here, see `_leave`)."""
    code = _run(argv)
    if argv is None:
        _leave(code)
    return code


def _leave(code: int) -> None:
    """The program's work is done and its output written: end the process now. The
    interpreter's own exit would tear down every module (some 400 after a game) and join
    idle worker threads first: 60-130 ms after a game's last line on a busy 2-core machine,
    with the heap already frozen (peerargs.run_game), a fifth of the wait from "Game over"
    to the exit (issue 33). Every file the program wrote is closed by then (the game file
    by its peer, the others by their `with`), and no exit handler of ours exists. Not under
    a tracer or a profiler (coverage, cProfile), whose results are written at exit; nor
    when the output cannot be flushed (a closed pipe: the ordinary exit says so)."""
    if sys.gettrace() is not None or sys.getprofile() is not None:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(code)


def _run(argv: Sequence[str] | None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(chosen_subcommand(arguments))
    parser.chosen = innermost_subcommand(parser, arguments)
    args = parser.parse_args(arguments)
    if not getattr(args, "_run", None):
        parser.print_help()
        return EXIT_USAGE
    # Every line the program writes about itself starts with the command it is about
    # (`hanabi-p2p log verify: error: ...`), as argparse's own errors do.
    prog = (parser.chosen or parser).prog
    args.prog = prog
    try:
        code: int = args._run(args)
        return code
    except (UserLeft, GameInUse) as exc:
        # said plainly, not as an error: the player left; the game is open in another window
        print(f"{prog}: {exc}", file=sys.stderr)
        return EXIT_INTERRUPTED if isinstance(exc, UserLeft) else EXIT_GAME_IN_USE
    except HanabiError as exc:
        # an error may quote a peer (its name, its reason): the one sanitiser, no length cap
        print(f"{prog}: error: {safe(str(exc), len(str(exc)))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    sys.exit(main())
