"""Each shared limit is defined once, in hanabi_p2p/limits.py, and imported everywhere else
(it used to be written out in several modules, with values that had drifted apart)."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import pytest

import hanabi_p2p
from hanabi_p2p import limits

PACKAGE = Path(hanabi_p2p.__file__).parent
SHARED = {name for name in vars(limits) if name.isupper()}


def module_level_definitions(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(path.read_text(), str(path)).body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


@pytest.mark.slow
def test_shared_limits_are_defined_only_in_limits_py() -> None:
    assert {"TABLE_ID_BYTES", "MAX_TABLE_NAME_CHARS", "MAX_ENTRY_BYTES"} <= SHARED
    redefined = {
        str(path.relative_to(PACKAGE)): sorted(module_level_definitions(path) & SHARED)
        for path in PACKAGE.rglob("*.py")
        if path.name != "limits.py"
    }
    assert {where: names for where, names in redefined.items() if names} == {}


# A limit is named MAX_x or MIN_x, or x_CHARS or x_LIMIT (sizes in bytes are formats, not limits).
LIMIT_NAME = re.compile(r"^_?(MAX|MIN)_[A-Z0-9_]+$|^_?[A-Z0-9_]+_(CHARS|LIMIT)$")
# Counts of small things (seats, strikes, rows, digits) coincide by nature: values below this
# are not compared across names.
SMALLEST_COMPARED = 20
# Limits of equal value that are different things, each checked to be a coincidence: value ->
# the names that hold it. A new name of one of these values fails the test until it is looked
# at (is it one of these under another name? import it) and added here.
COINCIDENCES: dict[int, set[str]] = {
    32: {"MAX_DEPTH", "MAX_FINGERPRINT_CHARS", "MAX_LOBBY_LINKS", "MAX_PLAYER_NAME_CHARS",
         "MAX_TOKEN_CHARS", "MAX_TOPIC_CHARS"},
    64: {"MAX_HOST_LEN", "MAX_LOBBY_OUT", "MAX_MOVES_PER_TURN", "MAX_PLAYER_NAME_LENGTH",
         "MAX_TABLES"},
    200: {"MAX_REASON_CHARS", "MAX_UNVERIFIED_LINES"},
    256: {"GUEST_QUEUE_LIMIT", "MAX_CHATS_PER_TURN", "MAX_ENTRIES_PER_ANSWER",
          "MAX_SECRET_BYTES"},
    1024: {"EVENT_QUEUE_LIMIT", "MAX_AHEAD", "MAX_COMPLETE_BYTES", "MAX_HEADER_PAYLOAD",
           "MAX_REMEMBERED_BAD", "MAX_TRACKED_SOURCES", "_MAX_STR_BYTES"},
    10000: {"MAX_ACTIONS", "MAX_SETTLE_ROUNDS"},
    # a day: the longest turn's clock; the longest player's clock for the whole game
    86_400: {"MAX_TOTAL_CLOCK_S", "MAX_TURN_TIMER_S"},
    1_000_000: {"MAX_CATALOG_BYTES", "MAX_FILE_BYTES"},  # a translation; a hanab.live file
    2**16 - 1: {"MAX_PORT", "MAX_TURN", "MAX_VERSION"},  # each a 16-bit field
    2**32 - 1: {"MAX_PING_NONCE", "MAX_SEQ"},  # each a 32-bit field
}


def _int_value(node: ast.expr) -> int | None:
    """The value of an integer constant expression such as ``2**32 - 1`` or ``64 * 1024``."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.BinOp):
        left, right = _int_value(node.left), _int_value(node.right)
        if left is not None and right is not None:
            operators: dict[type[ast.operator], Callable[[int, int], int]] = {
                ast.Add: int.__add__, ast.Sub: int.__sub__, ast.Mult: int.__mul__,
                ast.Pow: int.__pow__, ast.LShift: int.__lshift__}
            operator = operators.get(type(node.op))
            return operator(left, right) if operator is not None else None
    return None


def integer_limits(path: Path) -> dict[str, int]:
    """The module-level limits `path` defines with an integer value."""
    found: dict[str, int] = {}
    for node in ast.parse(path.read_text(), str(path)).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and LIMIT_NAME.match(target.id):
            number = _int_value(value)
            if number is not None:
                found[target.id] = number
    return found


def limits_by_value(root: Path) -> dict[int, dict[str, set[str]]]:
    """value -> name -> the modules under `root` that define a limit of that name and value."""
    table: dict[int, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for path in sorted(root.rglob("*.py")):
        for name, value in integer_limits(path).items():
            table[value][name].add(str(path.relative_to(root)))
    return table


def defined_twice(root: Path) -> dict[str, list[str]]:
    """Limits one name defines in more than one module."""
    return {name: sorted(where) for names in limits_by_value(root).values()
            for name, where in names.items() if len(where) > 1}


def named_twice(root: Path) -> dict[int, list[str]]:
    """Values that more than one limit name holds, less the known coincidences."""
    return {
        value: sorted(set(names) - COINCIDENCES.get(value, set()))
        for value, names in limits_by_value(root).items()
        if value >= SMALLEST_COMPARED and len(names) > 1
        and not set(names) <= COINCIDENCES.get(value, set())
    }


def test_no_limit_is_defined_twice() -> None:
    assert defined_twice(PACKAGE) == {}, "define it once in limits.py, import it elsewhere"


def test_no_limit_is_defined_under_two_names() -> None:
    assert named_twice(PACKAGE) == {}, (
        "one limit named twice (define it in limits.py, import it) or a coincidence (add it "
        "to COINCIDENCES)")


def test_the_checks_find_a_limit_copied_or_renamed(tmp_path: Path) -> None:
    (tmp_path / "talk.py").write_text("MAX_CHAT_CHARS = 280\nMAX_SEQ = 2**32 - 1\n")
    (tmp_path / "say.py").write_text("MAX_SAY_CHARS = 280\nCOLOUR = 'red'\nMAX_ROWS = 3\n")
    (tmp_path / "frames.py").write_text("MAX_SEQ = 4294967295\nMIN_ROWS = 3\n")
    assert integer_limits(tmp_path / "say.py") == {"MAX_SAY_CHARS": 280, "MAX_ROWS": 3}
    assert defined_twice(tmp_path) == {"MAX_SEQ": ["frames.py", "talk.py"]}
    # (3 is below SMALLEST_COMPARED; MAX_SEQ is one name)
    assert named_twice(tmp_path) == {280: ["MAX_CHAT_CHARS", "MAX_SAY_CHARS"]}
