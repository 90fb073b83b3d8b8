"""Becher's rules and scorekeeper: pure Python, no I/O.

Games are action logs folded through their rules (:mod:`companion.core`); each game lives in
:mod:`companion.games` and registers itself.
"""

from companion.core import GameLog, Outcome, Rules, Setting, Setup, Standing, all_rules, rules_for
from companion.dice import DiceKind, face_label, parse_dice
from companion.errors import BecherError, IllegalAction, MalformedInput

__all__ = [
    "BecherError",
    "DiceKind",
    "GameLog",
    "IllegalAction",
    "MalformedInput",
    "Outcome",
    "Rules",
    "Setting",
    "Setup",
    "Standing",
    "all_rules",
    "face_label",
    "parse_dice",
    "rules_for",
]
