"""Typed template contexts, built from the API's Game JSON (``GameLog.summary()`` and what the store adds).

Nothing here decides a rule: what may be done comes from the game's ``options`` and what it gives from their
points. This module only turns those answers into the shapes the templates draw, and picks the words in the
reader's language (German from the game's own German labels; other languages through the catalogs).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from flask_babel import lazy_gettext, ngettext

from companion.core import Rules, Setting, rules_for
from companion.dice import PIP_FACES, POKER_FACES
from web.pages.i18n import tr

__all__ = [
    "ChoiceView",
    "DiceMemory",
    "GameChoice",
    "GamePage",
    "PlayerView",
    "SettingView",
    "action_fields",
    "build_choices",
    "build_game_page",
    "dice_memory",
    "game_name",
    "hand_label",
    "setting_help",
]

JSON = dict[str, Any]
COLOURS = 8
GAME_ORDER = ("classic", "bone", "pokerdice", "sheet", "board")  # as guide/RULES.md lists them

# One-line descriptions of the games, in the catalog so every language has them (the names come with the rules).
GAME_LINES: dict[str, Any] = {
    "classic": lazy_gettext(
        "Lowest hand of a round takes a strike; three strikes and you are out. Or play for points."
    ),
    "bone": lazy_gettext("Every hand scores its points each round; the highest total after the last round wins."),
    "pokerdice": lazy_gettext("Card faces 9 10 J Q K A; the best hand wins the round; first to three round wins."),
    "sheet": lazy_gettext("Fill a sheet of Schule and combinations; reserve, doubling and bonuses."),
    "board": lazy_gettext("Two players place 18 dice on three rows; the better side of a row scores."),
}


def language() -> str:
    from web.pages.i18n import current_language

    return current_language()


def game_name(rules: Rules[Any]) -> str:
    """The game's name in the page's language: the catalog holds the German names of the rules and the others."""
    return tr(rules.name_en)


def pick(de: str, en: str) -> str:
    """German from the game's own German words; other languages through the catalog, falling back to English."""
    lang = language()
    if lang == "de":
        return de
    return tr(en) if en else en


def hand_label(hand: JSON | None) -> str:
    if not hand:
        return ""
    return pick(str(hand.get("label", "")), str(hand.get("label_en", "")))


def setting_help(setting: Setting) -> str:
    return pick(setting.help_de, setting.help_en)


# --------------------------------------------------------------------------- start page


@dataclass(frozen=True)
class SettingView:
    """One setting as a form control: ``kind`` is bool, int or choice; ``help`` is the line that explains it."""

    name: str
    label: str
    kind: str
    default: bool | int | str
    help: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None


@dataclass(frozen=True)
class GameChoice:
    """A game on the start page: its name, a line about it, how many play, its settings, and the readings in force
    (German in German, else English: ``readings_in_english`` says a page must tell the reader so)."""

    id: str
    name: str
    line: str
    min_players: int
    max_players: int
    settings: tuple[SettingView, ...]
    readings: tuple[str, ...] = ()
    readings_in_english: bool = False


SETTING_LABELS: dict[str, Any] = {
    "dice": lazy_gettext("Dice"),
    "rounds": lazy_gettext("Rounds"),
    "ties": lazy_gettext("Equal totals at the end"),
    "mode": lazy_gettext("Mode"),
    "columns": lazy_gettext("Columns"),
    "doubling": lazy_gettext("Doubling"),
    "points_to_win": lazy_gettext("Points to win"),
    "tie_break": lazy_gettext("Identical sides"),
    "either_side": lazy_gettext("Dice on either side"),
    "wins": lazy_gettext("Round wins to take the match"),
    "throw_limit": lazy_gettext("Throw limit"),
    "strike_limit": lazy_gettext("Strikes to be out"),
    "end_at_first_out": lazy_gettext("End at the first player out"),
    "points_table": lazy_gettext("Points table"),
    "held_fixed": lazy_gettext("Held dice are fixed"),
    "ace_joker": lazy_gettext("Ace as joker"),
    "blind_first_throw": lazy_gettext("Blind first throw"),
    "gap_straight": lazy_gettext("Straight with a gap"),
    "straight_above_full_house": lazy_gettext("Straights above the full house"),
    "more_players": lazy_gettext("Up to 8 players"),
}


def setting_label(name: str) -> str:
    if name in SETTING_LABELS:
        return str(SETTING_LABELS[name])
    return name.replace("_", " ").capitalize()


def game_choices() -> list[GameChoice]:
    from companion.core import all_rules

    out = []
    for rules in sorted(all_rules(), key=lambda r: (GAME_ORDER.index(r.id) if r.id in GAME_ORDER else 99, r.id)):
        settings = []
        for s in rules.settings:
            if isinstance(s.default, bool):
                kind = "bool"
            elif isinstance(s.default, int):
                kind = "int"
            else:
                kind = "choice" if s.choices else "text"
            settings.append(
                SettingView(
                    s.name,
                    setting_label(s.name),
                    kind,
                    s.default,
                    setting_help(s),
                    s.choices or (),
                    s.minimum,
                    s.maximum,
                )
            )
        out.append(
            GameChoice(
                rules.id,
                game_name(rules),
                str(GAME_LINES.get(rules.id, "")),
                rules.min_players,
                rules.max_players,
                tuple(settings),
                *readings_of(rules),
            )
        )
    return out


def readings_of(rules: Rules[Any]) -> tuple[tuple[str, ...], bool]:
    """The game's readings in force in the reader's language: German from the rules' own German sentences, the
    others through the catalogue; a sentence a catalogue lacks is shown in English, and the page says so."""
    lang = language()
    if lang == "de":
        return tuple(rules.readings_de), False
    said = tuple(tr(text) for text in rules.readings_en)
    return said, lang != "en" and any(a == b for a, b in zip(said, rules.readings_en, strict=True))


# --------------------------------------------------------------------------- a game


@dataclass(frozen=True)
class PlayerView:
    """A seat: name, colour (``pc0``..``pc7``), place and score from the standings, and whether it is their turn."""

    seat: int
    name: str
    colour: str
    place: int | None
    score: int | None
    to_move: bool
    out: bool = False
    note: str = ""


@dataclass(frozen=True)
class ChoiceView:
    """One option made ready to send: ``action`` is the game's action JSON so far; ``needs`` lists what the
    person must still give (``dice``, ``held``); ``dice_count`` how many dice the throw has."""

    kind: str
    player: int
    label: str
    points: int | None
    action: JSON
    needs: tuple[str, ...] = ()
    dice_count: int = 5
    detail: JSON = field(default_factory=dict)
    strike: bool = False
    group: str = ""
    short: str = ""  # a sheet entry's field alone (row, and column where there are several), for compact buttons


@dataclass(frozen=True)
class DiceMemory:
    """What the reader has learned of this game's dice (issue 52): confirmed dice crops ``seen``, of them
    ``corrected`` by the player, and the saved dice set it started from (``set_name``, or None)."""

    seen: int
    corrected: int = 0
    set_name: str | None = None
    set_id: int | None = None  # the saved set it started from, which it may teach when it ends (issue 60)
    new: int = 0  # dice learned in this game, beyond what the set knew
    set_updated: bool = False  # the set has learned this game's throws already


def dice_memory(game: JSON) -> DiceMemory | None:
    """The Game JSON's ``memory``, where the server has one and it holds anything; None otherwise."""
    mem = game.get("memory")
    if not isinstance(mem, dict):
        return None
    seen = mem.get("seen")
    if not isinstance(seen, int) or isinstance(seen, bool) or seen <= 0:
        return None
    def count(key: str) -> int:
        value = mem.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    name = mem.get("set")
    set_id = mem.get("set_id")
    return DiceMemory(
        seen=seen,
        corrected=count("corrected"),
        set_name=name if isinstance(name, str) and name else None,
        set_id=set_id if isinstance(set_id, int) and not isinstance(set_id, bool) else None,
        new=count("new"),
        set_updated=mem.get("set_updated") is True,
    )


@dataclass(frozen=True)
class GamePage:
    """Everything the table and phone pages show of one game; built from the API's Game JSON."""

    id: str
    game: str
    name: str
    status: str
    revision: int
    seen: int
    players: tuple[PlayerView, ...]
    to_move: int | None
    standings: tuple[JSON, ...]
    outcome: JSON | None
    view: JSON
    choices: tuple[ChoiceView, ...]
    settings: JSON
    dice_kind: str
    faces: tuple[str, ...]
    photos: JSON
    round_text: str
    turn_text: str
    winners: tuple[PlayerView, ...] = ()
    rematch: str | None = None  # the game's rematch, once someone started it: every device follows there
    next_game: str | None = None  # the new game the table started after this one was over: the devices follow it
    memory: DiceMemory | None = None  # what the reader has learned of the dice on this table (None: nothing yet)

    @property
    def over(self) -> bool:
        return self.outcome is not None or self.status != "playing"

    def player(self, seat: int | None) -> PlayerView | None:
        if seat is None or not 0 <= seat < len(self.players):
            return None
        return self.players[seat]

    @property
    def dice_choices(self) -> list[ChoiceView]:
        """The choices that need dice from the person (a throw, a roll-off)."""
        return [c for c in self.choices if "dice" in c.needs]

    def choices_of(self, kind: str) -> list[ChoiceView]:
        return [c for c in self.choices if c.kind == kind]


def action_fields(rules: Rules[Any], kind: str) -> tuple[dict[str, bool], bool]:
    """The fields of the game's action ``kind`` (name -> required) and whether it exists at all."""
    for cls in rules.actions:
        if cls.kind == kind:
            fields = {
                f.name: f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
                for f in dataclasses.fields(cls)
                if f.name != "player"
            }
            return fields, True
    return {}, False


SCHULE_RESULTS = frozenset({"closed", "closed_with_reserve", "zero"})


def build_choices(rules: Rules[Any], options: list[JSON], columns: int = 0) -> tuple[ChoiceView, ...]:
    """Turn the game's options into ready actions: given fields come from the option, the rest are asked for.
    ``columns``: the sheet's columns (1: no button names its column; 0: unknown, every button does)."""
    out = []
    for opt in options:
        kind = str(opt.get("action", ""))
        fields, known = action_fields(rules, kind)
        if not known:
            continue
        given = opt.get("fields")
        action: JSON = {"type": kind, "player": opt.get("player")}
        if isinstance(given, dict):
            action.update({k: v for k, v in given.items() if k in fields})
        else:
            action.update({k: opt[k] for k in fields if k in opt and opt[k] is not None})
        asked = opt.get("needs") or ()
        needs = ["dice"] if "dice" in fields and "dice" not in action and (fields["dice"] or "dice" in asked) else []
        if "held" in fields:
            needs.append("held")
        needs += [k for k, required in fields.items() if required and k not in action and k not in needs]
        detail = {k: v for k, v in opt.items() if k not in ("action", "player", "label", "points", "fields")}
        result = str(opt.get("result", ""))
        out.append(
            ChoiceView(
                kind=kind,
                player=int(opt.get("player") or 0),
                label=choice_label(rules.id, kind, opt, columns),
                short=choice_where(opt, columns) if kind in ("enter", "strike") else "",
                # a Schule field scores no points (its label says what it does to the reserve, or that it is a zero)
                points=None if result in SCHULE_RESULTS else opt.get("points"),
                action=action,
                needs=tuple(needs),
                dice_count=int(opt.get("dice_count") or 5),
                detail=detail,
                strike=kind == "strike" or result == "struck",
                group=kind,
            )
        )
    return tuple(out)


def choice_where(opt: JSON, columns: int = 0) -> str:
    """The sheet's field a choice enters: its row, with its column only where the sheet has more than one."""
    row = pick(str(opt.get("label_de", "")), str(opt.get("label_en", ""))) or str(opt.get("row", ""))
    column = opt.get("column")
    if column is None or columns == 1:
        return row
    return tr("%(row)s, column %(col)s", row=row, col=int(column) + 1)


def choice_label(game: str, kind: str, opt: JSON, columns: int = 0) -> str:
    """The words on a choice button, in the reader's language, from the option's own data."""
    lang = language()
    if kind == "stand":
        return hand_label(opt) or tr("Stand")
    if lang == "en" and kind not in ("choose_starter", "enter", "strike"):
        return str(opt.get("label", kind))
    if kind == "throw":
        number = opt.get("throw")
        limit = opt.get("max_throws")
        if number and limit:
            return tr("Throw %(n)s of %(max)s", n=number, max=limit)
        return f"{tr('Throw')} {number}" if number else tr("Throw")
    if kind in ("enter", "strike"):
        where = choice_where(opt, columns)
        if kind == "strike":
            return tr("Strike %(where)s", where=where)
        result = opt.get("result")
        change = int(opt.get("reserve_change") or 0)
        if result == "closed" and change > 0:
            return tr("%(where)s: closes, reserve +%(n)s", where=where, n=change)
        if result == "closed":
            return tr("%(where)s: closes", where=where)
        if result == "closed_with_reserve" and change < 0:
            return tr("%(where)s: closes, %(n)s paid from the reserve", where=where, n=-change)
        if result == "closed_with_reserve":
            return tr("%(where)s: closes with the reserve", where=where)
        if result == "zero":
            return tr("%(where)s: zero (-200)", where=where)
        if result == "struck":
            return tr("%(where)s: not made, a strike", where=where)
        return f"{where} ×2" if opt.get("doubled") else where
    if kind == "place":
        return tr("%(face)s to row %(row)s", face=opt.get("face", ""), row=int(opt.get("row", 0)) + 1)
    if kind == "roll_off":
        return tr("Throw one die to decide who starts")
    if kind == "choose_starter":
        return tr("Starts by choice")
    words = {
        "announce": tr("Announce a hand"),
        "believe": tr("Believe"),
        "doubt": tr("Lift the cup"),
        "rethrow": tr("Rethrow dice once"),
        "reveal": tr("Enter the revealed dice"),
        "blind": tr("Stand on an unseen throw"),
    }
    if kind in words:
        return words[kind]
    return str(opt.get("label", kind))


def _sheet_entry_text(view: JSON) -> str:
    """The entry of the player to move on their own sheet ("Entry 3 of 45"): the fields they have filled, not the
    entries of the whole table."""
    turn = view.get("turn") if isinstance(view.get("turn"), dict) else {}
    seat = turn.get("player") if isinstance(turn, dict) else None
    sheets = [s for s in view.get("players") or [] if isinstance(s, dict)]
    sheet = next((s for s in sheets if s.get("player") == seat), None)
    if sheet is None:
        return tr("Entry %(n)s", n=int(view.get("entries", 0)) + 1)
    fields = [cell for cells in (sheet.get("rows") or {}).values() for cell in cells]
    done = sum(1 for cell in fields if cell.get("result") is not None)
    return tr("Entry %(n)s of %(total)s", n=done + 1, total=len(fields))


def _round_text(game: str, view: JSON, outcome: JSON | None) -> str:
    if outcome is not None:
        return tr("Game over")
    if game == "sheet":
        return _sheet_entry_text(view)
    if game == "board":
        number = view.get("game")
        if number is None:
            return tr("Who starts?")
        return tr("Game %(n)s", n=number)
    number = view.get("round")
    if number is None:
        return ""
    if view.get("rolloff"):
        return tr("Round %(n)s: roll-off", n=number)
    if view.get("round_kind") == "extra":
        return tr("Extra round")
    total = view.get("rounds")
    if total and view.get("mode", "points") != "strikes":
        return tr("Round %(n)s of %(total)s", n=number, total=total)
    return tr("Round %(n)s", n=number)


def _turn_text(
    page_players: tuple[PlayerView, ...], to_move: int | None, view: JSON, choices: tuple[ChoiceView, ...]
) -> str:
    if to_move is None or not 0 <= to_move < len(page_players):
        return ""
    turn = view.get("turn") if isinstance(view.get("turn"), dict) else None
    kinds = {c.kind for c in choices if c.player == to_move}
    if turn and "throws" in turn and "max_throws" in turn:
        throws = int(turn["throws"])
        limit = int(turn["max_throws"])
        if throws == 0:
            return str(
                ngettext(
                    "Throw all five dice (%(num)s throw at most).",
                    "Throw all five dice (%(num)s throws at most).",
                    limit,
                )
            )
        left = limit - throws
        if left > 0 and ("stand" in kinds or "enter" in kinds):
            return tr("Throw %(n)s of %(max)s done: keep, rethrow, or choose.", n=throws, max=limit)
        return tr("All throws used: choose the entry.")
    if "place" in kinds:
        return tr("Place one die on the board.")
    if "reveal" in kinds:
        return tr("The cup is lifted: enter the dice under it.")
    if "believe" in kinds or "doubt" in kinds:
        return tr("Believe the claim, or lift the cup.")
    if "announce" in kinds:
        return tr("Throw under the cup, look, and announce a hand.")
    if "throw" in kinds and view.get("phase") == "throw":
        return tr("Throw three dice.")
    if "roll_off" in kinds:
        return tr("Each player throws one die; the higher starts.")
    return ""


def _board_news(players: tuple[PlayerView, ...], view: JSON, outcome: JSON | None) -> str:
    """The board game's game of the match that just ended, said at once (its dice stay on the board until the next
    throw): "Anna wins game 1, 2:1"."""
    games = [g for g in view.get("games") or [] if isinstance(g, dict)]
    if outcome is not None or not games or not games[-1].get("complete") or view.get("game") != games[-1].get("number"):
        return ""
    last = games[-1]
    score = list(last.get("score") or [0, 0])
    winner = last.get("winner")
    if isinstance(winner, int) and 0 <= winner < len(players) and len(score) == 2:
        return tr(
            "%(name)s wins game %(n)s, %(won)s:%(lost)s.",
            name=players[winner].name,
            n=last.get("number"),
            won=score[winner],
            lost=score[1 - winner],
        )
    return tr("Game %(n)s ends %(a)s:%(b)s.", n=last.get("number"), a=score[0], b=score[-1])


def running_standings(standings: list[JSON], view: JSON, outcome: JSON | None) -> list[JSON]:
    """The standings as the block's Total row shows them while a round is played: where the game keeps a running
    total (Bone: the hands already made this round count at once), the ranking and the phone's chips show it too,
    placed by it (equal totals share a place), instead of the last settled round's totals."""
    from companion.core import places

    running = view.get("running")
    if outcome is not None or not isinstance(running, list) or not standings:
        return standings
    scores = {int(s["player"]): running[int(s["player"])] for s in standings if int(s["player"]) < len(running)}
    if len(scores) != len(standings):
        return standings
    place = places(list(scores.items()))
    out = [{**s, "score": scores[int(s["player"])], "place": place[int(s["player"])]} for s in standings]
    return sorted(out, key=lambda s: (s["place"], int(s["player"])))


def build_game_page(game: JSON) -> GamePage:
    """A page's view of one game from the API's Game JSON (``state`` is ``GameLog.summary()``)."""
    state: JSON = game["state"]
    rules = rules_for(str(state["game"]))
    view: JSON = state.get("view") or {}
    standings: list[JSON] = running_standings(list(state.get("standings") or []), view, state.get("outcome"))
    by_seat = {int(s["player"]): s for s in standings}
    to_move = state.get("to_move")
    out_seats = set(view.get("out") or [])
    names: list[str] = list(state.get("players") or [])
    players = tuple(
        PlayerView(
            seat=i,
            name=name,
            colour=f"pc{i % COLOURS}",
            place=by_seat.get(i, {}).get("place"),
            score=by_seat.get(i, {}).get("score"),
            to_move=to_move == i,
            out=i in out_seats,
        )
        for i, name in enumerate(names)
    )
    settings: JSON = dict(state.get("settings") or {})
    columns = settings.get("columns")
    choices = build_choices(rules, list(state.get("options") or []), columns if isinstance(columns, int) else 0)
    outcome = state.get("outcome")
    dice_kind = str(settings.get("dice", "pip"))
    winners = tuple(players[w] for w in (outcome or {}).get("winners", []) if 0 <= w < len(players))
    return GamePage(
        id=str(game.get("id", "")),
        game=rules.id,
        name=game_name(rules),
        status=str(game.get("status", "playing")),
        revision=int(game.get("revision", 0)),
        seen=int(state.get("actions", 0)),
        players=players,
        to_move=to_move,
        standings=tuple(standings),
        outcome=outcome,
        view=view,
        choices=choices,
        settings=settings,
        dice_kind=dice_kind,
        faces=POKER_FACES if dice_kind == "poker" else PIP_FACES,
        photos=dict(game.get("photos") or {}),
        round_text=_round_text(rules.id, view, outcome),
        turn_text=" ".join(
            t
            for t in (
                _board_news(players, view, outcome) if rules.id == "board" else "",
                _turn_text(players, to_move, view, choices),
            )
            if t
        ),
        winners=winners,
        rematch=str(game["rematch"]) if game.get("rematch") else None,
        next_game=str(game["next_game"]) if game.get("next_game") else None,
        memory=dice_memory(game),
    )
