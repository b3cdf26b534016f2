"""Language choice, the .po reader, and the completeness of every shipped catalog."""

from __future__ import annotations

import functools
import gettext
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from hanabi_p2p import i18n
from hanabi_p2p.errors import UserError
from hanabi_p2p.i18n import (
    CatalogError,
    PoTranslations,
    catalog_path,
    extract_messages,
    parse_po,
    resolve_language,
)

TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.SOURCE_LANGUAGE]
PLACEHOLDER = re.compile(r"\{[a-z_]+\}")


# --- choosing the language ---------------------------------------------------------------------


def test_explicit_language_wins_over_the_environment() -> None:
    assert resolve_language("it", {"LANG": "nb_NO.UTF-8"}) == "it"


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"LANG": "ro_RO.UTF-8"}, "ro"),
        ({"LANG": "it_IT.UTF-8", "LC_MESSAGES": "nb_NO.UTF-8"}, "nb"),
        ({"LANG": "it_IT", "LC_ALL": "ro_RO"}, "ro"),
        ({"LANGUAGE": "fr:nb:en", "LANG": "it_IT"}, "nb"),
        ({"LANG": "no_NO.UTF-8"}, "nb"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "fr_FR.UTF-8"}, "en"),
        ({"LC_ALL": "de_DE", "LANG": "it_IT"}, "en"),  # LC_ALL decides even if unknown
        ({}, "en"),
    ],
)
def test_language_from_the_environment(environ: dict[str, str], expected: str) -> None:
    assert resolve_language(None, environ) == expected


def test_unknown_explicit_language_is_a_user_error() -> None:
    with pytest.raises(UserError, match="unknown language 'xx'"):
        resolve_language("xx", {})


def test_setup_switches_what_underscore_returns() -> None:
    assert i18n.setup("it") == "it"
    assert i18n._("Fireworks") == "Fuochi d'artificio"
    assert i18n.pgettext("colour", "blue") == "blu"
    i18n.setup("en")
    assert i18n._("Fireworks") == "Fireworks"


# --- the .po reader ----------------------------------------------------------------------------

SAMPLE = r"""
# a comment
msgid ""
msgstr ""
"Language: ro\n"
"Plural-Forms: nplurals=3; plural=(n==1 ? 0 : (n==0 || (n%100 > 0 && n%100 < 20)) ? 1 : 2);\n"

#: somewhere.py:1
msgid "a \"quoted\"\tline"
msgstr "o linie "
"\"citată\"\t"

msgctxt "colour"
msgid "red"
msgstr "roșu"

msgid "{count} card"
msgid_plural "{count} cards"
msgstr[0] "{count} carte"
msgstr[1] "{count} cărți"
msgstr[2] "{count} de cărți"

#, fuzzy
msgid "unsure"
msgstr "nesigur"

msgid "untranslated"
msgstr ""
"""


def test_po_reader_handles_escapes_continuations_context_and_plurals() -> None:
    catalog = PoTranslations(parse_po(SAMPLE))
    assert catalog.gettext('a "quoted"\tline') == 'o linie "citată"\t'
    assert catalog.pgettext("colour", "red") == "roșu"
    assert catalog.gettext("red") == "red"  # without its context it is another message
    forms = [catalog.ngettext("{count} card", "{count} cards", n) for n in (1, 2, 19, 20, 101)]
    assert forms == [
        "{count} carte",
        "{count} cărți",
        "{count} cărți",
        "{count} de cărți",
        "{count} cărți",
    ]


def test_po_reader_falls_back_to_english_for_fuzzy_and_empty_entries() -> None:
    catalog = PoTranslations(parse_po(SAMPLE))
    assert catalog.gettext("unsure") == "unsure"
    assert catalog.gettext("untranslated") == "untranslated"
    assert catalog.ngettext("{count} bird", "{count} birds", 2) == "{count} birds"


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ('msgid "a"\nmsgstr "b\\q"', "unknown escape"),
        ('msgid "a"\nmsgstr b', "expected a quoted string"),
        ('msgid "a"\nmsgstr "b"\nmsgfoo "c"', "unknown keyword"),
        ('"orphan"', "continuation line outside an entry"),
        ('msgid "a"\nmsgid_plural "as"\nmsgstr[x] "b"', "bad plural index"),
        ('msgstr "b"', "entry without msgid"),
    ],
)
def test_po_reader_rejects_malformed_catalogs(text: str, complaint: str) -> None:
    with pytest.raises(CatalogError, match=complaint):
        parse_po(text, "bad.po")


def test_catalog_larger_than_the_limit_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.po"
    big.write_bytes(b"#" * (i18n.MAX_CATALOG_BYTES + 1))
    with pytest.raises(CatalogError, match="larger than"):
        PoTranslations.from_file(big)


@pytest.mark.process
@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="GNU msgfmt is not installed")
@pytest.mark.parametrize("lang", TRANSLATED)
def test_our_reader_agrees_with_gnu_msgfmt(lang: str, tmp_path: Path) -> None:
    """Cross-check: msgfmt accepts the catalog and GNUTranslations reads what we read."""
    mo = tmp_path / "out.mo"
    subprocess.run(
        ["msgfmt", "--check", "-o", str(mo), str(catalog_path(lang))],
        check=True,
        capture_output=True,
    )
    with mo.open("rb") as fh:
        gnu = gettext.GNUTranslations(fh)
    ours = i18n.load(lang)
    for message in source_messages():
        if message.msgid_plural is not None:
            for n in (0, 1, 2, 5, 21, 101):
                assert ours.ngettext(message.msgid, message.msgid_plural, n) == gnu.ngettext(
                    message.msgid, message.msgid_plural, n
                )
        elif message.context is not None:
            assert ours.pgettext(message.context, message.msgid) == gnu.pgettext(
                message.context, message.msgid
            )
        else:
            assert ours.gettext(message.msgid) == gnu.gettext(message.msgid)


# --- the shipped catalogs ----------------------------------------------------------------------


@functools.cache
def source_messages() -> tuple[i18n.SourceMessage, ...]:
    """The messages of the source, read once per process: each test of every catalog
    compares against the same sources, which do not change while the tests run."""
    return tuple(extract_messages())


def _entries(lang: str) -> dict[str, i18n.PoEntry]:
    entries = parse_po(catalog_path(lang).read_text(encoding="utf-8"))
    keyed = {}
    for entry in entries:
        if entry.msgid:
            key = entry.msgid if entry.context is None else f"{entry.context}\x04{entry.msgid}"
            keyed[key] = entry
    return keyed


@pytest.mark.slow
def test_the_source_uses_translated_strings_at_all() -> None:
    keys = {m.key for m in source_messages()}
    assert "Fireworks" in keys
    assert "colour\x04red" in keys
    assert len(keys) > 100


@pytest.mark.slow
@pytest.mark.parametrize("lang", TRANSLATED)
def test_catalog_has_every_message_of_the_source(lang: str) -> None:
    entries = _entries(lang)
    missing = sorted(
        f"{m.location}: {m.msgid!r}" for m in source_messages() if m.key not in entries
    )
    assert not missing, f"{lang} lacks:\n" + "\n".join(missing)


@pytest.mark.slow
@pytest.mark.parametrize("lang", TRANSLATED)
def test_catalog_has_no_stale_messages(lang: str) -> None:
    used = {m.key for m in source_messages()}
    stale = sorted(key for key in _entries(lang) if key not in used)
    assert not stale, f"{lang} translates messages no code uses: {stale}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_catalog_translations_are_complete_and_keep_placeholders(lang: str) -> None:
    problems = []
    catalog = i18n.load(lang)
    assert isinstance(catalog, PoTranslations)
    for key, entry in _entries(lang).items():
        if entry.fuzzy:
            problems.append(f"fuzzy: {key!r}")
        if entry.msgid_plural is not None and len(entry.msgstrs) != catalog.nplurals:
            problems.append(f"{len(entry.msgstrs)} plural forms, not {catalog.nplurals}: {key!r}")
        wanted = set(PLACEHOLDER.findall(entry.msgid))
        if entry.msgid_plural is not None:
            wanted |= set(PLACEHOLDER.findall(entry.msgid_plural))
        for text in entry.msgstrs:
            if not text.strip():
                problems.append(f"empty: {key!r}")
            elif set(PLACEHOLDER.findall(text)) != wanted:
                problems.append(f"placeholders differ: {key!r} -> {text!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_translation_formats_with_the_arguments_the_code_gives(lang: str) -> None:
    """No stray braces: each translation formats without error given its own placeholders."""
    for entry in _entries(lang).values():
        for text in entry.msgstrs:
            names = {name.strip("{}"): "x" for name in PLACEHOLDER.findall(text)}
            text.format(**names)


def test_a_translation_differs_from_english_where_the_word_differs() -> None:
    # Guards against a catalog that silently copies msgids: spot-check rulebook terms.
    expectations = {
        "it": {"Clue tokens": "Gettoni blu", "legendary": "leggendario"},
        "ro": {"Clue tokens": "Jetoane albastre", "amazing": "maestru"},
        "nb": {"Clue tokens": "Blå sjetonger", "honourable": "æren i behold"},
    }
    for lang, words in expectations.items():
        catalog = i18n.load(lang)
        for english, translated in words.items():
            assert catalog.gettext(english) == translated


@pytest.mark.slow
def test_message_checker_reports_nothing_missing(capsys: pytest.CaptureFixture[str]) -> None:
    assert i18n.main([]) == 0
    assert capsys.readouterr().out == ""
