"""The pages through Flask's test client: every page renders for every game and language, with its typed context,
and the basics of accessibility (lang attribute, a label for every control, alt on every image)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from flask import Flask, template_rendered
from flask.testing import FlaskClient
from markupsafe import escape

from companion.core import all_rules, rules_for
from web.app import create_app
from web.pages.i18n import CODES, COOKIE
from web.pages.model import build_choices

WRITE = {"X-Becher": "1"}
GAMES = [r.id for r in all_rules()]
PIP_THROWS = [[2, 2, 5, 6, 1], [4, 4, 4, 3, 1], [6, 5, 3, 3, 2]]


@pytest.fixture(scope="module")
def pages_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    db = tmp_path_factory.mktemp("pages") / "becher.sqlite3"
    app = create_app({"TESTING": True, "DATABASE": str(db)})
    yield app
    app.extensions["becher.shutdown"]()
    app.extensions["becher.store"].close()


@pytest.fixture(scope="module")
def owner(pages_app: Flask) -> FlaskClient:
    return pages_app.test_client()


def players_for(game: str) -> list[str]:
    rules = rules_for(game)
    return ["Anna", "Ben", "Cleo"][: max(rules.min_players, min(3, rules.max_players))]


def play_some(client: FlaskClient, game_id: str, steps: int) -> dict[str, Any]:
    """Play ``steps`` actions chosen from the game's own options (dice where a choice needs them)."""
    game: dict[str, Any] = client.get(f"/api/games/{game_id}").json["game"]
    for step in range(steps):
        state = game["state"]
        rules = rules_for(state["game"])
        choices = build_choices(rules, state["options"])
        if not choices:
            break
        choice = next((c for c in choices if "dice" not in c.needs), choices[0]) if step % 2 else choices[0]
        action = dict(choice.action)
        if "dice" in choice.needs:
            action["dice"] = PIP_THROWS[step % len(PIP_THROWS)][: choice.dice_count]
        if "held" in choice.needs:
            action["held"] = []
        r = client.post(
            f"/api/games/{game_id}/actions", json={"seen": state["actions"], "action": action}, headers=WRITE
        )
        assert r.status_code == 201, (action, r.json)
        game = r.json["game"]
    return game


@pytest.fixture(scope="module")
def games(owner: FlaskClient) -> dict[str, str]:
    """One game of each kind, a few actions in."""
    out = {}
    for game in GAMES:
        r = owner.post("/api/games", json={"game": game, "players": players_for(game)}, headers=WRITE)
        assert r.status_code == 201, r.json
        game_id = r.json["game"]["id"]
        play_some(owner, game_id, 3)
        out[game] = game_id
    return out


class Page(HTMLParser):
    """Collects what the accessibility checks need from one HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.html_lang: str | None = None
        self.controls: list[dict[str, str | None]] = []
        self.label_for: set[str] = set()
        self.images: list[dict[str, str | None]] = []
        self.ids: list[str] = []
        self._label_depth = 0
        self.buttons: list[dict[str, Any]] = []
        self._button: dict[str, Any] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.append(str(a["id"]))
        if tag == "html":
            self.html_lang = a.get("lang")
        elif tag == "label":
            self._label_depth += 1
            if a.get("for"):
                self.label_for.add(str(a["for"]))
        elif tag in ("input", "select", "textarea") and a.get("type") not in ("hidden", "submit"):
            self.controls.append({**a, "_wrapped": "1" if self._label_depth else None})
        elif tag == "img":
            self.images.append(a)
        elif tag == "button":
            self._button = {**a, "_text": ""}
        if self._button is not None and tag == "img" and a.get("alt"):
            self._button["_text"] += str(a["alt"])

    def handle_endtag(self, tag: str) -> None:
        if tag == "label":
            self._label_depth -= 1
        elif tag == "button" and self._button is not None:
            self.buttons.append(self._button)
            self._button = None

    def handle_data(self, data: str) -> None:
        if self._button is not None:
            self._button["_text"] += data


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    return page


def check_accessible(html: str, lang: str) -> None:
    page = parse(html)
    assert page.html_lang == lang
    for control in page.controls:
        named = control.get("aria-label") or control.get("_wrapped") or control.get("id") in page.label_for
        assert named, f"control without a label: {control}"
    for img in page.images:
        assert img.get("alt") is not None, f"image without alt: {img}"
    for button in page.buttons:
        assert button["_text"].strip() or button.get("aria-label"), f"button without a name: {button}"
    duplicates = {i for i in page.ids if page.ids.count(i) > 1}
    assert not duplicates, f"duplicate ids: {duplicates}"


@pytest.mark.parametrize("lang", CODES)
def test_start_page_renders_every_game_in_every_language(owner: FlaskClient, lang: str) -> None:
    r = owner.get("/", headers={"Accept-Language": lang})
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    check_accessible(html, lang)
    for rules in all_rules():
        assert f'value="{rules.id}"' in html
        for setting in rules.settings:
            assert f'id="set-{rules.id}-{setting.name}"' in html


def test_start_page_explains_each_setting_in_german(owner: FlaskClient) -> None:
    html = owner.get("/", headers={"Accept-Language": "de"}).get_data(as_text=True)
    for rules in all_rules():
        assert rules.name_de in html
        for setting in rules.settings:
            assert str(escape(setting.help_de)) in html


@pytest.mark.parametrize("lang", CODES)
@pytest.mark.parametrize("game", GAMES)
def test_every_page_renders_for_every_game_and_language(
    owner: FlaskClient, games: dict[str, str], game: str, lang: str
) -> None:
    game_id = games[game]
    for path in (f"/table/{game_id}", f"/phone/{game_id}", f"/history/{game_id}", f"/camera?game={game_id}"):
        r = owner.get(path, headers={"Accept-Language": lang})
        assert r.status_code == 200, path
        check_accessible(r.get_data(as_text=True), lang)
    for path in (f"/table/{game_id}/part", f"/phone/{game_id}/part"):
        r = owner.get(path, headers={"Accept-Language": lang})
        assert r.status_code == 200, path
        assert "<html" not in r.get_data(as_text=True)


class Rendered:
    def __init__(self, app: Flask) -> None:
        self.app = app
        self.contexts: list[tuple[str, dict[str, Any]]] = []

    def __enter__(self) -> Rendered:
        template_rendered.connect(self._record, self.app)
        return self

    def __exit__(self, *exc: object) -> None:
        template_rendered.disconnect(self._record, self.app)

    def _record(self, sender: Flask, template: Any, context: dict[str, Any], **extra: Any) -> None:
        self.contexts.append((template.name, context))

    def ctx(self, name: str) -> Any:
        return next(c["ctx"] for n, c in self.contexts if n == name)


@pytest.mark.parametrize("game", GAMES)
def test_table_context_is_the_typed_game_as_the_api_sees_it(
    pages_app: Flask, owner: FlaskClient, games: dict[str, str], game: str
) -> None:
    from web.pages.table import TablePage

    game_id = games[game]
    api = owner.get(f"/api/games/{game_id}").json["game"]
    with Rendered(pages_app) as seen:
        owner.get(f"/table/{game_id}")
    ctx = seen.ctx("table.html")
    assert isinstance(ctx, TablePage)
    assert {f.name for f in dataclasses.fields(ctx)} == {f.name for f in dataclasses.fields(TablePage)}
    page = ctx.page
    state = api["state"]
    assert page.game == game and page.id == game_id
    assert page.to_move == state["to_move"]
    assert page.seen == state["actions"]
    assert [p.name for p in page.players] == state["players"]
    assert [(c.kind, c.player) for c in page.choices] == [(o["action"], o["player"]) for o in state["options"]]
    assert [p.colour for p in page.players] == [f"pc{i}" for i in range(len(state["players"]))]
    assert ctx.join_code and ctx.join_code in ctx.join_url
    assert "<svg" in str(ctx.qr_svg)


@pytest.mark.parametrize("game", GAMES)
def test_every_choice_on_the_phone_is_an_action_the_game_accepts(owner: FlaskClient, game: str) -> None:
    """The actions the pages build from options are accepted as they are (dice added where the page asks)."""
    r = owner.post("/api/games", json={"game": game, "players": players_for(game)}, headers=WRITE)
    game_id = r.json["game"]["id"]
    game_json = play_some(owner, game_id, 1)
    state = game_json["state"]
    choices = build_choices(rules_for(game), state["options"])
    assert choices, "a game one action in has something to do"
    for choice in choices:
        action = dict(choice.action)
        if "dice" in choice.needs:
            action["dice"] = [3, 3, 4, 4, 6][: choice.dice_count]
        if "held" in choice.needs:
            action["held"] = []
        check = owner.post(
            f"/api/games/{game_id}/actions", json={"seen": state["actions"], "action": action}, headers=WRITE
        )
        assert check.status_code == 201, (choice, check.json)
        undo = owner.post(f"/api/games/{game_id}/undo", json={"seen": state["actions"] + 1}, headers=WRITE)
        assert undo.status_code == 200


def test_phone_shows_points_of_each_choice(owner: FlaskClient) -> None:
    r = owner.post("/api/games", json={"game": "bone", "players": ["Anna", "Ben"]}, headers=WRITE)
    game_id = r.json["game"]["id"]
    owner.post(
        f"/api/games/{game_id}/actions",
        json={"seen": 0, "action": {"type": "throw", "player": 0, "dice": [5, 5, 5, 2, 2]}},
        headers=WRITE,
    )
    html = owner.get(f"/phone/{game_id}/part", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "Full House" in html
    assert re.search(r'class="pts"[^>]*>\s*35\s*<', html)
    html_en = owner.get(f"/phone/{game_id}/part", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Full house" in html_en


def test_language_switch_sets_cookie_and_returns_to_the_page(owner: FlaskClient) -> None:
    r = owner.post("/lang", data={"lang": "de", "next": "/?x=1"})
    assert r.status_code == 303 and r.headers["Location"].endswith("/?x=1")
    assert f"{COOKIE}=de" in r.headers["Set-Cookie"]
    html = owner.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert '<html lang="de"' in html and "Neues Spiel" in html
    owner.post("/lang", data={"lang": "en"})
    assert '<html lang="en"' in owner.get("/").get_data(as_text=True)
    owner.delete_cookie(COOKIE)


def test_language_switch_refuses_unknown_languages_and_foreign_targets(owner: FlaskClient) -> None:
    r = owner.post("/lang", data={"lang": "xx", "next": "https://evil.example/"})
    assert r.status_code == 303 and r.headers["Location"] == "/"
    assert "Set-Cookie" not in r.headers or f"{COOKIE}=" not in r.headers.get("Set-Cookie", "")
    r = owner.post("/lang", data={"lang": "fr", "next": "//evil.example/x"})
    assert r.headers["Location"] == "/"
    owner.delete_cookie(COOKIE)


def test_browser_language_is_used_without_a_choice(pages_app: Flask) -> None:
    fresh = pages_app.test_client()
    assert '<html lang="pl"' in fresh.get("/", headers={"Accept-Language": "pl-PL,pl;q=0.9"}).get_data(as_text=True)
    assert '<html lang="en"' in fresh.get("/", headers={"Accept-Language": "ja"}).get_data(as_text=True)


def test_theme_switch(owner: FlaskClient) -> None:
    owner.post("/theme", data={"theme": "contrast"})
    assert 'data-theme="contrast"' in owner.get("/").get_data(as_text=True)
    owner.post("/theme", data={"theme": "nonsense"})
    assert 'data-theme="contrast"' in owner.get("/").get_data(as_text=True)
    owner.post("/theme", data={"theme": "auto"})


def test_a_device_that_has_not_joined_is_offered_to_join(pages_app: Flask, games: dict[str, str]) -> None:
    stranger = pages_app.test_client()
    for path in (f"/phone/{games['bone']}", f"/table/{games['bone']}"):
        r = stranger.get(path)
        assert r.status_code == 403
        html = r.get_data(as_text=True)
        assert 'id="join-code"' in html
        assert "Anna" not in html


def test_unknown_game_is_404(owner: FlaskClient) -> None:
    assert owner.get("/table/nosuchgame").status_code == 404
    assert owner.get("/phone/nosuchgame/part").status_code == 404


def test_table_shows_the_winner_and_rematch_at_the_end(owner: FlaskClient) -> None:
    r = owner.post(
        "/api/games", json={"game": "bone", "players": ["Anna", "Ben"], "settings": {"rounds": 1}}, headers=WRITE
    )
    game_id = r.json["game"]["id"]
    actions = [
        {"type": "throw", "player": 0, "dice": [6, 6, 6, 6, 6]},
        {"type": "stand", "player": 0},
        {"type": "throw", "player": 1, "dice": [1, 2, 4, 5, 5]},
        {"type": "stand", "player": 1},
    ]
    for seen, action in enumerate(actions):
        r = owner.post(f"/api/games/{game_id}/actions", json={"seen": seen, "action": action}, headers=WRITE)
        assert r.status_code == 201, r.json
    html = owner.get(f"/table/{game_id}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Anna wins!" in html and "data-rematch" in html
    html = owner.get(f"/table/{game_id}", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "Anna gewinnt!" in html


def test_face_pictures_exist_for_every_face() -> None:
    root = Path(__file__).resolve().parents[2] / "web" / "static" / "faces"
    for face in ["1", "2", "3", "4", "5", "6"]:
        assert (root / f"pip-{face}.svg").read_text().startswith("<svg")
    for face in ["9", "10", "J", "Q", "K", "A"]:
        text = (root / f"poker-{face}.svg").read_text()
        assert text.startswith("<svg") and f"<title>{face}</title>" in text


def test_catalogs_are_complete_compiled_and_keep_placeholders() -> None:
    """Every language has every phrase of the pages, with the same %(name)s placeholders, and its .mo is current;
    a phrase with plural forms has every form of the language (Polish three), each with the placeholders."""
    from babel.messages.mofile import read_mo
    from babel.messages.pofile import read_po

    def key(msgid: object) -> str | tuple[str, ...]:
        return msgid if isinstance(msgid, str) else tuple(msgid)  # type: ignore[arg-type]

    def forms(string: object) -> tuple[str, ...]:
        return (string,) if isinstance(string, str) else tuple(string)  # type: ignore[arg-type]

    root = Path(__file__).resolve().parents[2] / "web" / "translations"
    with (root / "messages.pot").open("rb") as f:
        wanted = {key(m.id) for m in read_po(f) if m.id}
    assert any(isinstance(w, tuple) for w in wanted), "the catalogue has plural forms (ngettext)"
    for lang in CODES:
        with (root / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
            catalog = read_po(f, locale=lang)
        po = {key(m.id): forms(m.string) for m in catalog if m.id}
        with (root / lang / "LC_MESSAGES" / "messages.mo").open("rb") as f:
            mo = {key(m.id): forms(m.string) for m in read_mo(f) if m.id}
        assert wanted <= set(po), (lang, sorted(map(str, wanted - set(po)))[:5])
        for msgid in wanted:
            said = po[msgid]
            plural = isinstance(msgid, tuple)
            assert len(said) == (catalog.num_plurals if plural else 1), (lang, msgid)
            source = msgid[-1] if isinstance(msgid, tuple) else msgid
            for text in said:
                assert text, (lang, msgid)
                assert sorted(re.findall(r"%\((\w+)\)s", source)) == sorted(re.findall(r"%\((\w+)\)s", text)), (
                    lang,
                    msgid,
                )
                # the refusals' templates ({name}, filled by str.format): each name once at least, no other
                assert set(re.findall(r"\{(\w+)\}", source)) == set(re.findall(r"\{(\w+)\}", text)), (lang, msgid)
            assert mo.get(msgid) == said, (lang, msgid, "run pybabel compile -d web/translations")


def test_the_template_holds_every_phrase_and_refusal_the_code_marks() -> None:
    """A refusal or phrase added to the code fails here until ``bash scripts/extract.sh`` has put it in the catalogs
    (the extraction is run in-process with the script's own keywords)."""
    from babel.messages.extract import extract_from_dir
    from babel.messages.pofile import read_po

    root = Path(__file__).resolve().parents[2]
    script = (root / "scripts" / "extract.sh").read_text()
    keywords: dict[str, tuple[int, ...] | None] = {}
    for spec in re.findall(r"-k (\S+)", script):
        name, _, arg = spec.partition(":")
        keywords[name] = (int(arg),) if arg else None
    method_map = [
        ("web/pages/**.py", "python"),
        ("web/*.py", "python"),
        ("companion/**.py", "python"),
        ("web/templates/**.html", "jinja2"),
    ]
    found = {
        m[2] if isinstance(m[2], str) else m[2][0]
        for m in extract_from_dir(str(root), method_map, keywords=keywords, strip_comment_tags=True)
        if m[2]
    }
    with (root / "web" / "translations" / "messages.pot").open("rb") as f:
        template = {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(f) if m.id}
    assert "It is {player}'s turn, not {player2}'s." in found
    assert found <= template, sorted(found - template)[:5]


def test_every_setting_and_hand_name_of_every_game_is_in_the_catalogs() -> None:
    """A new setting or hand name fails here until it has a label and is in the catalogs of all eight languages."""
    from babel.messages.pofile import read_po

    import companion.hands as hands
    from companion.sheet_rows import ROWS
    from web.pages.model import SETTING_LABELS

    root = Path(__file__).resolve().parents[2] / "web" / "translations"
    with (root / "messages.pot").open("rb") as f:
        msgids = {m.id for m in read_po(f) if m.id}
    for rules in all_rules():
        for setting in rules.settings:
            assert setting.name in SETTING_LABELS, f"{rules.id}: setting {setting.name} has no label in model.py"
            assert setting.help_en in msgids, f"{rules.id}: help of {setting.name} is not in words.py"
    rankings = [v for v in vars(hands).values() if isinstance(v, hands.HandRules)]
    assert rankings
    names = {c.label_en for r in rankings for c in hands.categories(r)}
    names |= {r.label_en for r in ROWS}
    assert names <= msgids, sorted(names - msgids)


@pytest.mark.parametrize(
    ("path", "template", "context"),
    [
        ("/", "start.html", "web.pages.start:StartPage"),
        ("/table/{id}", "table.html", "web.pages.table:TablePage"),
        ("/table/{id}/part", "table_part.html", "web.pages.table:TablePage"),
        ("/phone/{id}", "phone.html", "web.pages.phone:PhonePage"),
        ("/phone/{id}/part", "phone_part.html", "web.pages.phone:PhonePage"),
        ("/history/{id}", "history.html", "web.pages.table:HistoryPage"),
        ("/rules/sheet", "rules.html", "web.pages.start:RulesPage"),
        ("/camera?game={id}", "camera.html", "web.pages.camera:CameraPage"),
    ],
)
def test_each_page_gets_its_typed_context(
    pages_app: Flask, owner: FlaskClient, games: dict[str, str], path: str, template: str, context: str
) -> None:
    import importlib

    module, name = context.split(":")
    cls = getattr(importlib.import_module(module), name)
    with Rendered(pages_app) as seen:
        assert owner.get(path.format(id=games["bone"])).status_code == 200
    ctx = seen.ctx(template)
    assert type(ctx) is cls and dataclasses.is_dataclass(ctx)


def post_actions(client: FlaskClient, game_id: str, actions: list[dict[str, Any]], seen: int = 0) -> dict[str, Any]:
    game: dict[str, Any] = {}
    for n, action in enumerate(actions, start=seen):
        r = client.post(f"/api/games/{game_id}/actions", json={"seen": n, "action": action}, headers=WRITE)
        assert r.status_code == 201, (action, r.json)
        game = r.json["game"]
    return game


def test_sheet_writes_the_new_reserve_level_and_strikes_the_old_one(owner: FlaskClient) -> None:
    """Rule text: "Vier 4er tragen 4 ein, danach tragen zwei 3er 1 ein und streichen die 4 durch"; and a throw
    entered where it makes nothing is drawn apart from a strike chosen without entering."""
    r = owner.post("/api/games", json={"game": "sheet", "players": ["Anna"], "settings": {"columns": 1}}, headers=WRITE)
    game_id = r.json["game"]["id"]
    post_actions(
        owner,
        game_id,
        [
            {"type": "throw", "player": 0, "dice": [4, 4, 4, 4, 1]},
            {"type": "enter", "player": 0, "row": "schule_4"},
            {"type": "throw", "player": 0, "dice": [3, 3, 1, 2, 5]},
            {"type": "enter", "player": 0, "row": "schule_3"},
            {"type": "throw", "player": 0, "dice": [1, 2, 3, 5, 6]},
            {"type": "enter", "player": 0, "row": "vierling"},
            {"type": "throw", "player": 0, "dice": [1, 2, 3, 5, 6]},
            {"type": "strike", "player": 0, "row": "fuenfling"},
        ],
    )
    html = owner.get(f"/table/{game_id}/part", headers={"Accept-Language": "en"}).get_data(as_text=True)
    body = html[html.index("<tbody") : html.index("</tbody>")]
    assert re.search(r'class="cell-reserve old" aria-label="reserve was 4">4<', body)
    assert re.search(r'class="cell-paid"[^>]*>⊗</span> <span class="cell-reserve" aria-label="reserve now 1">1<', body)
    assert "+4" not in body and "+1" not in body
    assert body.count('class="cell-not-made"') == 1 and body.count('class="cell-struck"') == 1
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
    four = next(r for r in rows if "Four of a kind" in r)
    five = next(r for r in rows if "Five of a kind" in r)
    assert "cell-not-made" in four and "cell-struck" in five
    legend = html[html.index('class="muted legend"') :]
    for sign in ("cell-not-made", "cell-struck", "cell-reserve old", "cell-paid"):
        assert sign in legend


def upload_photo(
    client: FlaskClient, game_id: str, monkeypatch: pytest.MonkeyPatch, reading: dict[str, Any] | None = None
) -> str:
    """A stored photo of this game; the reader is not under test here: it finds nothing, or gives ``reading``."""
    import io

    from PIL import Image

    answer = reading or {"kind": "pip", "dice": [], "width": 64, "height": 48, "ms": 1.0, "warnings": []}
    monkeypatch.setattr("web.photos.read_image", lambda data, kind, memory=None, count=None: answer)
    buf = io.BytesIO()
    Image.new("RGB", (answer["width"], answer["height"]), (20, 90, 60)).save(buf, "JPEG")
    r = client.post(
        f"/api/games/{game_id}/photos",
        data={"photo": (io.BytesIO(buf.getvalue()), "dice.jpg")},
        headers=WRITE,
        content_type="multipart/form-data",
    )
    assert r.status_code == 201, r.json
    photo_id: str = r.json["photo"]["id"]
    return photo_id


def photo_cells(html: str) -> list[str]:
    """The score block's cells that link a photo."""
    block = html[html.index('class="card block"') : html.index('class="side"')]
    return [c for c in re.findall(r"<td[^>]*>(.*?)</td>", block, re.S) if "photo-link" in c]


def test_the_photo_behind_a_score_is_linked_from_the_score_block(
    owner: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = owner.post(
        "/api/games", json={"game": "bone", "players": ["Anna", "Ben"], "settings": {"rounds": 2}}, headers=WRITE
    )
    game_id = r.json["game"]["id"]
    first = upload_photo(owner, game_id, monkeypatch)
    second = upload_photo(owner, game_id, monkeypatch)
    seen = 0
    for action, photo in [
        ({"type": "throw", "player": 0, "dice": [1, 2, 4, 4, 6]}, None),
        ({"type": "throw", "player": 0, "dice": [4, 4, 4, 4, 6], "held": [2, 3, 4]}, first),
        ({"type": "stand", "player": 0}, None),
        ({"type": "throw", "player": 1, "dice": [2, 2, 3, 5, 6]}, None),
        ({"type": "stand", "player": 1}, None),
        ({"type": "throw", "player": 1, "dice": [3, 3, 3, 5, 6]}, second),
    ]:
        body: dict[str, Any] = {"seen": seen, "action": action}
        if photo:
            body["photo"] = photo
        assert owner.post(f"/api/games/{game_id}/actions", json=body, headers=WRITE).status_code == 201
        seen += 1
    html = owner.get(f"/table/{game_id}/part", headers={"Accept-Language": "en"}).get_data(as_text=True)
    banner = html[html.index("turn-banner") : html.index("card block")]
    assert f"/photo/{second}" in banner  # the throw on the table now
    post_actions(owner, game_id, [{"type": "stand", "player": 1}], seen=seen)
    html = owner.get(f"/table/{game_id}/part", headers={"Accept-Language": "en"}).get_data(as_text=True)
    cells = photo_cells(html)
    # Anna's four of a kind came from the photo of her second throw; Ben's round-1 hand was tapped in
    assert len(cells) == 2, cells
    assert f"/photo/{first}" in cells[0] and "Four of a kind" in cells[0]
    assert f"/photo/{second}" in cells[1] and "Three of a kind" in cells[1]
    # undo the stand and the photo's throw: its link goes with them
    for n in (seen + 1, seen):
        assert owner.post(f"/api/games/{game_id}/undo", json={"seen": n}, headers=WRITE).status_code == 200
    html = owner.get(f"/table/{game_id}/part").get_data(as_text=True)
    assert f"/photo/{second}" not in html and len(photo_cells(html)) == 1


def post_with_photos(client: FlaskClient, game_id: str, actions: list[tuple[dict[str, Any], str | None]]) -> None:
    """Post actions in order, each with the photo it was read from (None: tapped in)."""
    for seen, (action, photo) in enumerate(actions):
        body: dict[str, Any] = {"seen": seen, "action": action} | ({"photo": photo} if photo else {})
        r = client.post(f"/api/games/{game_id}/actions", json=body, headers=WRITE)
        assert r.status_code == 201, (action, r.json)


def test_classic_blind_rounds_link_the_photo_of_each_unseen_throw(
    owner: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = owner.post(
        "/api/games",
        json={"game": "classic", "players": ["Anna", "Ben"], "settings": {"blind_first_throw": True}},
        headers=WRITE,
    )
    game_id = r.json["game"]["id"]
    anna, ben, later = (upload_photo(owner, game_id, monkeypatch) for _ in range(3))
    post_with_photos(
        owner,
        game_id,
        [
            ({"type": "blind", "player": 0}, None),
            ({"type": "throw", "player": 0, "dice": [6, 6, 2, 2, 1]}, anna),  # one unseen throw each
            ({"type": "throw", "player": 1, "dice": [5, 5, 5, 3, 1]}, ben),
            ({"type": "throw", "player": 0, "dice": [1, 2, 3, 4, 6]}, None),  # round 2: Anna took the strike
            ({"type": "throw", "player": 0, "dice": [4, 4, 4, 4, 6], "held": [4]}, later),
            ({"type": "stand", "player": 0}, None),
        ],
    )
    html = owner.get(f"/table/{game_id}/part", headers={"Accept-Language": "en"}).get_data(as_text=True)
    cells = photo_cells(html)
    # after the blind round the links go on: each hand links the photo of the throw it stood on
    assert len(cells) == 3, cells
    assert f"/photo/{anna}" in cells[0] and "Two pairs" in cells[0]
    assert f"/photo/{ben}" in cells[1] and "Three of a kind" in cells[1]
    assert f"/photo/{later}" in cells[2] and "Four of a kind" in cells[2]


def test_bluff_reveals_link_the_photo_of_the_lifted_cup(owner: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    r = owner.post(
        "/api/games", json={"game": "classic", "players": ["Anna", "Ben"], "settings": {"mode": "bluff"}}, headers=WRITE
    )
    game_id = r.json["game"]["id"]
    cup = upload_photo(owner, game_id, monkeypatch)
    post_with_photos(
        owner,
        game_id,
        [
            ({"type": "announce", "player": 0, "dice": [6, 6, 3, 3, 1]}, None),
            ({"type": "doubt", "player": 1}, None),
            ({"type": "reveal", "player": 1, "dice": [2, 2, 2, 1, 1]}, cup),  # better than claimed: Ben loses
            ({"type": "announce", "player": 1, "dice": [5, 5, 1, 2, 3]}, None),
            ({"type": "doubt", "player": 0}, None),
            ({"type": "reveal", "player": 0, "dice": [5, 5, 4, 2, 3]}, None),  # entered by hand: no link
        ],
    )
    html = owner.get(f"/table/{game_id}/part").get_data(as_text=True)
    cells = photo_cells(html)
    assert len(cells) == 1 and f"/photo/{cup}" in cells[0], cells


def test_sheet_fields_link_the_photo_of_a_tapped_entry(owner: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    r = owner.post("/api/games", json={"game": "sheet", "players": ["Anna", "Ben"]}, headers=WRITE)
    game_id = r.json["game"]["id"]
    pid = upload_photo(owner, game_id, monkeypatch)
    tapped = {"dice": [6, 6, 6, 2, 1], "all_five": True, "throw": 1}
    post_with_photos(
        owner,
        game_id,
        [
            ({"type": "enter", "player": 0, "row": "schule_6", **tapped}, pid),  # the dice came with the entry
            ({"type": "enter", "player": 1, "row": "schule_6", **tapped}, None),
        ],
    )
    html = owner.get(f"/table/{game_id}/part").get_data(as_text=True)
    cells = photo_cells(html)
    assert len(cells) == 1 and f"/photo/{pid}" in cells[0] and "Anna" in cells[0]


def test_sheet_fields_link_the_photo_of_their_throw(owner: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    r = owner.post("/api/games", json={"game": "sheet", "players": ["Anna", "Ben"]}, headers=WRITE)
    game_id = r.json["game"]["id"]
    pid = upload_photo(owner, game_id, monkeypatch)
    body = {"seen": 0, "action": {"type": "throw", "player": 0, "dice": [6, 6, 6, 2, 1]}, "photo": pid}
    assert owner.post(f"/api/games/{game_id}/actions", json=body, headers=WRITE).status_code == 201
    post_actions(
        owner,
        game_id,
        [
            {"type": "enter", "player": 0, "row": "schule_6"},
            {"type": "throw", "player": 1, "dice": [6, 6, 6, 2, 1]},
            {"type": "enter", "player": 1, "row": "schule_6"},
        ],
        seen=1,
    )
    html = owner.get(f"/table/{game_id}/part").get_data(as_text=True)
    cells = photo_cells(html)
    assert len(cells) == 1 and f"/photo/{pid}" in cells[0] and "Anna" in cells[0]


def test_board_dice_link_the_photo_of_their_throw(owner: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    r = owner.post("/api/games", json={"game": "board", "players": ["Anna", "Ben"]}, headers=WRITE)
    game_id = r.json["game"]["id"]
    pid = upload_photo(owner, game_id, monkeypatch)
    post_actions(
        owner, game_id, [{"type": "roll_off", "player": 0, "dice": [5]}, {"type": "roll_off", "player": 1, "dice": [2]}]
    )
    body = {"seen": 2, "action": {"type": "throw", "player": 0, "dice": [6, 3, 1]}, "photo": pid}
    assert owner.post(f"/api/games/{game_id}/actions", json=body, headers=WRITE).status_code == 201
    html = owner.get(f"/table/{game_id}/part").get_data(as_text=True)
    assert f"/photo/{pid}" in html[html.index("turn-banner") : html.index("card block")]
    game = post_actions(owner, game_id, [{"type": "place", "player": 0, "row": 1, "value": 3}], seen=3)
    html = owner.get(f"/table/{game_id}/part").get_data(as_text=True)
    board = html[html.index('class="board"') : html.index("</table>")]
    assert board.count(f"/photo/{pid}") == 1, board
    assert game["state"]["actions"] == 4


def test_a_phone_remembers_whose_it_is_per_game(pages_app: Flask, owner: FlaskClient) -> None:
    r = owner.post("/api/games", json={"game": "bone", "players": ["Anna", "Ben"]}, headers=WRITE)
    game_id = r.json["game"]["id"]
    r = owner.post("/api/games", json={"game": "bone", "players": ["Cleo", "Dan"]}, headers=WRITE)
    other = r.json["game"]["id"]
    r = owner.post(f"/phone/{game_id}/me", data={"seat": "1"})
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/phone/{game_id}")
    html = owner.get(f"/phone/{game_id}/part", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Waiting for Anna" in html and 'class="card other-turn"' in html
    assert "This phone is Ben's" in html
    # the other game is untouched by this choice
    assert "Waiting for" not in owner.get(f"/phone/{other}/part").get_data(as_text=True)
    owner.post(f"/phone/{game_id}/me", data={"seat": "0"})
    html = owner.get(f"/phone/{game_id}/part", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Your turn, Anna" in html and "Waiting for" not in html
    # a seat the game does not have is refused in words and changes nothing (issue 60); an empty one: shared
    refused = owner.post(f"/phone/{game_id}/me", data={"seat": "7"})
    assert refused.status_code == 400 and "players" in refused.get_data(as_text=True)
    html = owner.get(f"/phone/{game_id}/part", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Your turn, Anna" in html
    owner.post(f"/phone/{game_id}/me", data={"seat": ""})
    html = owner.get(f"/phone/{game_id}/part", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Anna's turn" in html and "This phone is shared by all" in html
    assert pages_app.test_client().post(f"/phone/{game_id}/me", data={"seat": "0"}).status_code == 403


@pytest.mark.parametrize("lang", CODES)
def test_rules_help_says_which_reading_is_in_force(owner: FlaskClient, lang: str) -> None:
    """RULES.md: the rules help in the app says which reading is in force (German in German, English otherwise;
    the other six languages say that these sentences are in English)."""
    start = owner.get("/", headers={"Accept-Language": lang}).get_data(as_text=True)
    for rules in all_rules():
        r = owner.get(f"/rules/{rules.id}", headers={"Accept-Language": lang})
        assert r.status_code == 200
        html = r.get_data(as_text=True)
        check_accessible(html, lang)
        readings = rules.readings_de if lang == "de" else rules.readings_en
        main = html.split("<main", 1)[1]
        for text in readings:
            # every language says them in its own words: an English sentence shows only on the English page
            assert (str(escape(text)) in main) == (lang in ("de", "en")), (lang, text)
            if lang in ("de", "en"):
                assert str(escape(text)) in start
        assert 'lang="en"' not in main
    assert owner.get("/rules/nosuchgame").status_code == 404


FINISH = {
    "bone": ({"rounds": 1}, ["Anna", "Ben"]),
    "pokerdice": ({"wins": 1}, ["Anna", "Ben"]),
    "classic": ({"strike_limit": 1}, ["Anna", "Ben", "Cleo"]),
    "board": ({"points_to_win": 1}, ["Anna", "Ben"]),
    "sheet": ({"columns": 1}, ["Anna"]),
}
FINISH_THROWS = [[6, 6, 6, 2, 2], [1, 2, 3, 5, 6], [4, 4, 3, 3, 1], [5, 5, 5, 5, 2], [2, 3, 4, 5, 6]]


@pytest.fixture(scope="module")
def finished(owner: FlaskClient) -> dict[str, str]:
    """One finished game of each kind, played from the game's own options with varied dice."""
    out = {}
    for game, (settings, players) in FINISH.items():
        r = owner.post("/api/games", json={"game": game, "players": players, "settings": settings}, headers=WRITE)
        game_id = r.json["game"]["id"]
        state = r.json["game"]["state"]
        for step in range(200):
            if state["outcome"]:
                break
            choices = build_choices(rules_for(game), state["options"])
            choice = next((c for c in choices if c.kind in ("stand", "enter", "place")), choices[0])
            action = dict(choice.action)
            if "dice" in choice.needs:
                action["dice"] = FINISH_THROWS[step % len(FINISH_THROWS)][: choice.dice_count]
            if "held" in choice.needs:
                action["held"] = []
            body = {"seen": state["actions"], "action": action}
            r = owner.post(f"/api/games/{game_id}/actions", json=body, headers=WRITE)
            assert r.status_code == 201, (game, action, r.json)
            state = r.json["game"]["state"]
        assert state["outcome"], game
        out[game] = game_id
    return out


@pytest.mark.parametrize("game", GAMES)
def test_the_end_of_a_game_says_who_won_and_why_in_every_language(
    owner: FlaskClient, finished: dict[str, str], game: str
) -> None:
    game_id = finished[game]
    outcome = owner.get(f"/api/games/{game_id}").json["game"]["state"]["outcome"]
    names = owner.get(f"/api/games/{game_id}").json["game"]["state"]["players"]
    winner = names[outcome["winners"][0]]
    said = {}
    for lang in CODES:
        html = owner.get(f"/table/{game_id}/part", headers={"Accept-Language": lang}).get_data(as_text=True)
        card = html[html.index('class="card winner') : html.index("</section>")]
        assert winner in card[: card.index('class="why"')], lang  # the headline says who won
        why = re.search(r'<p class="why">(.*?)</p>', card, re.S)
        assert why, lang
        said[lang] = why.group(1).strip()
        assert said[lang] and "The game is over" not in said[lang], (lang, said[lang])
    # English is built from the same data as the engine's own sentence: the same names and numbers
    numbers = set(re.findall(r"\d+", outcome["reason"])) - {"1"}  # "1 rounds" reads "one round" here
    assert set(re.findall(r"\d+", said["en"])) - {"1"} == numbers, (said["en"], outcome["reason"])
    # every language says why in its own words, naming the players the engine's reason names
    named = [n for n in names if n in outcome["reason"]]
    for lang in CODES:
        assert all(n in said[lang] for n in named), (lang, said[lang])
        if lang != "en":
            assert said[lang] != said["en"], lang


def test_a_write_on_an_old_state_is_refused_after_undo_and_play_elsewhere(owner: FlaskClient) -> None:
    """The pages send the revision they show: another device's undo and new action keep the action count (``seen``)
    but not the revision, so the write made on the old state is refused as stale, not applied."""
    game_id = owner.post("/api/games", json={"game": "bone", "players": ["Anna", "Ben"]}, headers=WRITE).json["game"][
        "id"
    ]
    post_actions(owner, game_id, [{"type": "throw", "player": 0, "dice": [6, 6, 2, 3, 4]}], seen=0)
    html = owner.get(f"/phone/{game_id}/part").get_data(as_text=True)
    shown = int(re.search(r'class="part[^"]*" data-seen="1" data-revision="(\d+)"', html).group(1))  # type: ignore[union-attr]
    assert f'data-undo data-seen="1" data-revision="{shown}"' in html
    table = owner.get(f"/table/{game_id}/part").get_data(as_text=True)
    assert f'data-undo data-seen="1" data-revision="{shown}"' in table
    # elsewhere: undo Anna's throw and throw again (still one action)
    assert owner.post(f"/api/games/{game_id}/undo", json={"seen": 1}, headers=WRITE).status_code == 200
    post_actions(owner, game_id, [{"type": "throw", "player": 0, "dice": [1, 1, 1, 2, 5]}], seen=0)
    stand = {"type": "stand", "player": 0}
    r = owner.post(f"/api/games/{game_id}/actions", json={"seen": 1, "revision": shown, "action": stand}, headers=WRITE)
    assert r.status_code == 409 and r.json["code"] == "stale" and r.json["game"]["revision"] == shown + 2
    r = owner.post(f"/api/games/{game_id}/undo", json={"seen": 1, "revision": shown}, headers=WRITE)
    assert r.status_code == 409 and r.json["code"] == "stale"
    assert owner.get(f"/api/games/{game_id}").json["game"]["state"]["view"]["turn"]["dice"] == [1, 1, 1, 2, 5]
    # the words the page shows for it
    words = owner.get(f"/phone/{game_id}", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert '"stale": "' in words and "Someone else was quicker" not in words


def test_the_photo_page_draws_the_reading_and_says_what_was_entered(
    pages_app: Flask, owner: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from PIL import Image

    boxes = [(10, 20, 110, 120), (150, 20, 250, 120), (290, 20, 390, 120), (430, 20, 530, 120), (570, 20, 670, 120)]
    faces = ["3", "3", "5", "2", "6"]

    def reading(data: bytes, kind: str, memory: object = None, count: object = None) -> dict[str, Any]:
        dice = [
            {"face": f, "value": int(f), "confidence": 0.4 if i == 2 else 0.99, "box": list(b), "uncertain": i == 2}
            for i, (f, b) in enumerate(zip(faces, boxes, strict=True))
        ]
        return {"kind": "pip", "dice": dice, "width": 800, "height": 400, "ms": 1.0, "warnings": []}

    monkeypatch.setattr("web.photos.read_image", reading)
    game_id = owner.post("/api/games", json={"game": "bone", "players": ["Anna", "Ben"]}, headers=WRITE).json["game"][
        "id"
    ]
    buf = io.BytesIO()
    Image.new("RGB", (800, 400), (20, 90, 60)).save(buf, "JPEG")
    r = owner.post(
        f"/api/games/{game_id}/photos",
        data={"photo": (io.BytesIO(buf.getvalue()), "dice.jpg")},
        headers=WRITE,
        content_type="multipart/form-data",
    )
    pid = r.json["photo"]["id"]
    html = owner.get(f"/photo/{pid}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    check_accessible(html, "en")
    assert f'src="/api/photos/{pid}"' in html and "Nothing was entered from this photo" in html
    drawn = re.findall(r'<span class="dbox( uncertain)?" style="left:([\d.]+)%;top:([\d.]+)%', html)
    assert len(drawn) == 5 and [bool(u) for u, _, _ in drawn] == [False, False, True, False, False]
    assert abs(float(drawn[1][1]) - 100 * 150 / 800) < 0.01 and abs(float(drawn[1][2]) - 100 * 20 / 400) < 0.01
    assert re.findall(r'<span class="lbl">(\w+)</span>', html) == faces
    # the person corrected the uncertain 5 to a 4 and confirmed: the page shows what was entered, not what was read
    body = {"seen": 0, "action": {"type": "throw", "player": 0, "dice": [3, 3, 4, 2, 6]}, "photo": pid}
    assert owner.post(f"/api/games/{game_id}/actions", json=body, headers=WRITE).status_code == 201
    html = owner.get(f"/photo/{pid}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Anna threw 3 3 4 2 6" in html and 'aria-label="3 3 4 2 6"' in html and "Read: 3 3 5 2 6" in html
    # the score block and history link this page, not the bare picture
    assert f'href="/photo/{pid}"' in owner.get(f"/table/{game_id}/part").get_data(as_text=True)
    history = owner.get(f"/history/{game_id}").get_data(as_text=True)
    assert f'href="/photo/{pid}"' in history and f'src="/api/photos/{pid}"' in history
    german = owner.get(f"/photo/{pid}", headers={"Accept-Language": "de"}).get_data(as_text=True)
    check_accessible(german, "de")
    # who may not see the game may not see its photo; an unknown photo is 404
    assert pages_app.test_client().get(f"/photo/{pid}").status_code == 403
    assert owner.get("/photo/pnothere").status_code == 404


def test_the_photo_page_names_another_printing_of_a_court_face(
    pages_app: Flask, owner: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    dice = [
        {"face": "Q", "value": 4, "confidence": 0.97, "box": [10, 20, 110, 120], "uncertain": False, "printed": "D"},
        {"face": "K", "value": 5, "confidence": 0.95, "box": [150, 20, 250, 120], "uncertain": False},
    ]
    reading = {"kind": "poker", "dice": dice, "width": 400, "height": 200, "ms": 1.0, "warnings": []}
    game = owner.post("/api/games", json={"game": "pokerdice", "players": ["Anna", "Ben"]}, headers=WRITE).json["game"]
    pid = upload_photo(owner, game["id"], monkeypatch, reading)
    html = owner.get(f"/photo/{pid}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    # a German queen is shown as what is printed and what it counts as; an English king as itself
    assert re.findall(r'<span class="lbl">([^<]+)</span>', html) == ["D=Q", "K"]
    assert "Die 1: D=Q (97 %)" in html


def test_the_poker_letters_each_language_names_are_read_as_those_faces() -> None:
    """A language that lists the poker faces in its own letters (German 9 10 B D K A) names only letters that the
    manual entry reads as those faces, in that order: a Dutch "V" (vrouw, the queen) would be read as a French jack."""
    from babel.messages.pofile import read_po

    from companion.dice import DiceKind, parse_die

    root = Path(__file__).resolve().parents[2] / "web" / "translations"
    for lang in CODES:
        with (root / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
            po = {m.id: m.string for m in read_po(f) if isinstance(m.id, str) and "9 10 J Q K A" in m.id}
        assert po, lang
        for msgid, text in po.items():
            lists = re.findall(r"9 10 (\S+) (\S+) (\S+) (\S+?)\b", text or msgid)
            assert lists, (lang, msgid, text)
            for letters in lists:
                assert [parse_die(t, DiceKind.POKER) for t in letters] == [3, 4, 5, 6], (lang, text)


def test_a_join_link_on_a_loopback_address_is_known_as_one_phones_cannot_open() -> None:
    from web.pages.table import is_loopback

    for url in ("http://127.0.0.1:8000/join/K7PQ2M", "https://localhost/join/X", "http://[::1]:5000/join/X"):
        assert is_loopback(url), url
    for url in ("http://192.168.1.20:8000/join/K7PQ2M", "https://becher.example/join/X", ""):
        assert not is_loopback(url), url
