"""Translations: gettext lookups fed from the shipped ``.po`` catalogs.

English is the source language (the msgids); Italian, Romanian and Norwegian Bokmål live in
``hanabi_p2p/locale/<lang>/LC_MESSAGES/hanabi_p2p.po``. We read the ``.po`` text directly with
a small parser instead of compiling ``.mo`` files, so a fresh machine with nothing but python3
needs neither msgfmt nor Babel, and there is no build step to forget.

Use ``_("text")`` for a message, ``ngettext(singular, plural, n)`` for counts and
``N_("text")`` to mark a string that is stored now and translated later (module constants
must not be translated at import time, before ``setup`` has chosen the language).
Placeholders are ``str.format`` names (``{name}``) so translators can reorder them.
"""

from __future__ import annotations

import ast
import gettext
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from hanabi_p2p.errors import UserError

DOMAIN = "hanabi_p2p"
SOURCE_LANGUAGE = "en"
LANGUAGES: tuple[str, ...] = ("en", "it", "ro", "nb")
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

# Locale codes that mean one of our languages. Norwegian "no" is the macrolanguage and "nn"
# (Nynorsk) readers read Bokmål comfortably, so both fall back to our Bokmål catalog.
_ALIASES: dict[str, str] = {"no": "nb", "nn": "nb", "c": "en", "posix": "en"}
# The environment variables gettext itself consults, in its order of precedence.
_ENV_VARS: tuple[str, ...] = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
# A catalog is our own file, but it is still parsed defensively: refuse absurd sizes.
MAX_CATALOG_BYTES = 1_000_000

# The key under which a context-qualified message is stored, as in GNU .mo files.
_CONTEXT_SEPARATOR = "\x04"


class CatalogError(UserError):
    """A translation catalog (.po file) cannot be read."""


def _normalise(code: str) -> str | None:
    """'it_IT.UTF-8@euro' -> 'it'; None when the code is not one of our languages."""
    base = code.strip().split(".")[0].split("@")[0].split("_")[0].split("-")[0].lower()
    base = _ALIASES.get(base, base)
    return base if base in LANGUAGES else None


def resolve_language(lang: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The language to use: `lang` (from --lang) if given, else the environment, else English.

    An explicit `lang` we do not ship is the user's mistake and raises `UserError`; an
    unknown environment locale quietly falls back, as every gettext program does.
    """
    if lang is not None:
        found = _normalise(lang)
        if found is None:
            known = ", ".join(LANGUAGES)
            raise UserError(f"unknown language {lang!r} (known: {known})")
        return found
    env = os.environ if environ is None else environ
    for var in _ENV_VARS:
        value = env.get(var, "")
        if not value:
            continue
        # LANGUAGE is a colon-separated preference list; the others hold one locale.
        for code in value.split(":") if var == "LANGUAGE" else [value]:
            found = _normalise(code)
            if found is not None:
                return found
        if var != "LANGUAGE":
            # The first set locale variable decides (LC_ALL overrides LANG even if unknown).
            return SOURCE_LANGUAGE
    return SOURCE_LANGUAGE


# --- .po parsing -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PoEntry:
    context: str | None
    msgid: str
    msgid_plural: str | None
    msgstrs: tuple[str, ...]  # one string, or one per plural form
    fuzzy: bool


_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r", "a": "\a"}


def _unquote(token: str, where: str) -> str:
    token = token.strip()
    if len(token) < 2 or token[0] != '"' or token[-1] != '"':
        raise CatalogError(f"{where}: expected a quoted string, got {token[:40]!r}")
    body = token[1:-1]
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            if i + 1 >= len(body) or body[i + 1] not in _ESCAPES:
                raise CatalogError(f"{where}: unknown escape in {token[:40]!r}")
            out.append(_ESCAPES[body[i + 1]])
            i += 2
            continue
        if ch == '"':
            raise CatalogError(f"{where}: unescaped quote in {token[:40]!r}")
        out.append(ch)
        i += 1
    return "".join(out)


def parse_po(text: str, source: str = "<po>") -> list[PoEntry]:
    """Parse the subset of the PO format that msgfmt accepts for ordinary catalogs.

    Handles comments, the ``#, fuzzy`` flag, ``msgctxt``, ``msgid_plural``, ``msgstr[n]`` and
    strings continued over several lines. Obsolete entries (``#~``) are skipped.
    """
    entries: list[PoEntry] = []
    fields: dict[str, str] = {}
    fuzzy = False
    current: str | None = None

    def flush(lineno: int) -> None:
        nonlocal fields, fuzzy, current
        if fields:
            if "msgid" not in fields:
                raise CatalogError(f"{source}:{lineno}: entry without msgid")
            plural = "msgid_plural" in fields
            if plural:
                forms = sorted(k for k in fields if k.startswith("msgstr["))
                msgstrs = tuple(fields[k] for k in forms)
            else:
                msgstrs = (fields.get("msgstr", ""),)
            entries.append(
                PoEntry(
                    context=fields.get("msgctxt"),
                    msgid=fields["msgid"],
                    msgid_plural=fields.get("msgid_plural"),
                    msgstrs=msgstrs,
                    fuzzy=fuzzy,
                )
            )
        fields, fuzzy, current = {}, False, None

    keywords = ("msgctxt", "msgid_plural", "msgid", "msgstr")
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        where = f"{source}:{lineno}"
        if not line:
            continue
        if line.startswith("#"):
            if line.startswith("#,") and "fuzzy" in [f.strip() for f in line[2:].split(",")]:
                flush(lineno)
                fuzzy = True
            elif not line.startswith("#~") and current is not None and "msgstr" in current:
                # A comment after a complete entry starts the next one.
                flush(lineno)
            continue
        if line.startswith('"'):
            if current is None:
                raise CatalogError(f"{where}: continuation line outside an entry")
            fields[current] += _unquote(line, where)
            continue
        keyword, _sep, rest = line.partition(" ")
        name = keyword
        if keyword.startswith("msgstr[") and keyword.endswith("]"):
            index = keyword[len("msgstr[") : -1]
            if not index.isdigit():
                raise CatalogError(f"{where}: bad plural index {keyword!r}")
            name = f"msgstr[{int(index):02d}]"
        elif keyword not in keywords:
            raise CatalogError(f"{where}: unknown keyword {keyword[:20]!r}")
        if keyword in ("msgctxt", "msgid") and current is not None and "msgstr" in current:
            flush(lineno)
        if name in fields:
            raise CatalogError(f"{where}: {keyword} given twice in one entry")
        fields[name] = _unquote(rest, where)
        current = name
    flush(len(text.splitlines()) + 1)
    return entries


def _header_plural(entries: Iterable[PoEntry], source: str) -> tuple[int, Callable[[int], int]]:
    for entry in entries:
        if entry.msgid == "" and entry.context is None:
            for line in entry.msgstrs[0].splitlines():
                key, _sep, value = line.partition(":")
                if key.strip().lower() == "plural-forms":
                    parts = dict(p.strip().split("=", 1) for p in value.split(";") if "=" in p)
                    try:
                        nplurals = int(parts["nplurals"])
                        # c2py is what GNUTranslations uses: it checks the expression is
                        # plain C arithmetic before turning it into a function.
                        return nplurals, gettext.c2py(parts["plural"])
                    except (KeyError, ValueError) as exc:
                        raise CatalogError(f"{source}: bad Plural-Forms header") from exc
    return 2, lambda n: int(n != 1)


class PoTranslations(gettext.NullTranslations):
    """A `gettext.NullTranslations` whose lookups come from a parsed .po catalog.

    Untranslated and fuzzy entries fall back to the English msgid, as with .mo files.
    """

    def __init__(self, entries: Iterable[PoEntry], source: str = "<po>") -> None:
        super().__init__()
        entries = list(entries)
        self.nplurals, self._plural = _header_plural(entries, source)
        self._catalog: dict[str, tuple[str, ...]] = {}
        for entry in entries:
            if entry.msgid == "" or entry.fuzzy or not all(entry.msgstrs):
                continue
            key = entry.msgid
            if entry.context is not None:
                key = f"{entry.context}{_CONTEXT_SEPARATOR}{entry.msgid}"
            self._catalog[key] = entry.msgstrs

    @classmethod
    def from_file(cls, path: Path) -> PoTranslations:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CatalogError(f"cannot read {path}: {exc.strerror}") from None
        if len(data) > MAX_CATALOG_BYTES:
            raise CatalogError(f"{path}: larger than {MAX_CATALOG_BYTES} bytes")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise CatalogError(f"{path}: not UTF-8") from None
        return cls(parse_po(text, str(path)), str(path))

    def _lookup(self, key: str, fallback: str) -> str:
        found = self._catalog.get(key)
        return found[0] if found else fallback

    def _lookup_plural(self, key: str, singular: str, plural: str, n: int) -> str:
        found = self._catalog.get(key)
        if not found:
            return singular if n == 1 else plural
        index = self._plural(n)
        return found[index] if 0 <= index < len(found) else found[-1]

    def gettext(self, message: str) -> str:
        return self._lookup(message, message)

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return self._lookup_plural(msgid1, msgid1, msgid2, n)

    def pgettext(self, context: str, message: str) -> str:
        return self._lookup(f"{context}{_CONTEXT_SEPARATOR}{message}", message)

    def npgettext(self, context: str, msgid1: str, msgid2: str, n: int) -> str:
        key = f"{context}{_CONTEXT_SEPARATOR}{msgid1}"
        return self._lookup_plural(key, msgid1, msgid2, n)

    def messages(self) -> frozenset[str]:
        """Keys of every translated message (context-qualified as in .mo files)."""
        return frozenset(self._catalog)


def catalog_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def load(lang: str) -> gettext.NullTranslations:
    """The translations for one of `LANGUAGES` (English is the identity)."""
    if lang == SOURCE_LANGUAGE:
        return gettext.NullTranslations()
    if lang not in LANGUAGES:
        raise UserError(f"unknown language {lang!r} (known: {', '.join(LANGUAGES)})")
    return PoTranslations.from_file(catalog_path(lang))


# --- the process-wide current language -------------------------------------------------------

_current: gettext.NullTranslations = gettext.NullTranslations()
_current_lang: str = SOURCE_LANGUAGE


def setup(lang: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """Choose the language for this process (from --lang, else the environment); returns it."""
    global _current, _current_lang
    chosen = resolve_language(lang, environ)
    _current = load(chosen)
    _current_lang = chosen
    return chosen


def current_language() -> str:
    return _current_lang


def _(message: str) -> str:
    """Translate `message` into the current language."""
    return _current.gettext(message)


def N_(message: str) -> str:  # noqa: N802 (the gettext convention)
    """Mark `message` for translation without translating it yet (for constants)."""
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    return _current.ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """Translate `message` used in `context`, for short words with several meanings."""
    return _current.pgettext(context, message)


# --- finding every message in the source, for catalog checks ----------------------------------

TRANSLATION_FUNCTIONS = ("_", "N_", "ngettext", "pgettext")


@dataclass(frozen=True, slots=True)
class SourceMessage:
    context: str | None
    msgid: str
    msgid_plural: str | None
    location: str

    @property
    def key(self) -> str:
        if self.context is None:
            return self.msgid
        return f"{self.context}{_CONTEXT_SEPARATOR}{self.msgid}"


def extract_messages(root: Path | None = None) -> list[SourceMessage]:
    """Every literal string passed to a translation function in the package source.

    Only modules that import from ``hanabi_p2p.i18n`` are scanned, so an unrelated function
    called ``_`` elsewhere is not mistaken for a translation. ``_(variable)`` translates a
    string marked with ``N_`` elsewhere and is skipped; any other non-literal argument is an
    error, since no catalog could contain it.
    """
    base = Path(__file__).resolve().parent if root is None else root
    found: list[SourceMessage] = []
    for path in sorted(base.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        if not _imports_i18n(tree):
            continue
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            name = node.func.id
            if name not in TRANSLATION_FUNCTIONS:
                continue
            where = f"{path.relative_to(base.parent)}:{node.lineno}"
            literal_count = {"_": 1, "N_": 1, "ngettext": 2, "pgettext": 2}[name]
            args = node.args[:literal_count]
            literal = len(args) == literal_count and all(
                isinstance(a, ast.Constant) and isinstance(a.value, str) for a in args
            )
            if not literal:
                if name == "_":
                    continue  # translating a string marked elsewhere with N_()
                raise CatalogError(f"{where}: {name}() needs literal string arguments")
            values = [
                a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str)
            ]
            if name == "ngettext":
                found.append(SourceMessage(None, values[0], values[1], where))
            elif name == "pgettext":
                found.append(SourceMessage(values[0], values[1], None, where))
            else:
                found.append(SourceMessage(None, values[0], None, where))
    return found


def _imports_i18n(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "hanabi_p2p.i18n":
            return True
    return False


def missing_translations(lang: str, root: Path | None = None) -> list[SourceMessage]:
    """Source messages that `lang`'s catalog does not translate."""
    catalog = load(lang)
    if not isinstance(catalog, PoTranslations):
        return []
    have = catalog.messages()
    return [m for m in extract_messages(root) if m.key not in have]


def main(argv: list[str] | None = None) -> int:
    """``python -m hanabi_p2p.i18n``: list messages a catalog lacks (for translators)."""
    langs = (argv if argv is not None else sys.argv[1:]) or [
        lang for lang in LANGUAGES if lang != SOURCE_LANGUAGE
    ]
    status = 0
    for lang in langs:
        seen: set[str] = set()
        for message in missing_translations(lang):
            if message.key in seen:
                continue
            seen.add(message.key)
            status = 1
            print(f"{lang}: {message.location}: {message.msgid!r}")
    return status


if __name__ == "__main__":
    sys.exit(main())
