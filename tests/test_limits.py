"""Each shared limit is defined once, in hanabi_p2p/limits.py, and imported everywhere else
(it used to be written out in several modules, with values that had drifted apart)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import hanabi_p2p
from hanabi_p2p import limits

PACKAGE = Path(hanabi_p2p.__file__).parent
SHARED = {name for name in vars(limits) if name.isupper()}


def module_level_definitions(path: Path) -> set[str]:
    names = set()
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
