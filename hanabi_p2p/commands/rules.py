"""`hanabi-p2p rules`: a short summary of the rules, in the chosen language."""

from __future__ import annotations

import argparse

from hanabi_p2p import i18n
from hanabi_p2p.rules.cards import VARIANT_CHOICES, variant_named
from hanabi_p2p.ui.helptext import rules_summary, wrapped

# Printed for reading in any terminal or pager, so a little under the classic 80 columns.
COLUMNS = 78

HELP = "print a short summary of the rules (--lang en|it|ro|nb)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lang",
        metavar="LANG",
        help=f"language: {', '.join(i18n.LANGUAGES)} (default: from the environment)",
    )
    parser.add_argument(
        "--variant",
        choices=VARIANT_CHOICES,
        help="describe only this variant (default: all of them)",
    )


def run(args: argparse.Namespace) -> int:
    i18n.setup(args.lang)
    variant = variant_named(args.variant) if args.variant else None
    print("\n".join(wrapped(rules_summary(variant), COLUMNS)))
    return 0
