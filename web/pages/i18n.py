"""Languages: Flask-Babel set up with a locale chosen by the switch (a cookie), then by the browser.

The table is shared by people who read different languages, so the choice is per device (a cookie), never
per game. German and English are complete; the other six fall back to English where a phrase is missing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from flask import Blueprint, Flask, redirect, request
from flask_babel import Babel, get_locale, gettext
from werkzeug.wrappers import Response

__all__ = ["COOKIE", "LANGUAGES", "Language", "current_language", "install", "select_locale"]

COOKIE = "becher_lang"
THEME_COOKIE = "becher_theme"
THEMES = ("auto", "light", "dark", "contrast")
TRANSLATIONS = Path(__file__).resolve().parent.parent / "translations"


@dataclass(frozen=True)
class Language:
    """One language of the switch: its code and its own name (a person looks for their language in itself)."""

    code: str
    name: str


LANGUAGES: tuple[Language, ...] = (
    Language("de", "Deutsch"),
    Language("en", "English"),
    Language("fr", "Français"),
    Language("es", "Español"),
    Language("it", "Italiano"),
    Language("nl", "Nederlands"),
    Language("pl", "Polski"),
    Language("pt", "Português"),
)
CODES = tuple(lang.code for lang in LANGUAGES)

bp = Blueprint("i18n", __name__)


def select_locale() -> str:
    """The switch's cookie if it names a known language, else the browser's best match, else English."""
    chosen = request.cookies.get(COOKIE, "")
    if chosen in CODES:
        return chosen
    return request.accept_languages.best_match(CODES) or "en"


def current_language() -> str:
    return str(get_locale() or "en")


def _back() -> str:
    """Where to return after a switch: the page it came from, but only on this site (no open redirect)."""
    target = request.form.get("next") or request.referrer or "/"
    parts = urlsplit(target)
    if parts.netloc and parts.netloc != request.host:
        return "/"
    path = parts.path or "/"
    if not path.startswith("/") or path.startswith("//"):
        return "/"
    return path + (f"?{parts.query}" if parts.query else "")


@bp.post("/lang")
def set_language() -> Response:
    """The language switch: remembers the choice on this device for a year."""
    code = request.form.get("lang", "")
    response = redirect(_back(), code=303)
    if code in CODES:
        response.set_cookie(COOKIE, code, max_age=365 * 24 * 3600, samesite="Lax")
    return response


@bp.post("/theme")
def set_theme() -> Response:
    """Light, dark, high contrast or the device's own setting, remembered on this device."""
    theme = request.form.get("theme", "")
    response = redirect(_back(), code=303)
    if theme in THEMES:
        response.set_cookie(THEME_COOKIE, theme, max_age=365 * 24 * 3600, samesite="Lax")
    return response


def current_theme() -> str:
    theme = request.cookies.get(THEME_COOKIE, "auto")
    return theme if theme in THEMES else "auto"


def install(app: Flask) -> None:
    """Set up Flask-Babel on ``app`` (once) with this package's catalogs and the locale selector."""
    app.config.setdefault("BABEL_DEFAULT_LOCALE", "en")
    app.config["BABEL_TRANSLATION_DIRECTORIES"] = str(TRANSLATIONS)
    if "babel" not in app.extensions:
        Babel(app, locale_selector=select_locale)
    app.register_blueprint(bp)

    @app.context_processor
    def _language_context() -> dict[str, object]:
        return {"languages": LANGUAGES, "lang": current_language(), "theme": current_theme(), "themes": THEMES}


def tr(text: str, **values: object) -> str:
    """``gettext`` typed as str (the catalogs' extraction knows ``tr`` as a keyword)."""
    return str(gettext(text, **values))
