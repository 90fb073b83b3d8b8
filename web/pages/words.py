"""Words the games give in English and German only (hand names, sheet rows), listed so the catalogs of the
other six languages can carry them. Pages look them up by their English text (``model.pick``); a word missing
here is shown in English."""

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
)
