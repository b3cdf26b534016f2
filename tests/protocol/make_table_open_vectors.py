"""Build protocol/vectors/session/table-open-v1.json (SPEC 5.1 `table.open`, 5.6 clocks, 6.4).

Each vector is a `table.open` body as JSON and its canonical encoding (SPEC 3.2): a table
with no clock, with the turn timer, with the total clock, with both; and bodies every peer
must refuse as malformed (a clock out of range, of another type). Another implementation
checks that it encodes each valid body to exactly these bytes and refuses each invalid one.

Run `.venv/bin/python tests/protocol/make_table_open_vectors.py` to rewrite the file, only
with a deliberate protocol change; test_table_open_vectors.py checks the code against it and
that this program still rebuilds it byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hanabi_p2p.log import canonical
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session.bodies import MAX_TOTAL_CLOCK_S, MAX_TURN_TIMER_S, TableOpen

VECTOR = (Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "session"
          / "table-open-v1.json")


def valid_tables() -> list[tuple[str, TableOpen]]:
    config = GameConfig(3)
    return [
        ("no clock", TableOpen("Friday", "Ann", config)),
        ("turn timer 30 s", TableOpen("Friday", "Ann", config, turn_timer=30)),
        ("total clock 600 s a player", TableOpen("Friday", "Ann", config, total_clock=600)),
        ("both clocks at their largest", TableOpen("Friday", "Ann", config,
                                                   turn_timer=MAX_TURN_TIMER_S,
                                                   total_clock=MAX_TOTAL_CLOCK_S)),
    ]


def invalid_bodies() -> list[tuple[str, dict[str, Any]]]:
    base = TableOpen("Friday", "Ann", GameConfig(3)).to_wire()
    return [
        ("total clock 0", {**base, "clock": 0}),
        ("total clock over MAX_TOTAL_CLOCK_S", {**base, "clock": MAX_TOTAL_CLOCK_S + 1}),
        ("total clock as text", {**base, "clock": "600"}),
        ("turn timer 0", {**base, "timer": 0}),
    ]


def document() -> dict[str, Any]:
    return {
        "description": "table.open bodies (protocol/SPEC.md 5.1, 5.6): each valid body as JSON "
        "with its canonical msgpack encoding (3.2), hex; each invalid body must be refused "
        "as malformed.",
        "valid": [{"label": label, "body": table.to_wire(),
                   "encoded": canonical.pack(table.to_wire()).hex()}
                  for label, table in valid_tables()],
        "invalid": [{"label": label, "body": body} for label, body in invalid_bodies()],
    }


def text() -> str:
    return json.dumps(document(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    VECTOR.parent.mkdir(parents=True, exist_ok=True)
    VECTOR.write_text(text(), encoding="utf-8")
    print(f"wrote {VECTOR}")
