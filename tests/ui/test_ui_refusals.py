"""Typed refusals: their English text, and their wording in every language by class."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
import string

import pytest

from hanabi_p2p import i18n
from hanabi_p2p import refusals as rf
from hanabi_p2p.errors import IllegalAction, Refusal
from hanabi_p2p.ui.refusals import WORDING, translate_refusal

SAMPLE_VALUES = {"int": 3, "float": 2.5, "str": "Bob", "object": 4}
ALL_REFUSALS = [cls for _, cls in inspect.getmembers(rf, inspect.isclass)
                if issubclass(cls, Refusal) and cls is not Refusal]


def sample(cls: type[Refusal]) -> Refusal:
    values = {f.name: SAMPLE_VALUES[str(f.type)] for f in dataclasses.fields(cls)}
    return cls(**values)


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("cls", ALL_REFUSALS, ids=lambda cls: cls.__name__)
def test_a_refusal_is_an_illegal_action_whose_text_is_its_template_filled_in(
        cls: type[Refusal]) -> None:
    refusal = sample(cls)
    assert isinstance(refusal, IllegalAction)
    assert placeholders(cls.template) == {f.name for f in dataclasses.fields(cls)}
    text = str(refusal)
    assert text and "{" not in text and refusal.args == (text,)
    assert all(value in text for value in refusal.parts().values())


@pytest.mark.parametrize("cls", ALL_REFUSALS, ids=lambda cls: cls.__name__)
def test_a_refusal_crosses_to_another_process_whole(cls: type[Refusal]) -> None:
    refusal = sample(cls)
    back = pickle.loads(pickle.dumps(refusal))
    assert type(back) is cls and back.parts() == refusal.parts() and str(back) == str(refusal)


def test_each_refusal_has_its_own_english_text() -> None:
    templates = [cls.template for cls in ALL_REFUSALS]
    assert len(set(templates)) == len(templates)


def test_the_english_texts_are_those_the_layers_always_gave() -> None:
    assert str(rf.NotThisSeatsTurn(2)) == "not your turn: it is seat 2's turn"
    assert str(rf.ColourNotInVariant("clue", "teal", "No Variant")) == (
        "clue not allowed: teal cannot be named in No Variant")
    assert str(rf.SlowDown(5, 10.0)) == "slow down: at most 5 messages every 10 s"
    assert str(rf.WaitingForPlayers(2)) == "waiting for 2 more player(s) to sit down"


@pytest.mark.parametrize("lang", ["en", "it", "ro", "nb"])
@pytest.mark.parametrize("cls", list(WORDING), ids=lambda cls: cls.__name__)
def test_every_worded_refusal_reads_in_every_language_with_its_fields(
        cls: type[Refusal], lang: str) -> None:
    assert placeholders(WORDING[cls]) <= {f.name for f in dataclasses.fields(cls)}
    i18n.setup(lang)
    try:
        text = translate_refusal(sample(cls))
    finally:
        i18n.setup("en")
    assert text and "{" not in text
    if lang != "en":
        assert text != str(sample(cls)) or cls.template == WORDING[cls]


def test_rewording_the_english_keeps_the_translation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rf.NotYourTurn, "template", "wait: {name} plays now")
    assert str(rf.NotYourTurn("Bob")) == "wait: Bob plays now"
    i18n.setup("it")
    try:
        assert translate_refusal(rf.NotYourTurn("Bob")) == "è il turno di Bob"
    finally:
        i18n.setup("en")
