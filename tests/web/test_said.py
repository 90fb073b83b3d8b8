"""Refusals in the asking device's language: the rules', the store's, the access checks' and the photo reader's."""

from __future__ import annotations

import io
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import BONE_ROUND, Device

TRANSLATIONS = Path(__file__).resolve().parents[2] / "web" / "translations"


@cache
def catalog(lang: str) -> dict[str, str]:
    from babel.messages.pofile import read_po

    with (TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return {m.id: m.string for m in read_po(f) if m.id and isinstance(m.id, str)}


def said(lang: str, template: str, **values: Any) -> str:
    """What the catalogue says for ``template`` in ``lang``, filled in; it must differ from the English."""
    text = catalog(lang)[template]
    assert text and text != template, (lang, template)
    return text.format(**values)


@pytest.mark.parametrize("lang", ["de", "fr", "pl"])
def test_a_move_out_of_turn_is_refused_in_the_devices_language(client: Device, lang: str) -> None:
    game = client.create()
    action = {"type": "throw", "player": 1, "dice": [1, 2, 3, 4, 5]}
    r = client.post(
        f"/api/games/{game['id']}/actions",
        json={"seen": 0, "action": action},
        headers={"Accept-Language": lang},
    )
    assert r.status_code == 409 and r.json["code"] == "illegal"
    assert r.json["error"] == said(lang, "It is {player}'s turn, not {player2}'s.", player="Anna", player2="Ben")
    english = client.post(f"/api/games/{game['id']}/actions", json={"seen": 0, "action": action})
    assert english.json["error"] == "It is Anna's turn, not Ben's."
    assert client.get(f"/api/games/{game['id']}").json["game"]["state"]["actions"] == 0


def test_the_language_switch_wins_over_the_browser(client: Device) -> None:
    game = client.create()
    client.client.set_cookie("becher_lang", "de")
    r = client.post(f"/api/games/{game['id']}/undo", json={"seen": 0}, headers={"Accept-Language": "en"})
    assert r.status_code == 409
    assert r.json["error"] == said("de", "Nothing can be undone: the game has no actions yet.")


def test_a_sentence_inside_a_sentence_is_translated_too(client: Device) -> None:
    game = client.create("classic", mode="bluff")
    client.play(game["id"], {"type": "announce", "player": 0, "dice": [2, 2, 3, 4, 5]})
    client.play(game["id"], {"type": "doubt", "player": 1})
    r = client.post(
        f"/api/games/{game['id']}/actions",
        json={"seen": 2, "action": {"type": "reveal", "player": 0, "dice": [2, 2, 3, 4, 5]}},
        headers={"Accept-Language": "de"},
    )
    assert r.status_code == 409, r.json
    inner = said(
        "de",
        "{player} lifted the cup: enter the five dice under it ({claimer} claimed {claim}).",
        player="Ben",
        claimer="Anna",
        claim="2-2-3-4-5",
    )
    assert r.json["error"] == said(
        "de", "{expected} The dice are entered as {player}'s action.", expected=inner, player="Ben"
    )


def test_store_and_access_refusals_are_said_in_the_devices_language(
    client: Device, new_device: Callable[[], Device]
) -> None:
    r = client.get("/api/games/nosuchgame", headers={"Accept-Language": "nl"})
    assert r.status_code == 404
    assert r.json["error"] == said(
        "nl", "There is no game {game_id}; it may have been deleted, so pick one from the list.", game_id="'nosuchgame'"
    )
    game = client.create()
    stranger = new_device()
    r = stranger.post(
        f"/api/games/{game['id']}/actions", json={"seen": 0, "action": BONE_ROUND[0]}, headers={"Accept-Language": "it"}
    )
    assert r.status_code == 403
    assert r.json["error"] == said(
        "it", "This device has not joined this game; scan the QR code on the table or enter its code."
    )


def test_a_photo_that_is_no_image_is_refused_in_the_devices_language(client: Device) -> None:
    game = client.create()
    r = client.post(
        f"/api/games/{game['id']}/photos",
        data={"photo": (io.BytesIO(b"these are not dice"), "notes.txt")},
        headers={"Accept-Language": "es"},
        content_type="multipart/form-data",
    )
    assert r.status_code == 415 and r.json["code"] == "not_image"
    assert r.json["error"] == said(
        "es", "This file is not an image Becher can open; take a photo of the dice or choose a JPEG or PNG."
    )


@pytest.mark.parametrize("lang", ["de", "nl"])
def test_a_refusal_names_the_game_as_the_pages_do(client: Device, lang: str) -> None:
    """The game's name inside a refusal is the one the start page shows in that language, not the English one."""
    players = [f"P{k}" for k in range(5)]
    r = client.post(
        "/api/games",
        json={"game": "sheet", "players": players, "settings": {}},
        headers={"Accept-Language": lang},
    )
    assert r.status_code == 400
    name = said(lang, "Würfelpoker on a score sheet")
    assert r.json["error"] == said(
        lang,
        "{name_en} is played by 1 to {RULES_PLAYERS} players by the rules; for more, turn on the setting "
        "“Up to {MOST_PLAYERS} players”.",
        name_en=name,
        RULES_PLAYERS=4,
        MOST_PLAYERS=8,
    )
    page = client.get("/", headers={"Accept-Language": lang}).get_data(as_text=True)
    assert name in page
    english = client.post("/api/games", json={"game": "sheet", "players": players, "settings": {}})
    assert english.json["error"].startswith("Würfelpoker on a score sheet is played by 1 to 4 players")
    assert client.get("/api/games").json["games"] == []
