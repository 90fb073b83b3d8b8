"""A new game after an over one (issue 61): the owner's ``after`` takes the old game's phones along, each bound phone
to the seat of the same name, and the old game's ``next_game`` sends its watchers there; anything else about ``after``
starts an ordinary game."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.web.conftest import Device


def over_game(client: Device, players: list[str]) -> str:
    """Poker Dice to one round win, played out by the owner."""
    r = client.post("/api/games", json={"game": "pokerdice", "players": players, "settings": {"wins": 1}})
    gid: str = r.json["game"]["id"]
    seen = 0
    for dice, player in (([6, 6, 6, 6, 5], 0), ([1, 2, 3, 4, 6], 1)):
        game = client.play(gid, {"type": "throw", "player": player, "dice": dice}, seen=seen).json["game"]
        seen += 1
        if any(o["action"] == "stand" for o in game["state"]["options"]):
            client.play(gid, {"type": "stand", "player": player}, seen=seen)
            seen += 1
    assert client.get(f"/api/games/{gid}").json["game"]["status"] == "over"
    return gid


def test_the_phones_follow_with_the_seat_of_their_name(client: Device, join: Callable[[str], Device]) -> None:
    old = over_game(client, ["Anna", "Ben"])
    anna, ben = join(old), join(old)
    ben.post(f"/api/games/{old}/seat", json={"seat": 1})
    anna.post(f"/api/games/{old}/seat", json={"seat": 0})
    r = client.post("/api/games", json={"game": "bone", "players": ["Ben", "cleo", "ANNA"], "after": old})
    assert r.status_code == 201
    new: dict[str, Any] = r.json["game"]
    assert client.get(f"/api/games/{old}").json["game"]["next_game"] == new["id"]
    assert ben.get(f"/api/games/{new['id']}").json["you"]["seat"] == 0  # Ben sits first now
    assert anna.get(f"/api/games/{new['id']}").json["you"]["seat"] == 2  # the same name, in another case
    # a second new game after the same one starts afresh: the phones went to the first
    again = client.post("/api/games", json={"game": "bone", "players": ["Anna", "Ben"], "after": old})
    assert again.status_code == 201
    assert client.get(f"/api/games/{old}").json["game"]["next_game"] == new["id"]
    assert anna.get(f"/api/games/{again.json['game']['id']}").status_code == 403


def test_after_a_game_still_playing_or_anothers_starts_an_ordinary_game(
    client: Device, join: Callable[[str], Device]
) -> None:
    playing = client.post("/api/games", json={"game": "bone", "players": ["Anna", "Ben"]}).json["game"]["id"]
    r = client.post("/api/games", json={"game": "bone", "players": ["Anna", "Ben"], "after": playing})
    assert r.status_code == 201 and client.get(f"/api/games/{playing}").json["game"]["next_game"] is None
    old = over_game(client, ["Anna", "Ben"])
    phone = join(old)
    r = phone.post("/api/games", json={"game": "bone", "players": ["Anna", "Ben"], "after": old})  # not its game
    assert r.status_code == 201 and client.get(f"/api/games/{old}").json["game"]["next_game"] is None
    r = client.post("/api/games", json={"game": "bone", "players": ["Anna", "Ben"], "after": "nosuchgame"})
    assert r.status_code == 201
    r = client.post("/api/games", json={"game": "bone", "players": ["Anna", "Ben"], "after": 7})
    assert r.status_code == 400 and "'after'" in r.json["error"]
