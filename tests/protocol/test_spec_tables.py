"""SPEC §6.2 and §6.3 give every named size limit and timer with its value, for people who
write their own client from the spec: each row must name a constant that exists in the module
it cites, with the value the program uses (a changed constant fails here until SPEC follows)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

SPEC = Path(__file__).resolve().parents[2] / "protocol" / "SPEC.md"
NAMES = re.compile(r"`([A-Z][A-Z0-9_]+)`")
MODULE = re.compile(r"\(`([a-z_/]+\.py)`\)")
# a number, maybe a power of two minus one (2^32−1), maybe in KiB or MiB
NUMBER = re.compile(r"(\d+(?:\.\d+)?)(?:\^(\d+)−(\d+))?(\s*[KM]iB)?")
UNITS = {None: 1, " KiB": 2**10, " MiB": 2**20}


def _section(title: str) -> list[str]:
    lines = SPEC.read_text(encoding="utf-8").splitlines()
    start = lines.index(title)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("#"))
    return [line for line in lines[start:end] if line.startswith("| `")]


def _values(cell: str) -> list[float]:
    """The numbers of a value cell in order, leaving out what parentheses explain."""
    plain = re.sub(r"\([^)]*\)", "", cell)
    values: list[float] = []
    for match in NUMBER.finditer(plain):
        number, power, minus, unit = match.groups()
        value = 2 ** int(power) - int(minus) if power else float(number)
        values.append(value * UNITS[unit])
    return values


def _rows(title: str) -> list[tuple[str, str, float]]:
    """(module, constant, SPEC's value) for each constant a table row names."""
    rows: list[tuple[str, str, float]] = []
    for line in _section(title):
        first, value = (cell.strip() for cell in line.strip("|").split("|")[:2])
        module = MODULE.search(first)
        assert module is not None, f"no reference module in SPEC row: {line}"
        names = NAMES.findall(first.split("(")[0])
        values = _values(value)
        if len(values) == 1:  # one value for all the row's constants ("32" for two sizes)
            values *= len(names)
        assert len(values) >= len(names), f"fewer values than constants in: {line}"
        dotted = "hanabi_p2p." + module.group(1).removesuffix(".py").replace("/", ".")
        rows.extend((dotted, name, v) for name, v in zip(names, values, strict=False))
    return rows


LIMITS = _rows("### 6.2 Size limits")
TIMERS = _rows("### 6.3 Timers")


def test_the_tables_are_read_whole() -> None:
    # a parser that found nothing would pass every row below
    assert len(LIMITS) >= 25 and len(TIMERS) >= 22


@pytest.mark.parametrize(("module", "name", "value"), LIMITS + TIMERS,
                         ids=[f"{m.rsplit('.', 1)[-1]}.{n}" for m, n, _ in LIMITS + TIMERS])
def test_spec_value_is_the_programs(module: str, name: str, value: float) -> None:
    constant = getattr(importlib.import_module(module), name, None)
    assert constant is not None, f"SPEC names {name} in {module}, which has no such constant"
    assert constant == pytest.approx(value), f"SPEC says {name} = {value}, the program {constant}"
