"""The table speaks, if asked (issue 61): the words the tablet's browser says with its own speech synthesis.

Nothing is spoken on the server and nothing leaves the table: the page carries the sentence of each change of the game
(``data-speak`` on the table's live part: what was done, the hand on the table, whose turn it is), and the table's
script asks ``/table/<id>/hand`` for the name of a proposed throw's hand, in the page's language.
"""

from __future__ import annotations

from flask import Blueprint, Flask, abort, jsonify, request
from werkzeug.wrappers import Response

from companion.dice import parse_dice
from companion.errors import BecherError
from web.pages import data
from web.pages.i18n import tr
from web.pages.model import GamePage, build_game_page, hand_label
from web.pages.views import HistoryLine

bp = Blueprint("speech", __name__)


def spoken(page: GamePage, recent: tuple[HistoryLine, ...] | list[HistoryLine]) -> str:
    """What the table says of the game now: the last action, the hand on the table, whose turn it is (or who won)."""
    parts = [recent[0].text] if recent else []
    turn = page.view.get("turn") if isinstance(page.view.get("turn"), dict) else None
    hand = hand_label(turn.get("hand")) if turn and turn.get("dice") else ""
    if hand and not (parts and hand in parts[0]):
        parts.append(hand)
    if page.outcome:
        winners = [w.name for w in page.winners]
        if len(winners) == 1:
            parts.append(tr("%(name)s wins!", name=winners[0]))
        elif winners:
            parts.append(tr("Shared win: %(names)s", names=", ".join(winners)))
    elif (mover := page.player(page.to_move)) is not None:
        parts.append(tr("%(name)s's turn", name=mover.name))
    return ". ".join(p.rstrip(".!") for p in parts if p) + ("." if parts else "")


@bp.get("/table/<game_id>/hand")
def hand(game_id: str) -> Response:
    """The name of the hand that proposed dice make in this game (its settings), in the page's language; the table
    says it with the dice of a photo before the throw is confirmed."""
    loaded = data.load(game_id)
    page = build_game_page(loaded.game)
    tokens = [t for t in request.args.get("dice", "").replace(" ", ",").split(",") if t]
    from companion.core import rules_for

    try:
        rules = rules_for(page.game)
        setup = rules.make_setup([p.name for p in page.players], page.settings)
        dice = parse_dice(tokens, setup.dice_kind)
        if len(dice) != 5:
            return jsonify(hand="")
        return jsonify(hand=hand_label(rules.hand(dice, setup)))
    except BecherError:
        abort(400)


def install(app: Flask) -> None:
    app.jinja_env.globals["spoken"] = spoken
    app.register_blueprint(bp)


__all__ = ["hand", "install", "spoken"]
