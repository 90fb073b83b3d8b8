"""The pages (start, table, phone): blueprints registered on the app by :func:`register`.

Pages render the score block on the server (Jinja) from the same Game JSON the API gives; the scripts post to
the JSON API and, on each live event, fetch the freshly rendered part of the page. So every word and every
number a page shows comes from one place, in the reader's language.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Flask, render_template

from web.pages import i18n
from web.pages.data import NotMember


@dataclass(frozen=True)
class JoinPage:
    """Template context of ``join.html``: the game this device tried to open without having joined it."""

    game_id: str


def register(app: Flask) -> None:
    """Install languages and register the ``start``, ``table``, ``phone`` and camera page blueprints on ``app``."""
    from web.pages.camera import bp as camera_bp
    from web.pages.phone import bp as phone_bp
    from web.pages.phone import install as install_phone
    from web.pages.photo import bp as photo_bp
    from web.pages.records import bp as records_bp
    from web.pages.speech import install as install_speech
    from web.pages.start import bp as start_bp
    from web.pages.table import bp as table_bp
    from web.pages.views import install_filters

    i18n.install(app)
    install_filters(app)
    install_phone(app)
    app.register_blueprint(start_bp)
    app.register_blueprint(table_bp)
    app.register_blueprint(phone_bp)
    app.register_blueprint(camera_bp)
    app.register_blueprint(photo_bp)
    app.register_blueprint(records_bp)
    install_speech(app)

    @app.errorhandler(NotMember)
    def _not_member(exc: NotMember) -> tuple[str, int]:
        return render_template("join.html", ctx=JoinPage(exc.game_id)), 403
