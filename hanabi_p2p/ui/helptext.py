"""Help for the commands and a short rules summary, in our own words, in every language.

The same summary is printed by `hanabi-p2p rules` and shown by the `rules` command in game.
"""

from __future__ import annotations

from hanabi_p2p.i18n import _
from hanabi_p2p.narration.terms import option_name, variant_name
from hanabi_p2p.rules.cards import GameConfig, Variant
from hanabi_p2p.ui.commands import Mode
from hanabi_p2p.ui.text import wrap_text

# The command column is typed as shown, in every language; only the explanation is translated.
COMMAND_COLUMN = 16


def _entry(example: str, explanation: str) -> str:
    return f"  {example.ljust(COMMAND_COLUMN)} {explanation}"


def command_help(mode: Mode, is_host: bool = False) -> list[str]:
    """One line per command available on the screen `mode`, then a legend of the table.

    `start` is listed for the host only: for everyone else the host starts the game.
    """
    lines = [_("Commands (any unique beginning of a word will do, Tab completes):")]
    if mode is Mode.LOBBY and is_host:
        lines.append(_entry("start", _("start the game (host only, once every seat is taken)")))
        lines.append(_entry("kick bob", _("remove a player before the deal (or: kick 2); "
                                          "it may join again")))
        lines.append(_entry("ban bob", _("remove a player for good: it cannot join again")))
    if mode is Mode.LOBBY and not is_host:
        lines.append(_entry("name NEW", _("change your name before the deal")))
    if mode is Mode.TABLE:
        lines.extend(
            [
                _entry("play 2", _("play the card in slot 2 (slots count from the left)")),
                _entry("play 2 red", _("choreography: announce its colour first")),
                _entry("discard 4", _("discard the card in slot 4 (gains a clue token)")),
                _entry("clue bob red", _("show Bob all his red cards")),
                _entry("clue carol 3", _("show Carol all her 3s")),
                _entry("clue 3 red", _("players can also be named by seat number")),
                _entry("move 5 1", _("move your card from slot 5 to slot 1")),
                _entry("note 3 TEXT", _("your private note on your card in slot 3")),
                _entry("note bob 2 TEXT", _("a note on Bob's card (note 3 alone clears one)")),
                _entry("info 3", _("every clue your card in slot 3 received: who, what, when")),
                _entry("hint", _("what a computer player would do in your seat, and why "
                                 "(practice games, and tables opened with --option hints)")),
                _entry("abandon", _("ask to end the game by agreement, or agree: it ends, "
                                    "nobody blamed, once every player has typed it")),
                _entry("unqueue", _("a play, discard or clue typed during another "
                                   "player's turn waits for yours (a premove; a clue on "
                                   "the card cancels it): unqueue drops it")),
            ]
        )
    if mode in (Mode.END, Mode.WATCH):
        lines.append(_entry("info bob 2", _("the story of Bob's card in slot 2")))
    if mode is not Mode.WATCH:
        lines.append(_entry("say hello", _("table talk (no hints outside clues!)")))
    if mode is not Mode.LOBBY:
        lines.append(_entry("log", _("the whole game log (PageUp/PageDown scroll)")))
    lines.extend(
        [
            _entry("rules", _("a short summary of the rules")),
            _entry("help", _("this list")),
            _entry("quit", _("stop watching") if mode is Mode.WATCH else _("leave the table")),
            _("Esc closes this panel."),
        ]
    )
    if mode is Mode.WATCH:
        lines.extend(
            [
                "",
                _(
                    "You are watching: you see the board, every action and the table talk, "
                    "but cannot play, clue or talk. Every hand shows the cards you may see: "
                    "all of them if the host opened the table with --spectators, otherwise "
                    "none (?? is a card whose face you do not know)."
                ),
                _(
                    "Under each card: the colours and numbers its holder still thinks "
                    "possible. Clue marks: B4(4) was told it is a 4."
                ),
            ]
        )
    if mode is Mode.TABLE:
        lines.extend(
            [
                "",
                _(
                    "Cards show colour and letter: R red, Y yellow, G green, B blue, W white, "
                    "M multicolour. Clue marks: B4(4) was told it is a 4."
                ),
                _(
                    "Your own cards: 2* means slot 2 was clued; the letters and numbers still "
                    "possible are shown, the ones ruled out are dots."
                ),
                _(
                    "★ marks the last copy of a card the fireworks still need (in hands and in "
                    "the discard pile); ✎ a card you wrote a note on; ▸ what happened since "
                    "your last turn."
                ),
                _(
                    "max: the best score still reachable. pace: how many more discards the "
                    "team can afford before that score is out of reach."
                ),
                _(
                    "bot ⚙Ann: a computer player run on Ann's machine, which holds its keys "
                    "and so could read that seat's cards."
                ),
            ]
        )
    return lines


def rules_summary(variant: Variant | None = None) -> list[str]:
    """Paragraphs (wrap them to the screen): the turn, the end, scoring and the variants.

    About 30 lines at 80 columns. All variants are described, or only `variant` if given.
    """
    lines = [
        _("HANABI: a cooperative game for 2 to 5 players."),
        _(
            "Together you build five fireworks (red, yellow, green, blue, white), each from "
            "1 up to 5 in order. You see everyone's cards except your own."
        ),
        "",
        _("Each turn, do exactly one of these:"),
        _(
            "- Give a clue (costs a clue token): pick another player and one colour or one "
            "number, and point at ALL their cards of it. Not possible with no tokens left."
        ),
        _("- Discard a card (gains a clue token back, up to 8): not possible with all 8."),
        _(
            "- Play a card: if it is the next number of its firework it is added; if not, it "
            "is discarded and a fuse burns. Completing a firework with its 5 returns a clue "
            "token. Either way, draw a new card."
        ),
        _("You may rearrange your own hand at any time. Beyond clues, no hints!"),
        "",
        _(
            "The deck: in each colour three 1s, two each of 2, 3 and 4, and one 5 (10 cards); "
            "5 colours, 50 cards. So a 5 is always the last of its kind, and a discarded 2, "
            "3 or 4 leaves a single copy."
        ),
        _("Hands: 5 cards each with 2 or 3 players, 4 cards each with 4 or 5 players."),
        "",
        _(
            "The game ends when the third fuse burns (you lose: score 0), when every firework "
            "is complete, or one round after the last card is drawn: everyone, the player who "
            "drew it included, takes one more turn."
        ),
        _(
            "Score: the top card of each firework. 0-5 horrible, 6-10 mediocre, 11-15 "
            "honourable, 16-20 excellent, 21-24 amazing, 25 legendary, 30 divine (with six "
            "colours)."
        ),
        "",
        _("Variants and options:"),
    ]
    descriptions = {
        Variant.MULTICOLOR: _("a sixth colour of 10 cards, named in clues like any other."),
        Variant.MULTICOLOR_SHORT: _("a sixth colour with a single card of each number."),
        Variant.RAINBOW: _(
            "multicolour cards are touched by every colour clue; multicolour cannot be named."
        ),
    }
    options = {
        "all_or_nothing": _(
            "no last round: play on until every firework is complete, or you lose."
        ),
        "choreography": _(
            "announce a colour when playing: right and placed, +1 clue token; wrong, a fuse."
        ),
        "empty_clues": _("a clue may point at no card at all."),
    }
    # No variant named: describe them all; standard has nothing to add but the options.
    shown = list(descriptions) if variant is None else [v for v in descriptions if v is variant]
    for v in shown:
        lines.append(f"- {variant_name(v)}: {descriptions[v]}")
    for option, text in options.items():
        lines.append(f"- {option_name(option)}: {text}")
    return lines


def rules_for(config: GameConfig) -> list[str]:
    return rules_summary(config.variant)


def wrapped(paragraphs: list[str], columns: int) -> list[str]:
    return [line for paragraph in paragraphs for line in wrap_text(paragraph, columns)]
