"""The program's layers, checked: which part may import which, and that the pure parts do no IO.

Every module's imports are read from its source (ast), lazy ones inside functions and those
for type checking included: each is a dependency all the same. A module belongs to a *part*:
a subpackage (``rules``, ``ui``...), a top-level module (``limits``, ``safe_text``...), or, for
the peer, its sans-IO core (``peer-core``: core and the machines it is made of, sync, waits,
effects, watchwire...) apart from the IO shell around it and what front ends see of it
(``peer``: node, probe, preload, collector, handle, result). ``ALLOWED`` lists, for each
part, the parts it may import; it must stay free of cycles, so the parts form layers. A new
edge is a design decision: add it here, with the layering still acyclic, or import the other
way round.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

import hanabi_p2p

PACKAGE = Path(hanabi_p2p.__file__).parent
ROOT = "hanabi_p2p"

# The peer's IO shell and what front ends see of the peer; every other module of the peer
# is its sans-IO core, a part of its own below them.
PEER_SHELL_MODULES = frozenset(
    f"{ROOT}.peer{name}" for name in ("", ".node", ".probe", ".preload", ".collector",
                                       ".handle", ".result"))

BASE = {"errors", "limits"}
ALLOWED: dict[str, set[str]] = {
    # the bottom: imports nothing of ours ("hanabi_p2p" is the package itself: __version__)
    "limits": set(),
    "errors": set(),
    "ratelimit": set(),
    "hanabi_p2p": set(),
    "portable": set(),  # the operating systems' differences (file modes, no-follow opens)
    "helpformat": set(),  # how every --help ends (cli's and the commands' parsers)
    "sodium_library": set(),  # loads the deck's native library once per process
    "safe_text": {"limits"},
    "lookalike": set(),  # names that look alike (Unicode's confusables)
    "userfile": BASE | {"portable"},  # reading a file handed to us: regular, within a cap
    "i18n": {"errors"},
    "refusals": {"errors"},  # every refusal of the rules and the session, typed
    "datadir": BASE | {"portable"},
    "identity": BASE | {"datadir", "portable", "safe_text"},
    # the pure game: rules, deck, log, session
    "rules": BASE | {"refusals"},
    "deck": BASE | {"rules", "sodium_library"},
    "log": BASE | {"datadir", "identity", "portable", "userfile"},
    "session": BASE | {"deck", "identity", "log", "refusals", "rules"},
    "hanablive": BASE | {"rules"},
    # the verdicts `log list` shows, cached beside each log (its commands and the program
    # that played a game write them)
    "verdict_cache": BASE | {"hanabi_p2p", "log", "portable", "session", "userfile"},
    "net": BASE | {"ratelimit", "safe_text"},
    # the peer: its pure core, then the IO shell around it
    "peer-core": BASE | {"deck", "identity", "log", "lookalike", "net", "ratelimit", "refusals",
                         "rules", "safe_text", "session"},
    "peer": BASE | {"peer-core", "deck", "identity", "log", "net", "ratelimit", "rules",
                    "safe_text", "session"},
    # words, the computer players, the screens
    "narration": {"i18n", "rules", "safe_text", "session"},
    "bots": BASE | {"i18n", "narration", "rules", "safe_text"},
    "ui": BASE | {"bots", "datadir", "i18n", "identity", "lookalike", "narration", "net",
                  "portable",
                  "ratelimit", "refusals", "rules", "safe_text", "session", "userfile"},
    # front ends of a peer, the commands, the entry point
    "frontends": BASE | {"bots", "datadir", "deck", "i18n", "identity", "log", "narration",
                         "net", "peer", "peer-core", "refusals", "rules", "safe_text", "session",
                         "ui", "verdict_cache"},
    # (`completion` reads the whole command line's parser from cli: cli imports each
    # command by name with importlib, an import ast does not see, so that is no cycle here)
    "commands": BASE | {"hanabi_p2p", "cli", "datadir", "frontends", "hanablive", "helpformat",
                        "i18n", "identity", "log", "narration", "net", "peer", "peer-core",
                        "rules", "safe_text", "session", "ui", "userfile", "verdict_cache"},
    "cli": BASE | {"hanabi_p2p", "helpformat", "safe_text"},
    "__main__": {"cli"},
}

# Parts that do no IO and keep no clock: their behaviour is a function of their inputs (time
# and randomness are passed in), so tests drive them without a loop, a socket or a sleep.
PURE_PARTS = frozenset({"rules", "deck", "log", "session", "peer-core"})
IO_MODULES = frozenset({"asyncio", "time", "socket", "threading", "random"})
# Pure modules that import one of those today, each with the reason.
IO_EXCEPTIONS: dict[str, set[str]] = {
    # a lock so that a proof check run on a worker thread and on the loop runs once
    f"{ROOT}.deck.peer": {"threading"},
    # (not pure, but the deck imports it: a lock so that two threads load the library once,
    # and the clock to tell a dead process's leftover copy from a live one's)
    f"{ROOT}.sodium_library": {"threading", "time"},
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((ROOT, *parts))


@cache
def our_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def part_of(module: str) -> str:
    """The part a module of ours belongs to."""
    if module.startswith(f"{ROOT}.peer.") and module not in PEER_SHELL_MODULES:
        return "peer-core"
    names = module.split(".")
    return names[1] if len(names) > 1 else ROOT


def imports_of(path: Path) -> Iterator[str]:
    """Every module `path` imports, anywhere in it: ours by their full name (``from a import
    b`` names module a.b when there is one, else a), others by their top-level name."""
    return iter(_imports_of(path))


@cache
def _imports_of(path: Path) -> tuple[str, ...]:
    # parsed once per file: the transitive check walks each module from every pure one
    return tuple(_parsed_imports_of(path))


def _parsed_imports_of(path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module is not None and not node.level:
            names = [f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}"
                     in our_modules() else node.module for alias in node.names]
        else:
            continue
        for name in names:
            yield name if name.split(".")[0] == ROOT else name.split(".")[0]


def test_every_module_is_in_a_part_of_the_layering() -> None:
    unplaced = {module for module in our_modules() if part_of(module) not in ALLOWED}
    assert unplaced == set()


def test_the_allowed_edges_form_layers() -> None:
    try:
        order = list(TopologicalSorter(ALLOWED).static_order())
    except CycleError as cycle:
        pytest.fail(f"the allowed imports go round in a cycle: {cycle.args[1]}")
    assert set(order) == set(ALLOWED)  # (every part named in an edge has its own entry)


def test_every_import_between_parts_is_an_allowed_edge() -> None:
    forbidden = sorted(
        f"{module} imports {imported}"
        for module, path in our_modules().items()
        for imported in imports_of(path)
        if imported.split(".")[0] == ROOT and part_of(imported) != part_of(module)
        and part_of(imported) not in ALLOWED[part_of(module)]
    )
    assert forbidden == []


def test_pure_parts_import_no_io_modules() -> None:
    found = {
        module: sorted(bad)
        for module, path in our_modules().items() if part_of(module) in PURE_PARTS
        if (bad := (set(imports_of(path)) & IO_MODULES) - IO_EXCEPTIONS.get(module, set()))
    }
    assert found == {}


def test_nothing_a_pure_module_pulls_in_does_io() -> None:
    """Transitively: a pure module that imports a helper which imports asyncio is not pure."""
    modules = our_modules()

    def reached(start: str) -> set[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            module = todo.pop()
            if module not in seen:
                seen.add(module)
                todo.extend(name for name in imports_of(modules[module]) if name in modules)
        return seen

    found = {
        start: sorted(f"{module}: {io}" for module in reached(start)
                      for io in (set(imports_of(modules[module])) & IO_MODULES)
                      - IO_EXCEPTIONS.get(module, set()))
        for start in modules if part_of(start) in PURE_PARTS
    }
    assert {start: io for start, io in found.items() if io} == {}


def test_the_checks_see_lazy_imports_and_name_our_modules(tmp_path: Path) -> None:
    source = tmp_path / "sample.py"
    source.write_text(
        "import time\n"
        "from hanabi_p2p.narration import narrator\n"
        "from hanabi_p2p.rules.engine import GameState\n"
        "def later() -> None:\n"
        "    import asyncio.subprocess\n"
        "    from hanabi_p2p import __version__\n")
    assert sorted(imports_of(source)) == [
        "asyncio", "hanabi_p2p", f"{ROOT}.narration.narrator", f"{ROOT}.rules.engine", "time"]
    assert part_of(f"{ROOT}.peer.core") == "peer-core"
    assert part_of(f"{ROOT}.peer.node") == "peer"
    assert "ui" not in ALLOWED["bots"] and "frontends" not in ALLOWED["peer"]
