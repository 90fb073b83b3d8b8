"""Words the games give in English and German only (hand names, sheet rows, the help line of each setting),
listed so the catalogs of the other six languages can carry them. Pages look them up by their English text
(``model.pick``); a text missing here is shown in English (tests/web/test_pages.py says which are missing)."""

from __future__ import annotations

from flask_babel import lazy_gettext

GAME_WORDS = (
    # hand categories of classic, bone and pokerdice
    lazy_gettext("Nothing"),
    lazy_gettext("Pair"),
    lazy_gettext("One pair"),
    lazy_gettext("One Pair"),
    lazy_gettext("Two pairs"),
    lazy_gettext("Two Pair"),
    lazy_gettext("Three of a kind"),
    lazy_gettext("Three of a Kind"),
    lazy_gettext("Small straight"),
    lazy_gettext("Large straight"),
    lazy_gettext("Straight"),
    lazy_gettext("Full house"),
    lazy_gettext("Full House"),
    lazy_gettext("Four of a kind (Poker)"),
    lazy_gettext("Four of a kind"),
    lazy_gettext("Four of a Kind"),
    lazy_gettext("Five of a kind (Grande)"),
    lazy_gettext("Five of a kind"),
    lazy_gettext("Five of a Kind"),
    lazy_gettext("High die"),
    lazy_gettext("High Die"),
    lazy_gettext("Single"),
    # rows of the score sheet
    lazy_gettext("School 1"),
    lazy_gettext("School 2"),
    lazy_gettext("School 3"),
    lazy_gettext("School 4"),
    lazy_gettext("School 5"),
    lazy_gettext("School 6"),
    lazy_gettext("Sum"),
    # the help line of each setting (Setting.help_en)
    lazy_gettext(
        "Identical row sides: the side whose third die was placed first wins (third), "
        "or the side whose first die was placed first (first)."
    ),
    lazy_gettext("Variant: dice may be placed on either side of the board."),
    lazy_gettext("Games are played until a player has this many points in total."),
    lazy_gettext("Which dice are thrown: pip dice (1-6) or poker dice (9 10 J Q K A)."),
    lazy_gettext("How many rounds are played; every hand scores its points each round."),
    lazy_gettext("Equal highest totals at the end: the tied players play one more round (extra), or share the place."),
    lazy_gettext(
        "Strikes (lowest hand takes a strike), points (a fixed number of rounds), or bluff (announce under the cup)."
    ),
    lazy_gettext("The number of throws the round's first player used is the maximum for the others."),
    lazy_gettext("Strikes that put a player out (strikes and bluff modes)."),
    lazy_gettext("The game ends at the first player with the last strike (that player loses) instead of playing on."),
    lazy_gettext("Rounds in points mode."),
    lazy_gettext(
        "Points in points mode, nine numbers: five of a kind (Grande), four of a kind (Poker), full house, large "
        "straight, small straight, three of a kind, two pairs, pair, nothing."
    ),
    lazy_gettext("House rule: held dice are fixed: dice set aside stay aside for the rest of the turn."),
    lazy_gettext("House rule: ace as joker: each 6 (ace) counts as whatever value makes the best hand."),
    lazy_gettext(
        "House rule: blind first throw: the starter may stand on an unseen first throw; "
        "then everyone gets one unseen throw."
    ),
    lazy_gettext("House rule: straight with a gap: 1-2-3-4-6 counts as a small straight, just below a true 1-2-3-4-5."),
    lazy_gettext("House rule: straights rank above the full house (large straight > small straight > full house)."),
    lazy_gettext("Round wins that take the match."),
    lazy_gettext("Columns of the sheet; every row is filled left to right."),
    lazy_gettext(
        "When a combination or the sum doubles: any throw of all five dice at once (the rule text), "
        "or only the first throw of a turn."
    ),
    lazy_gettext("Allow up to 8 players (the rules say 1 to 4)."),
)
