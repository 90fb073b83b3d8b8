"""Helpers shared by the page blueprints: face pictures, action descriptions, the words the scripts need."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from flask import Flask, url_for
from flask_babel import lazy_gettext, ngettext
from markupsafe import Markup

from companion.dice import PIP_FACES, POKER_FACES
from web.pages.i18n import tr
from web.pages.model import GamePage

JSON = dict[str, Any]


def face_of(value: int | str, kind: str = "pip") -> str:
    """A die's printed face from a rank (1..6) or a face string."""
    faces = POKER_FACES if kind == "poker" else PIP_FACES
    if isinstance(value, int) and 1 <= value <= 6:
        return faces[value - 1]
    return str(value)


def face_src(face: str, kind: str = "pip") -> str:
    if kind == "poker" or (face in POKER_FACES and face not in PIP_FACES):
        return url_for("static", filename=f"faces/poker-{face}.svg")
    return url_for("static", filename=f"faces/pip-{face}.svg")


def die_img(value: int | str, kind: str = "pip", size: str = "") -> Markup:
    """An <img> of one die face; its alt text is the face, so a screen reader says "5" or "K"."""
    face = face_of(value, kind)
    cls = f"die {size}".strip()
    return Markup('<img class="{}" src="{}" alt="{}" width="64" height="64">').format(cls, face_src(face, kind), face)


def dice_imgs(values: list[Any] | tuple[Any, ...], kind: str = "pip", size: str = "sm") -> Markup:
    if not values:
        return Markup("")
    inner = Markup("").join(die_img(v, kind, size) for v in values)
    label = " ".join(face_of(v, kind) for v in values)
    return Markup('<span class="dice" role="img" aria-label="{}">{}</span>').format(label, inner)


ACTION_WORDS = {
    "throw": "throws",
    "stand": "stands",
    "enter": "enters",
    "strike": "strikes",
    "place": "places",
    "roll_off": "rolls off",
    "choose_starter": "starts",
}


def describe_action(action: JSON, page: GamePage, hand: str = "") -> str:
    """One line saying what an action did, for the history and for "undone: ..." messages. ``hand``: the hand a
    player stood on (the stand itself carries no dice), named so "Last: Anna stood" says on what."""
    kind = str(action.get("type", ""))
    player = page.player(action.get("player"))
    who = player.name if player else "?"
    dice = action.get("dice") or []
    faces = " ".join(face_of(v, page.dice_kind) for v in dice)
    if kind == "throw":
        return tr("%(who)s threw %(dice)s", who=who, dice=faces)
    if kind == "stand":
        return tr("%(who)s stood: %(hand)s", who=who, hand=hand) if hand else tr("%(who)s stood", who=who)
    if kind == "enter":
        return tr("%(who)s entered %(row)s", who=who, row=row_name(page, str(action.get("row", ""))))
    if kind == "strike":
        return tr("%(who)s struck %(row)s", who=who, row=row_name(page, str(action.get("row", ""))))
    if kind == "place":
        die = action.get("value") or action.get("die")
        return tr("%(who)s placed a die on row %(row)s", who=who, row=int(action.get("row", 0)) + 1) + (
            f" ({face_of(die, page.dice_kind)})" if isinstance(die, int) and action.get("value") else ""
        )
    if kind == "roll_off":
        return tr("%(who)s threw %(dice)s to decide who starts", who=who, dice=faces)
    if kind == "choose_starter":
        return tr("%(who)s started by choice", who=who)
    # bluff and the blind house rule: a sentence each, as a person at the table would say it (in the past, as
    # every line of the history)
    if kind == "announce":
        return tr("%(who)s announced %(dice)s", who=who, dice=faces)
    if kind == "believe":
        return tr("%(who)s believed the claim", who=who)
    if kind == "doubt":
        return tr("%(who)s lifted the cup", who=who)
    if kind == "reveal":
        return tr("Under the cup: %(dice)s", dice=faces)
    if kind == "rethrow":
        n = int(action.get("count") or 0)
        return str(ngettext("%(who)s rethrew %(num)s die", "%(who)s rethrew %(num)s dice", n, who=who))
    if kind == "take":
        return tr("%(who)s took a strike rather than lift the cup", who=who)
    if kind == "blind":
        return tr("%(who)s stood on an unseen throw", who=who)
    return f"{who}: {kind}"


def row_name(page: GamePage, row_id: str) -> str:
    from web.pages.model import pick

    for row in page.view.get("rows") or []:
        if isinstance(row, dict) and row.get("id") == row_id:
            return pick(str(row.get("label_de", row_id)), str(row.get("label_en", row_id)))
    return row_id


@dataclass(frozen=True)
class HistoryLine:
    """One action of the history: its number, who, what it did in words, and the photo it was read from (``photo``
    its page, ``image`` the bare JPEG)."""

    n: int
    player: int | None
    colour: str
    text: str
    photo: str | None
    at: str
    image: str | None = None


def stood_on(page: GamePage) -> Any:
    """A function naming the hand of a player's dice in this game (its settings: ace as joker, poker faces), or
    naming nothing where the rules cannot say."""
    from companion.core import rules_for
    from companion.errors import BecherError
    from web.pages.model import hand_label

    try:
        rules = rules_for(page.game)
        setup = rules.make_setup([p.name for p in page.players], page.settings)
    except BecherError:
        return lambda dice: ""

    def name(dice: list[int]) -> str:
        try:
            return hand_label(rules.hand(dice, setup))
        except (BecherError, ValueError, TypeError, KeyError):
            return ""

    return name


def history_lines(rows: list[JSON], page: GamePage) -> list[HistoryLine]:
    out = []
    thrown: dict[object, list[int]] = {}  # each player's last dice thrown: the hand a stand stands on
    hand_of = stood_on(page) if any((r.get("action") or {}).get("type") == "stand" for r in rows) else None
    for r in rows:
        action = r.get("action") or {}
        seat = action.get("player")
        player = page.player(seat)
        photo = r.get("photo")
        dice = action.get("dice")
        if action.get("type") == "throw" and isinstance(dice, list) and len(dice) == 5:
            thrown[seat] = dice
        hand = hand_of(thrown[seat]) if hand_of and action.get("type") == "stand" and seat in thrown else ""
        out.append(
            HistoryLine(
                n=int(r.get("n", 0)),
                player=seat,
                colour=player.colour if player else "",
                text=describe_action(action, page, hand),
                photo=photo_url(photo),
                at=str(r.get("at") or ""),
                image=f"/api/photos/{photo}" if photo else None,
            )
        )
    return out


def photo_url(photo: object) -> str | None:
    """The page of a photo (the picture with its reading drawn, and what was entered from it)."""
    return f"/photo/{photo}" if photo else None


def action_photos(game: JSON) -> list[str | None]:
    """The photo of each action, by its index in the log, from the Game JSON's ``photos`` (action number to photo
    id): what ``score_photos`` needs, without reading the log itself."""
    shown = game.get("photos")
    if not isinstance(shown, dict):
        shown = {}
    count = int((game.get("state") or {}).get("actions") or 0)
    out: list[str | None] = [None] * count
    for number, photo in shown.items():
        if str(number).isascii() and str(number).isdigit() and 0 < int(number) <= count:
            out[int(number) - 1] = str(photo)
    return out


def score_photos(photos: list[str | None], page: GamePage) -> dict[str, str]:
    """The photo behind each score: cell key -> photo URL, for the cells whose dice came from a photo.

    The game's view names, for every hand, sheet field, placed die and revealed cup, the index in the action log of
    the action whose dice it shows (``action``); the store keeps the photo with each action, so the link is that
    log row's photo. A cell tapped in by hand (no photo) gets no link.
    Keys: ``h{round}.{stage}.{seat}`` (round-based hands, rounds counted from 0 in the view's order, the current
    round last), ``e{entry}`` (sheet), ``p{order}`` (board, the current game), ``r{n}`` (bluff reveals),
    ``now`` (the throw on the table now). ``photos``: the photo of each action in log order (``action_photos``)."""
    out: dict[str, str] = {}

    def put(key: str, cell: object) -> None:
        index = cell.get("action") if isinstance(cell, dict) else None
        if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(photos):
            url = photo_url(photos[index])
            if url:
                out[key] = url

    view = page.view
    if page.game == "sheet":
        for sheet in view.get("players") or []:
            for fields in (sheet.get("rows") or {}).values():
                for cell in fields:
                    if cell.get("entry") is not None:
                        put(f"e{cell['entry']}", cell)
        put("now", view.get("turn"))
    elif page.game == "board":
        for pl in view.get("placements") or []:
            put(f"p{pl.get('order')}", pl)
        put("now", view.get("throw"))
    elif view.get("mode") == "bluff":
        shown = [h for h in view.get("history") or [] if h.get("revealed")]
        for n, h in enumerate(shown):
            put(f"r{n}", h["revealed"])
    else:
        rounds = [r.get("stages") or [] for r in view.get("history") or []]
        if view.get("stage") and not page.outcome:
            rounds.append([*(view.get("earlier_stages") or []), view["stage"]])
        for ri, stages in enumerate(rounds):
            for si, stage in enumerate(stages):
                for hand in stage.get("hands") or []:
                    put(f"h{ri}.{si}.{hand.get('player')}", hand)
        put("now", view.get("turn"))
    return out


def photo_link(url: str | None, name: str = "") -> Markup:
    """A small camera link to the photo behind a score (nothing when the score was tapped in)."""
    if not url:
        return Markup("")
    label = tr("Photo of %(name)s's throw", name=name) if name else tr("Photo of this throw")
    return Markup(
        '<a class="photo-link" href="{0}" target="_blank" title="{1}"><img class="icon" src="{2}" alt="{1}"></a>'
    ).format(url, label, url_for("static", filename="icons/camera.svg"))


def camera_throw(page: GamePage) -> Markup:
    """A hidden mark in the live part naming the throw a camera proposal would be sent as: the game's own choice
    that takes dice, of the player to move (nothing when no throw may be made now). The script never builds it."""
    choices = [c for c in page.choices if "dice" in c.needs]
    choice = next((c for c in choices if c.player == page.to_move), choices[0] if choices else None)
    if choice is None:
        return Markup("")
    return Markup(
        '<span hidden class="camera-throw" data-action="{}" data-needs="{}" data-count="{}" data-player="{}"></span>'
    ).format(json.dumps(choice.action), " ".join(choice.needs), choice.dice_count, choice.player)


def camera_words() -> dict[str, Any]:
    """What camera.js says: the camera's states and quality issues (by their stable codes, docs/camera.md) in plain
    words of the page's language, and the calibration and proposal messages."""
    return {
        "none": tr("No camera is running."),
        "error": tr("The camera does not work: %(what)s"),
        "profile": tr("profile %(name)s"),
        "no_profile": tr("not calibrated"),
        "states": {
            "idle": tr("watching"),
            "moving": tr("dice moving"),
            "settling": tr("dice settling"),
            "blocked": tr("something in the way"),
            "waiting": tr("waiting"),
        },
        "issues": {
            "dark": tr("Too dark to read the dice: turn on a light or move the camera."),
            "bright": tr("The picture is washed out: less light, or turn the camera away from the lamp."),
            "blurred": tr("The picture is blurred: focus the camera or keep it still."),
            "cut": tr("A die is cut by the edge of the picture: move the camera or the dice."),
            "mat_covered": tr("The mat is half covered: clear its markers."),
            "mat_moved": tr("The mat has moved: check the view and save the profile again."),
            "blocked": tr("A hand or the cup is in view; waiting until it has gone."),
            "view_changed": tr("More than the dice changed in view: check them."),
            "outside": tr("Dice off the mat are ignored."),
            "count": tr("Not all dice are in view yet; waiting for the rest."),
            "extra": tr("More dice in view than the game has in play: check them."),
            "reader": tr("The dice reader failed; enter the dice by hand."),
        },
        "no_mat": tr("No mat found: put the printed mat under the camera with at least two of its markers in view."),
        "no_frame": tr("The camera has sent no picture yet."),
        "covered": tr("The mat is half covered: clear its markers."),
        "markers": tr("%(seen)s of %(expected)s markers, %(paper)s, error %(error)s mm."),
        "saved": tr("Profile saved: %(name)s"),
        "on_mat": tr("mat %(paper)s"),
        "without_mat": tr("no mat"),
        "in_use": tr("in use"),
        "use": tr("Use"),
        "delete": tr("Delete"),
        "feeding": tr("This device is now the table camera."),
        "throw_n": tr("Throw %(n)s"),
        "uncertain_n": tr("%(n)s uncertain: tap a die to correct it"),
        "certain": tr("every die certain"),
        "proposed": tr("The camera read %(dice)s."),
        "confirmed": tr("Throw entered from the camera."),
        "other_game": tr("the camera follows another game"),
    }


MAX_FOUND = 30  # dice in one photo that the scripts have words for (more are said as this many)


def client_words() -> Markup:
    """The words the scripts show (toasts, announcements), in the page's language, as JSON for a <script>."""
    words = {
        "undone": tr("Undone: %(what)s"),
        "nothing_to_undo": tr("Nothing to undo."),
        "saved": tr("Saved."),
        "stale": tr("Someone else was quicker; here is the current game."),
        "offline": tr("Connection lost; trying again..."),
        "online": tr("Live"),
        "reading": tr("Reading the dice..."),
        "read_none": tr("No dice found; enter them by hand."),
        # plural forms by count, said on the server where each language's plural rules are known
        "need_dice": {
            n: str(ngettext("Enter %(num)s die first.", "Enter %(num)s dice first.", n)) for n in range(1, 6)
        },
        "tap_die": tr("Tap a die to correct it."),
        "more_dice": {
            n: str(
                ngettext(
                    "%(num)s die found; the %(n)s surest are entered.",
                    "%(num)s dice found; the %(n)s surest are entered.",
                    n,
                    n="%(n)s",  # the places to fill, put in by the script
                )
            )
            for n in range(2, MAX_FOUND + 1)
        },
        # what the server assumed to propose the throw's count of dice (vision/count.py)
        "left_out": {
            n: str(
                ngettext(
                    "%(num)s extra die in the photo was left out (dotted box).",
                    "%(num)s extra dice in the photo were left out (dotted boxes).",
                    n,
                )
            )
            for n in range(1, MAX_FOUND + 1)
        },
        "not_found": {
            n: str(ngettext("%(num)s die was not found: tap it in.", "%(num)s dice were not found: tap them in.", n))
            for n in range(1, 6)
        },
        "set_aside": tr("No room for %(dice)s: set aside until you release a kept die or clear."),
        # a dotted box tapped (phone.js takeIn): it took the place of the least sure die, or filled an empty one
        "swapped": tr(
            "Die %(n)s is now %(face)s from the dotted box; the %(old)s it replaces is marked not a die "
            "(tap it to take it back)."
        ),
        "taken_in": tr("Die %(n)s: %(face)s from the dotted box."),
        "marked_not_die": tr("Marked not a die: tap the right face for die %(n)s, or tap a dotted box."),
        "not_a_die_state": tr("not a die"),
        "left_out_state": tr("left out, tap to take it in"),
        "dice_saved": tr("These dice are saved as “%(name)s”."),
        # a name this device has saved already (409 exists): the form's button asks to replace them (issue 60)
        "replace_dice": tr("Replace them"),
        # "Update 'NAME' with tonight's throws?" answered yes (table.js): the saved set learned this game's dice
        "dice_set_updated": tr("“%(name)s” now knows tonight's throws."),
        # "Only teach the reader these dice" (phone.js teachDice): the photo taught, no throw sent
        "taught": {
            n: str(ngettext("The reader learned %(num)s die.", "The reader learned %(num)s dice.", n))
            for n in range(1, MAX_FOUND + 1)
        },
        "teach_none": tr("No die of the photo is entered: check the dice first, then teach them."),
        "name_needed": tr("Give the dice a name."),
        "dice_set_option": tr("%(name)s (seen: %(n)s)"),
        "dice_set_forgotten": tr("These dice are forgotten."),
        # the table speaks (speak.js): a throw proposed from a photo, and the button's state said
        "speak_proposed": tr("Proposed: %(dice)s."),
        "speak_on": tr("The table reads the game aloud."),
        "speak_off": tr("The table is silent."),
        # a name pasted over the limit (start.js): said next to its field, the name quoted whole or cut at a word
        "name_too_long": tr("A player's name may have at most %(n)s characters; shorten %(name)s."),
        "all_entered": tr("All dice are entered: tap one of them to change it."),
        "uncertain_n": {
            n: str(ngettext("%(num)s die read is uncertain.", "%(num)s dice read are uncertain.", n))
            for n in range(1, 6)
        },
        "whole_photo": tr("Show the whole photo"),
        "zoom_dice": tr("Zoom in on the dice"),
        "new_score": tr("New score: %(what)s"),
        "turn_of": tr("%(who)s's turn"),
        "hold": tr("hold"),
        "held": tr("held"),
        "die_n": tr("Die %(n)s"),
        "empty": tr("empty"),
        "uncertain": tr("uncertain"),
        "camera_denied": tr("The camera could not be started; use the photo button."),
        "error": tr("Something went wrong; try again."),
        "action": {k: tr(v) for k, v in ACTION_WORDS.items()},
        "camera": camera_words(),
    }
    text = json.dumps(words, ensure_ascii=False).replace("</", "<\\/")
    return Markup(text)


CHOICE_WORDS: dict[str, Any] = {
    "pip": lazy_gettext("pip dice (1-6)"),
    "poker": lazy_gettext("poker dice (9 10 J Q K A)"),
    "extra": lazy_gettext("one more round"),
    "share": lazy_gettext("share the place"),
    "strikes": lazy_gettext("strikes"),
    "points": lazy_gettext("points"),
    "bluff": lazy_gettext("bluff"),
    "all_five": lazy_gettext("all five dice thrown at once"),
    "first_throw": lazy_gettext("first throw only"),
    "third": lazy_gettext("third die placed first wins"),
    "first": lazy_gettext("first die placed first wins"),
}
STATUS_WORDS: dict[str, Any] = {
    "playing": lazy_gettext("playing"),
    "over": lazy_gettext("over"),
    "finished": lazy_gettext("closed"),
}


def choice_word(value: str) -> str:
    return str(CHOICE_WORDS.get(value, value.replace("_", " ")))


def status_word(value: str) -> str:
    return str(STATUS_WORDS.get(value, value))


def cell_hand(page: GamePage, hand: JSON, rnd: JSON | None, final: bool) -> Markup:
    """One hand in the round block: its name, its points where the game scores hands, and what the round gave."""
    from web.pages.model import hand_label

    label = hand_label(hand)
    parts = [Markup('<span class="hand-name">{}</span>').format(label)]
    points = hand.get("points")
    if points is not None and page.game != "pokerdice":
        parts.append(Markup('<strong class="pts">{}</strong>').format(points))
    if rnd is not None and final:
        seat = hand.get("player")
        if rnd.get("loser") == seat:
            parts.append(Markup(' <span class="strikes" title="{0}" aria-label="{0}">✕</span>').format(tr("strike")))
        if page.game == "pokerdice" and seat in (rnd.get("best") or []) and len(rnd.get("best") or []) == 1:
            parts.append(Markup(' <span title="{0}" aria-label="{0}">★</span>').format(tr("round won")))
    dice = hand.get("dice") or []
    title = " ".join(face_of(v, page.dice_kind) for v in dice)
    if dice:
        # the dice themselves, small: "Two pair" against "Two pair" is decided by them, and the table can check
        imgs = Markup("").join(
            Markup('<img class="die xs" src="{}" alt="" width="16" height="16">').format(
                face_src(face_of(v, page.dice_kind), page.dice_kind)
            )
            for v in dice
        )
        parts.append(Markup('<span class="cell-dice" role="img" aria-label="{}">{}</span>').format(title, imgs))
    return Markup('<span class="cell" title="{}">{}</span>').format(title, Markup("").join(parts))


def sheet_cell(cell: JSON, page: GamePage) -> Markup:
    """One field of the sheet as the rule text writes it: a cross, and where the entry changed the reserve, the
    reserve's new level (earlier levels struck through); a zero; points (doubled marked); or a strike, drawn
    apart when it was dice entered that did not make the combination rather than a chosen strike."""
    result = cell.get("result")
    if result is None:
        return Markup("")
    dice = " ".join(face_of(v, page.dice_kind) for v in cell.get("dice") or [])
    if result in ("closed", "closed_with_reserve"):
        paid = result == "closed_with_reserve"
        text = Markup('<span class="{}" aria-label="{}">{}</span>').format(
            "cell-paid" if paid else "", tr("closed with the reserve") if paid else tr("closed"), "⊗" if paid else "✕"
        )
        level = cell.get("reserve")
        if level is not None:
            struck = bool(cell.get("reserve_struck"))
            label = tr("reserve was %(n)s", n=level) if struck else tr("reserve now %(n)s", n=level)
            text += Markup(' <span class="cell-reserve{}" aria-label="{}">{}</span>').format(
                " old" if struck else "", label, level
            )
    elif result == "zero":
        text = Markup('<span class="cell-zero" aria-label="{}">0</span>').format(tr("zero, minus 200"))
    elif result == "struck" and cell.get("not_made"):
        text = Markup('<span class="cell-not-made" aria-label="{}">⊘</span>').format(
            tr("not made: entered without the combination, a strike")
        )
    elif result == "struck":
        text = Markup('<span class="cell-struck" aria-label="{}">—</span>').format(tr("struck by choice"))
    else:
        cls = "cell-double" if cell.get("doubled") else ""
        text = Markup('<span class="{}">{}</span>').format(cls, cell.get("value", ""))
    return Markup('<span title="{}">{}</span>').format(dice, text)


def bonus_mark(bonus: JSON) -> Markup:
    if bonus.get("won"):
        return Markup('<span class="best" title="{0}">★{1}</span>').format(tr("bonus won"), bonus.get("value") or "")
    if bonus.get("struck"):
        return Markup('<span class="bonus-struck" title="{0}" aria-label="{0}">★</span>').format(
            tr("bonus out of reach")
        )
    return Markup("")


def _names(names: list[str]) -> str:
    """Names as a list in words: "Anna", "Anna and Ben", "Anna, Ben and Cleo"."""
    if len(names) < 2:
        return "".join(names)
    return tr("%(names)s and %(last)s", names=", ".join(names[:-1]), last=names[-1])


def outcome_reason(page: GamePage) -> str:
    """Why the game ended, said in the reader's language from the outcome's structured data (winners, scores,
    strikes, rounds) and the game, never from the engine's English sentence."""
    if not page.outcome:
        return ""
    view, settings = page.view, page.settings
    winners = [w.name for w in page.winners]
    if not winners:
        return tr("The game is over.")
    first = page.winners[0]
    score = first.score
    if page.game == "sheet":
        if len(winners) == 1:
            return tr(
                "Every sheet is full; %(name)s wins with the highest total, %(score)s.", name=first.name, score=score
            )
        return tr(
            "Every sheet is full; %(names)s share the highest total, %(score)s.", names=_names(winners), score=score
        )
    if page.game == "board":
        points = list(view.get("points") or [0, 0])
        seat = first.seat
        games = len(view.get("games") or [])
        facts = {
            "name": first.name,
            "target": view.get("target", settings.get("points_to_win")),
            "won": points[seat] if seat < len(points) else "",
            "lost": points[1 - seat] if 0 <= 1 - seat < len(points) else "",
            "other": page.players[1 - seat].name if 0 <= 1 - seat < len(page.players) else "",
        }
        # whose points are which, in words: "reached 3 points: 5:1" read as a riddle (issue 61)
        if games == 1:
            return tr("Points: %(name)s %(won)s, %(other)s %(lost)s (%(target)s to win), after one game.", **facts)
        return tr(
            "Points: %(name)s %(won)s, %(other)s %(lost)s (%(target)s to win), after %(games)s games.",
            games=games,
            **facts,
        )
    if page.game == "pokerdice":
        wins = int(settings.get("wins") or 0)
        return str(
            ngettext(
                "%(name)s is the first to %(num)s round win.",
                "%(name)s is the first to %(num)s round wins.",
                wins,
                name=first.name,
            )
        )
    strikes_game = page.game == "classic" and settings.get("mode", "strikes") in ("strikes", "bluff")
    if strikes_game:
        limit = settings.get("strike_limit", view.get("strike_limit"))
        out = list(view.get("out") or [])
        if len(out) == len(page.players) - 1:
            return str(
                ngettext(
                    "%(name)s is the last player left; the others have %(num)s strike.",
                    "%(name)s is the last player left; the others have %(num)s strikes.",
                    int(limit or 0),
                    name=first.name,
                )
            )
        loser = page.player(out[-1]) if out else None
        return str(
            ngettext(
                "%(loser)s has %(num)s strike and loses; the fewest strikes win.",
                "%(loser)s has %(num)s strikes and loses; the fewest strikes win.",
                int(limit or 0),
                loser=loser.name if loser else "?",
            )
        )
    rounds = list(view.get("history") or [])
    # a long game's answer carries its last rounds only; the rounds left out still count (web/store.py, trimmed)
    left_out = view.get("history_left_out")
    if isinstance(left_out, dict):
        rounds += [{"kind": "extra"}] * int(left_out.get("extra") or 0)
        rounds += [{}] * (int(left_out.get("rounds") or 0) - int(left_out.get("extra") or 0))
    if page.game == "bone":
        extra = sum(1 for r in rounds if r.get("kind") == "extra")
        if len(winners) > 1:
            return tr("Equal highest total of %(score)s points: the place is shared.", score=score)
        if extra == 1:
            return tr("%(name)s has the best hand of an extra round for equal totals.", name=first.name)
        if extra:
            return tr("%(name)s has the best hand of %(n)s extra rounds for equal totals.", name=first.name, n=extra)
    if len(rounds) == 1:
        if len(winners) > 1:
            return tr("Highest total after one round: %(score)s points (shared).", score=score)
        return tr("Highest total after one round: %(score)s points.", score=score)
    if len(winners) > 1:
        return tr("Highest total after %(n)s rounds: %(score)s points (shared).", n=len(rounds), score=score)
    return tr("Highest total after %(n)s rounds: %(score)s points.", n=len(rounds), score=score)


def score_text(page: GamePage, standing: JSON) -> str:
    if page.game == "classic" and page.settings.get("mode", "strikes") != "points":
        strikes = standing.get("strikes")
        if strikes is None:
            view_strikes = page.view.get("strikes") or []
            seat = int(standing.get("player", 0))
            strikes = view_strikes[seat] if seat < len(view_strikes) else 0
        return "✕" * int(strikes) if strikes else "–"
    score = standing.get("score")
    if score is None:
        return ""
    if page.game == "pokerdice":
        return f"{score} ★"
    return str(score)


def standing_note(page: GamePage, standing: JSON) -> str:
    seat = int(standing.get("player", 0))
    player = page.player(seat)
    if player is not None and player.out:
        return tr("out")
    if page.game == "sheet" and standing.get("reserve"):
        return tr("reserve %(n)s", n=standing["reserve"])
    if page.game == "board" and "games_won" in standing:
        return tr("games won: %(n)s", n=standing["games_won"])
    return ""


def player_name(seat: int, page: GamePage) -> str:
    player = page.player(seat)
    return player.name if player else str(seat)


def install_filters(app: Flask) -> None:
    from web.pages.model import hand_label, pick

    app.jinja_env.globals.update(
        cell_hand=cell_hand,
        sheet_cell=sheet_cell,
        bonus_mark=bonus_mark,
        outcome_reason=outcome_reason,
        score_text=score_text,
        standing_note=standing_note,
        hand_label=hand_label,
        pick=pick,
    )
    app.jinja_env.filters["player_name"] = player_name
    app.jinja_env.globals.update(die_img=die_img, dice_imgs=dice_imgs, face_src=face_src, face_of=face_of)
    app.jinja_env.globals.update(choice_word=choice_word, status_word=status_word)
    app.jinja_env.globals["client_words"] = client_words
    app.jinja_env.globals["photo_link"] = photo_link
    app.jinja_env.globals["camera_throw"] = camera_throw
