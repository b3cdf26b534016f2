"""The h11 fuzz invariant for every entry body kind: whatever a peer puts in a body, its
parser returns a typed value or raises ``BadBody`` (a ``RemoteProtocolError``), nothing else.

A ``TypeError`` or ``KeyError`` escaping a parser once killed the host's event task (issue
10, item 1). Two sources of input per kind: arbitrary values of the msgpack model, and valid
bodies with one part replaced, removed or added (which reach the deeper checks).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hanabi_p2p.errors import RemoteProtocolError
from hanabi_p2p.session import bodies as b

# property tests over every kind of body: too slow for the fast tier
pytestmark = pytest.mark.slow

PEER = bytes(range(32))
HASH = bytes(32)

# One valid body per kind (every optional field present where there is one).
VALID: dict[str, Any] = {
    "table.open": {
        "name": "Friday", "host": "Ann", "players": 3, "variant": "rainbow",
        "options": ["all_or_nothing", "empty_clues"],
    },
    "lobby.join": {"name": "Bob", "addr": ["10.0.0.2", 4000]},
    "lobby.seat": {"seats": [[PEER, "Ann", "10.0.0.1", 4000], [HASH, "Bob", "h", 1]]},
    "deck": {"deck": [["deck.public-key", 3, HASH]]},
    "action": {"act": ["clue", 1, "colour", "red", [3, 7]], "hash": HASH, "deck": []},
    "ack": {"hash": HASH, "deck": [["deck.public-key", 3, HASH]]},
    "move": {"card": 4, "to": 2},
    "chat": {"text": "hi"},
    "resign": {"reason": ""},
    "seed": {"deck": [["deck.seed", HASH]], "reason": "left", "blame": PEER},
}
OTHER_ACTS: list[Any] = [["play", 5, None], ["play", 5, "red"], ["discard", 9],
                         ["clue", 0, "rank", 3, []]]

scalars = (
    st.none() | st.booleans() | st.integers(min_value=-(2**64), max_value=2**64)
    | st.binary(max_size=40) | st.text(max_size=12)
    | st.sampled_from(["play", "clue", "colour", "rank", "red", "multicolor", "standard",
                       "choreography", "\t", " ", "\u2028", "\x85"])
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=6)
    | st.dictionaries(st.text(max_size=8) | st.sampled_from(sorted(
        {k for body in VALID.values() for k in body})), inner, max_size=6)
    # keys a decoder never gives us, but a parser must not trip on them either
    | st.dictionaries(st.integers() | st.binary(max_size=4), inner, max_size=3),
    max_leaves=20,
)


def parse(kind: str, body: Any) -> None:
    """Every way a body is parsed: the shape check and, for actions, the seat decoding."""
    try:
        b.validate_body(kind, body)
        if kind == "action":
            b.ActionBody.from_wire(body, seat=2)
    except b.BadBody:
        pass


@st.composite
def mutated(draw: st.DrawFn, kind: str) -> Any:
    """A valid body of `kind` with one nested part replaced, dropped or added."""
    body: Any = dict(VALID[kind])
    if kind == "action":
        body["act"] = draw(st.sampled_from([body["act"], *OTHER_ACTS]))
    path: list[Any] = []
    node = body
    while isinstance(node, dict | list) and node and draw(st.booleans()):
        key = draw(st.sampled_from(sorted(node) if isinstance(node, dict)
                                   else list(range(len(node)))))
        path.append(key)
        node = node[key]
    target = _copy_to(body, path)
    how = draw(st.sampled_from(["replace", "drop", "add"]))
    if not path:
        return draw(values) if how == "replace" else body
    parent, last = target
    if how == "replace":
        parent[last] = draw(values)
    elif how == "drop":
        del parent[last]
    elif isinstance(parent, dict):
        parent[draw(st.text(max_size=6))] = draw(values)
    else:
        parent.append(draw(values))
    return body


def _copy_to(body: Any, path: list[Any]) -> tuple[Any, Any]:
    """Copy the containers along `path` (so VALID is never changed); return the parent of
    the last step and its key."""
    parent = body
    for key in path[:-1]:
        child = parent[key]
        parent[key] = dict(child) if isinstance(child, dict) else list(child)
        parent = parent[key]
    if path and isinstance(parent[path[-1]], dict | list):
        child = parent[path[-1]]
        parent[path[-1]] = dict(child) if isinstance(child, dict) else list(child)
    return parent, (path[-1] if path else None)


def test_bad_body_is_the_one_remote_error() -> None:
    assert issubclass(b.BadBody, RemoteProtocolError)
    with pytest.raises(b.BadBody) as info:
        b.validate_body("table.open", {**VALID["table.open"], "variant": {"a": 1}})
    assert str(info.value).startswith("unknown variant")


@pytest.mark.parametrize("kind", sorted(VALID))
def test_every_valid_example_parses(kind: str) -> None:
    b.validate_body(kind, VALID[kind])


@pytest.mark.parametrize("kind", sorted(VALID))
@settings(max_examples=180, deadline=None)
@given(body=values)
def test_arbitrary_values_parse_or_raise_bad_body(kind: str, body: Any) -> None:
    parse(kind, body)


@pytest.mark.parametrize("kind", sorted(VALID))
@settings(max_examples=180, deadline=None)
@given(data=st.data())
def test_mutated_bodies_parse_or_raise_bad_body(kind: str, data: st.DataObject) -> None:
    parse(kind, data.draw(mutated(kind)))


@settings(max_examples=300, deadline=None)
@given(kind=st.text(max_size=12) | st.sampled_from(sorted(VALID)), body=values)
def test_any_kind_name_parses_or_raises_bad_body(kind: str, body: Any) -> None:
    parse(kind, body)
