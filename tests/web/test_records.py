"""Players remembered across games, the history, the statistics on a hand-made history (figures worked out by hand
in the comments), the CSV exports and ``becher stats``."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from companion.core import GameLog
from tests.web.conftest import Device
from web.cli import main as cli_main
from web.store import Store


def throw(p: int, dice: list[int], held: tuple[int, ...] = ()) -> dict[str, Any]:
    action: dict[str, Any] = {"type": "throw", "player": p, "dice": dice}
    if held:
        action["held"] = list(held)
    return action


def stand(p: int) -> dict[str, Any]:
    return {"type": "stand", "player": p}


# Bone, two rounds, Anna against Ben; the hands are named by companion.hands (bone's categories).
#  round 1: Anna 66623 (three) holds 666, rethrows two: 66622 (full house, 35); Ben 12345 (large straight, 30)
#  round 2: Ben 22441 (two pairs, 15); Anna 33156 (pair) holds 33 -> 33356 holds 333 -> 33336 (four, 40)
#  Anna 35 + 40 = 75 wins against Ben 30 + 15 = 45.
#  Faces Anna threw: 6 6 6 2 3 | 2 2 | 3 3 1 5 6 | 3 5 6 | 3 6   -> 1:1 2:3 3:5 4:0 5:2 6:6 (17 faces)
#  Faces Ben threw:  1 2 3 4 5 | 2 2 4 4 1                      -> 1:2 2:3 3:1 4:3 5:1 6:0 (10 faces)
#  Turns: Anna one of 2 throws and one of 3; Ben two of 1.
GAME_ONE = [
    throw(0, [6, 6, 6, 2, 3]),
    throw(0, [6, 6, 6, 2, 2], (0, 1, 2)),
    stand(0),
    throw(1, [1, 2, 3, 4, 5]),
    stand(1),
    throw(1, [2, 2, 4, 4, 1]),
    stand(1),
    throw(0, [3, 3, 1, 5, 6]),
    throw(0, [3, 3, 3, 5, 6], (0, 1)),
    throw(0, [3, 3, 3, 3, 6], (0, 1, 2)),
]


def import_game(device: Device, game: str, players: list[str], actions: list[dict[str, Any]], **settings: Any) -> str:
    log = GameLog.new(game, players, settings)
    for action in actions:
        log.play(action)
    r = device.post("/api/games/import", data=log.to_jsonl().encode(), content_type="text/plain")
    assert r.status_code == 201, r.json
    game_id: str = r.json["game"]["id"]
    return game_id


@pytest.fixture
def history(client: Device) -> dict[str, str]:
    """Game one (finished by its owner), then Ben and cleo (typed in lower case) with Ben's five fours, left open."""
    one = import_game(client, "bone", ["Anna", "Ben"], GAME_ONE, rounds=2)
    assert client.post(f"/api/games/{one}/finish").status_code == 200
    two = import_game(client, "bone", ["ben", "cleo"], [throw(0, [4, 4, 4, 4, 4])], rounds=2)
    return {"one": one, "two": two}


def player_ids(device: Device) -> dict[str, int]:
    return {p["name"]: p["id"] for p in device.get("/api/players").json["players"]}


# ---------------------------------------------------------------------------------------------- players


def test_a_name_typed_again_in_any_case_is_the_same_player(client: Device, history: dict[str, str]) -> None:
    players = client.get("/api/players").json["players"]
    assert sorted(p["name"] for p in players) == ["Anna", "Ben", "cleo"]  # "ben" is Ben, kept as first typed
    games = {p["name"]: p["games"] for p in players}
    assert games == {"Anna": 1, "Ben": 2, "cleo": 1}
    assert players[0]["name"] in ("Ben", "cleo")  # most recently seen first


def test_rename_and_merge(client: Device, history: dict[str, str]) -> None:
    ids = player_ids(client)
    r = client.post(f"/api/players/{ids['cleo']}", json={"name": "Cleo"})
    assert r.status_code == 200 and "Cleo" in [p["name"] for p in r.json["players"]]
    ids["Cleo"] = ids.pop("cleo")
    # a name another entry has: refused, nothing changes
    r = client.post(f"/api/players/{ids['Cleo']}", json={"name": "anna"})
    assert r.status_code == 400 and "merge" in r.json["error"]
    assert set(player_ids(client)) == {"Anna", "Ben", "Cleo"}
    # Ben and Cleo sat at one table: two people
    r = client.post(f"/api/players/{ids['Cleo']}/merge", json={"into": ids["Ben"]})
    assert r.status_code == 409 and r.json["code"] == "illegal"
    # Cleo and Anna never did: Cleo's game becomes Anna's
    r = client.post(f"/api/players/{ids['Cleo']}/merge", json={"into": ids["Anna"]})
    assert r.status_code == 200
    assert {p["name"]: p["games"] for p in r.json["players"]} == {"Anna": 2, "Ben": 2}
    # a new game with the old name makes a new entry, with the merged one's name the merged player
    history_of_anna = client.get(f"/api/history?player={ids['Anna']}").json["games"]
    assert {g["id"] for g in history_of_anna} == {history["one"], history["two"]}
    # the game keeps the name as typed at its table
    two = next(g for g in history_of_anna if g["id"] == history["two"])
    assert [p["name"] for p in two["players"]] == ["ben", "cleo"]


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/api/players/999", {"name": "Zoe"}, 404),
        ("/api/players/1", {"name": ""}, 400),
        ("/api/players/1", {"name": "a\nb"}, 400),
        ("/api/players/1", {}, 400),
        ("/api/players/1/merge", {"into": "2"}, 400),
        ("/api/players/1/merge", {"into": 1}, 400),
        ("/api/players/1/merge", {"into": 999}, 404),
    ],
)
def test_bad_renames_and_merges_are_refused_and_change_nothing(
    client: Device, history: dict[str, str], path: str, body: dict[str, Any], status: int
) -> None:
    before = client.get("/api/players").json
    r = client.post(path, json=body)
    assert r.status_code == status, r.json
    assert client.get("/api/players").json == before


def test_another_device_sees_neither_the_games_nor_the_players(
    client: Device, history: dict[str, str], new_device: Callable[[], Device]
) -> None:
    stranger = new_device()
    assert stranger.get("/api/players").json["players"] == []
    assert stranger.get("/api/history").json["games"] == []
    r = stranger.post(f"/api/players/{player_ids(client)['Anna']}", json={"name": "Mallory"})
    assert r.status_code == 404
    assert stranger.get("/api/stats").json["stats"]["games"] == 0


def test_an_older_database_gets_its_players_when_opened(tmp_path: Path) -> None:
    """A database as the Becher before this one made it (no players tables): opened, every game's seats are linked,
    and it keeps working for the old tables."""
    path = tmp_path / "old.sqlite3"
    store = Store(path)
    for players in (["Anna", "Ben"], ["anna", "Cleo", "Ben"]):
        store.create(GameLog.new("bone", players, {}), "dev")
    store.close()
    with sqlite3.connect(path) as conn:
        conn.executescript("DROP TABLE game_players; DROP TABLE players; DROP TABLE digests;")
    store = Store(path)
    try:
        rows = store.conn().execute(
            "SELECT p.name, COUNT(*) FROM game_players gp JOIN players p ON p.id = gp.player_id GROUP BY p.id"
        )
        assert dict(rows.fetchall()) == {"Anna": 2, "Ben": 2, "Cleo": 1}
        assert len(store.list_games("dev")) == 2
    finally:
        store.close()


# ---------------------------------------------------------------------------------------------- history


def test_history_newest_first_with_winner_and_filters(client: Device, history: dict[str, str]) -> None:
    games = client.get("/api/history").json["games"]
    assert [g["id"] for g in games] == [history["two"], history["one"]]
    one = games[1]
    assert one["status"] == "finished" and one["winners"] == [0] and one["game"] == "bone"
    assert games[0]["status"] == "playing" and games[0]["winners"] is None
    ids = player_ids(client)
    assert [g["id"] for g in client.get(f"/api/history?player={ids['Anna']}").json["games"]] == [history["one"]]
    assert client.get("/api/history?game=sheet").json["games"] == []
    assert client.get("/api/history?player=x").status_code == 400


def test_history_page_lists_every_game_and_opens_each(client: Device, history: dict[str, str]) -> None:
    html = client.get("/history").get_data(as_text=True)
    assert html.index(history["two"]) < html.index(history["one"])
    assert f"/table/{history['one']}" in html and f"/history/{history['one']}" in html
    assert "Resume" in html  # the open game
    html = client.get("/history?player=" + str(player_ids(client)["Anna"])).get_data(as_text=True)
    assert history["one"] in html and history["two"] not in html


# ---------------------------------------------------------------------------------------------- statistics


def test_statistics_of_the_hand_made_history(client: Device, history: dict[str, str]) -> None:
    ids = player_ids(client)
    stats = client.get(f"/api/stats?players={ids['Anna']},{ids['Ben']}").json["stats"]
    assert stats["games"] == 2
    anna, ben = stats["players"]
    assert (anna["played"], anna["decided"], anna["won"], anna["win_rate"]) == (1, 1, 1, 1.0)
    assert (ben["played"], ben["decided"], ben["won"], ben["win_rate"]) == (2, 1, 0, 0.0)
    assert [p["points"] for p in anna["points"]] == [75] and anna["points_per_game"] == {"bone": 75}
    assert [p["points"] for p in ben["points"]] == [45]  # the open game has no final score yet
    assert anna["best"]["bone"]["points"] == 75
    assert anna["turns"] == {"1": 0, "2": 1, "3": 1}
    # Ben: two turns of one throw in game one, and game two's one throw so far
    assert ben["turns"] == {"1": 3, "2": 0, "3": 0}
    made = {c["id"]: (c["made"], c["final"]) for c in anna["hands"]["bone"]["categories"]}
    assert made["three"] == (1, 0) and made["pair"] == (1, 0) and made["full_house"] == (0, 1)
    assert made["four"] == (0, 1)
    ben_made = {c["id"]: c["made"] for c in ben["hands"]["bone"]["categories"] if c["made"]}
    assert ben_made == {"large_straight": 1, "two_pairs": 1, "five": 1}
    # expected threes on a first throw: 1200 of 7776 throws per turn; Anna had two turns
    expected = {c["id"]: c["expected"] for c in anna["hands"]["bone"]["categories"]}
    assert expected["three"] == pytest.approx(2 * 1200 / 7776, abs=0.01)
    assert stats["group"]["won"] == 1 and stats["group"]["played"] == 2
    # faces: Anna 1:1 2:3 3:5 4:0 5:2 6:6, Ben 1:2 2:3 3:1 4:3 5:1 6:0, and Ben's five fours
    dice = stats["dice"]["pip"]
    assert dice["counts"] == [3, 6, 6, 8, 3, 6] and dice["faces"] == 32
    assert dice["verdict"] == "fair" and dice["more"] == dice["needed"] - 32


def test_hand_odds_are_the_exact_ones(client: Device) -> None:
    from web.stats import hand_odds

    odds = hand_odds("pokerdice", {})
    # of 7776 throws: 3600 one pair, 1800 two pairs, 1200 three, 300 full house, 150 four, 6 five, 240 straights
    # (12345 and 23456, 120 orders each), and 480 with nothing (6*5*4*3*2 = 720 different... less the 240 straights)
    assert odds["pair"] == pytest.approx(3600 / 7776)
    assert odds["two_pairs"] == pytest.approx(1800 / 7776)
    assert odds["three"] == pytest.approx(1200 / 7776)
    assert odds["full_house"] == pytest.approx(300 / 7776)
    assert odds["four"] == pytest.approx(150 / 7776)
    assert odds["five"] == pytest.approx(6 / 7776)
    assert odds["straight"] == pytest.approx(240 / 7776)
    assert odds["high"] == pytest.approx(480 / 7776)
    # bone's small straight is four in a row, so it takes pairs and high dice; its large straight is any five in a row
    odds = hand_odds("bone", {})
    assert odds["large_straight"] == pytest.approx(240 / 7776)
    assert odds["three"] == pytest.approx(1200 / 7776)
    assert sum(odds.values()) == pytest.approx(1.0)


def test_statistics_filters(client: Device, history: dict[str, str], app: Flask) -> None:
    store = app.extensions["becher.store"]
    with store._write() as conn:  # game one was played on the last day of March
        conn.execute("UPDATE games SET created = 1743422400 WHERE id = ?", (history["one"],))  # 2025-03-31 12:00
    assert client.get("/api/stats?since=2025-04-01").json["stats"]["games"] == 1
    assert client.get("/api/stats?until=2025-03-31").json["stats"]["games"] == 1
    assert client.get("/api/stats?since=2025-03-31&until=2025-03-31").json["stats"]["games"] == 1
    assert client.get("/api/stats?game=sheet").json["stats"]["games"] == 0
    assert client.get(f"/api/stats?game_id={history['two']}").json["stats"]["dice"]["pip"]["counts"] == [
        0,
        0,
        0,
        5,
        0,
        0,
    ]
    for bad in ("since=31.3.2025", "game=chess", "dice=loaded", "players=anna"):
        r = client.get("/api/stats?" + bad)
        assert r.status_code == 400 and r.json["code"] == "malformed", bad


def test_the_statistics_page_draws_the_charts_with_their_figures_in_text(
    client: Device, history: dict[str, str]
) -> None:
    html = client.get("/stats").get_data(as_text=True)
    assert html.count("<svg class='chart") >= 4  # wins, points, hands against the odds, throws per turn, dice
    assert "<script" not in html.split("<main", 1)[1].split("</main>", 1)[0]  # drawn on the server, no script
    assert "32 faces: no sign of an unfair die." in html
    assert "visually-hidden'><table><caption>Pip dice: how often each face came up</caption>" in html


def test_the_statistics_page_speaks_the_readers_language(client: Device, history: dict[str, str]) -> None:
    html = client.get("/stats", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "Sind die Würfel fair?" in html and "Würfe pro Zug" in html


# ---------------------------------------------------------------------------------------------- CSV


def read_csv(raw: bytes) -> list[list[str]]:
    assert raw.startswith(b"\xef\xbb\xbf")  # the byte-order mark spreadsheets need to read UTF-8
    assert b"\r\n" in raw
    return list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))


def test_history_csv(client: Device, history: dict[str, str]) -> None:
    import_game(client, "bone", ["=1+1", "Zoë"], [], rounds=2)
    r = client.get("/api/history.csv")
    assert r.mimetype == "text/csv" and "attachment" in r.headers["Content-Disposition"]
    rows = read_csv(r.data)
    assert rows[0] == ["date_utc", "game", "game_name", "players", "winners", "status", "id"] + [
        f"{column}_{seat}" for seat in (1, 2) for column in ("player", "score", "place")
    ]
    assert rows[1][3] == "'=1+1, Zoë"  # names as typed; a formula is kept as text
    one = next(row for row in rows if row[6] == history["one"])
    assert one[1:6] == ["bone", "Dice poker (Bone)", "Anna, Ben", "Anna", "finished"]
    # each player's final score and place (Anna 35 + 40 = 75 first, Ben 30 + 15 = 45 second)
    assert one[7:] == ["Anna", "75", "1", "Ben", "45", "2"]
    two = next(row for row in rows if row[6] == history["two"])
    assert two[5] == "playing" and two[7:] == ["ben", "0", "1", "cleo", "0", "1"]  # so far: nobody stood yet


def test_history_csv_writes_negative_scores_as_numbers_and_pads_smaller_games(client: Device) -> None:
    """A score sheet ends below zero; its scores stay numbers a spreadsheet sums (a name starting with '-' stays
    text), and a two-player game leaves the third seat's cells empty beside a three-player one."""
    import_game(client, "bone", ["-Anna", "Ben", "Cleo"], [], rounds=2)
    sheet = import_game(client, "sheet", ["Dora", "Emil"], [])
    from web import history as history_module

    line = history_module.Line("x", "sheet", 0.0, "finished", ("-Dora", "Emil"), (1, 2), (1,), (-200, 40), (2, 1))
    rows = list(csv.reader(io.StringIO(history_module.history_csv([line], str).lstrip("\ufeff"))))
    assert rows[1][7:] == ["'-Dora", "-200", "2", "Emil", "40", "1"]
    rows = read_csv(client.get("/api/history.csv").data)
    assert rows[0][-3:] == ["player_3", "score_3", "place_3"]
    two_players = next(row for row in rows if row[6] == sheet)
    assert two_players[-3:] == ["", "", ""]


def test_throws_csv_counts_only_the_dice_thrown(client: Device, history: dict[str, str]) -> None:
    rows = read_csv(client.get(f"/api/games/{history['one']}/throws.csv").data)
    assert rows[0] == ["game_id", "game", "time_utc", "action", "player", "type", "dice", "held", "thrown", "photo"]
    assert len(rows) == 1 + 7  # seven throws
    second = rows[2]
    assert second[3:9] == ["2", "Anna", "throw", "6 6 6 2 2", "1 2 3", "2 2"]
    everything = read_csv(client.get("/api/throws.csv").data)
    assert len(everything) == 1 + 7 + 1
    assert client.get("/api/games/nope/throws.csv").status_code == 404
    # beside the JSON-lines export on the game's own history page
    page = client.get(f"/history/{history['one']}").get_data(as_text=True)
    assert f"/api/games/{history['one']}/export" in page and f"/api/games/{history['one']}/throws.csv" in page


def test_block_csv_is_the_score_block_as_the_table_shows_it(
    client: Device, history: dict[str, str], new_device: Callable[[], Device]
) -> None:
    """Game one's block: a row per round, a column per player, each hand as named with its points and dice; the
    totals as numbers; in the reader's language; linked from the game's history page; private as the game."""
    r = client.get(f"/api/games/{history['one']}/block.csv")
    assert r.mimetype == "text/csv" and f"becher-bone-{history['one']}-block.csv" in r.headers["Content-Disposition"]
    rows = read_csv(r.data)
    assert rows == [
        ["Round", "Anna", "Ben"],
        ["1", "Full house · 35 · 6 6 6 2 2", "Large straight · 30 · 1 2 3 4 5"],
        ["2", "Four of a kind · 40 · 3 3 3 3 6", "Two pairs · 15 · 2 2 4 4 1"],
        ["Total", "75", "45"],
    ]
    german = read_csv(client.get(f"/api/games/{history['one']}/block.csv", headers={"Accept-Language": "de"}).data)
    assert german[0] == ["Runde", "Anna", "Ben"] and german[-1] == ["Gesamt", "75", "45"]
    page = client.get(f"/history/{history['one']}").get_data(as_text=True)
    assert f"/api/games/{history['one']}/block.csv" in page
    assert client.get("/api/games/nope/block.csv").status_code == 404
    assert new_device().get(f"/api/games/{history['one']}/block.csv").status_code in (403, 404)


def test_block_csv_of_the_score_sheet_keeps_each_column_one_field() -> None:
    """The sheet's header spans a player's columns and its 'Row' spans two header rows: empty cells keep every
    later cell under its own column; a sign alone is written in the sheet's words for it."""
    from web.history import block_csv

    html = """<table class="score sheet"><caption>Score sheet</caption>
      <thead><tr><th rowspan="2">Row</th><th colspan="2">Anna</th><th colspan="2">Ben</th></tr>
      <tr><th>1</th><th><span aria-hidden="true">★</span><span class="visually-hidden">Bonus</span></th>
          <th>1</th><th><span aria-hidden="true">★</span><span class="visually-hidden">Bonus</span></th></tr></thead>
      <tbody><tr><th>Pair</th>
          <td><span title="2 2 3 4 5"><span class="cell-struck" aria-label="struck by choice">—</span></span></td>
          <td></td><td><span class="cell-zero" aria-label="zero, minus 200">0</span>
          <a class="photo-link" href="/p"><img alt="Photo of Ben's throw"></a></td><td></td></tr></tbody>
      <tfoot><tr><th>Total</th><td colspan="2">-200</td><td colspan="2">40</td></tr></tfoot></table>
      <ul class="legend"><li>✕ closed</li></ul>"""
    rows = list(csv.reader(io.StringIO(block_csv(html).lstrip("\ufeff"))))
    assert rows == [
        ["Row", "Anna", "", "Ben", ""],
        ["", "1", "Bonus", "1", "Bonus"],
        ["Pair", "struck by choice", "", "0", ""],
        ["Total", "-200", "", "40", ""],
    ]


# ---------------------------------------------------------------------------------------------- becher stats


def test_becher_stats_prints_what_the_api_answers(
    client: Device, history: dict[str, str], app: Flask, capsys: pytest.CaptureFixture[str]
) -> None:
    api = client.get("/api/stats?game=bone").json["stats"]
    assert cli_main(["stats", "--db", app.config["DATABASE"], "--game", "bone"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["stats"] == api
    assert cli_main(["stats", "--db", app.config["DATABASE"], "--player", "ANNA"]) == 0
    assert [p["name"] for p in json.loads(capsys.readouterr().out)["stats"]["players"]] == ["Anna"]
    assert cli_main(["stats", "--db", app.config["DATABASE"], "--since", "March"]) == 2
    assert "--since" in capsys.readouterr().err


def test_becher_stats_names_the_players_for_an_unknown_one(
    client: Device, history: dict[str, str], app: Flask, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A command-line user who names nobody gets the players there are (and the likeliest one), not a web route."""
    assert cli_main(["stats", "--db", app.config["DATABASE"], "--player", "Ana"]) == 2
    err = capsys.readouterr().err
    assert "No player is called 'Ana'" in err and "Did you mean 'Anna'?" in err
    assert all(name in err for name in ("Anna", "Ben", "cleo")) and "/api/" not in err
    empty = tmp_path / "empty.sqlite3"
    Store(empty).close()
    assert cli_main(["stats", "--db", str(empty), "--player", "Anna"]) == 2
    assert "no players yet" in capsys.readouterr().err


def test_poker_dice_are_judged_apart_over_their_six_faces(client: Device) -> None:
    game = import_game(
        client,
        "pokerdice",
        ["Anna", "Ben"],
        [throw(0, [6, 6, 6, 6, 1]), throw(0, [6, 6, 6, 6, 6], (0, 1, 2, 3)), stand(0)],
        dice="poker",
    )
    dice = client.get("/api/stats").json["stats"]["dice"]
    # five faces, then only the rethrown fifth die: A A A A 9 | A
    assert dice["poker"]["counts"] == [1, 0, 0, 0, 0, 5] and dice["pip"]["faces"] == 0
    rows = read_csv(client.get(f"/api/games/{game}/throws.csv").data)
    assert [r[6:9] for r in rows[1:]] == [["A A A A 9", "", "A A A A 9"], ["A A A A A", "1 2 3 4", "A"]]


def test_digests_are_warmed_ahead_of_the_first_visit(client: Device, history: dict[str, str], app: Flask) -> None:
    from web.stats import warm_digests

    store = app.extensions["becher.store"]
    assert warm_digests(store, pause=0) == 2  # none cached yet (the history fixture only wrote games)
    cached = dict(store.conn().execute("SELECT game_id, revision FROM digests").fetchall())
    assert cached == {gid: store.row(gid).revision for gid in history.values()}
    assert warm_digests(store, pause=0) == 0
    client.play(history["two"], stand(0))  # a game changed: only it is digested again
    assert warm_digests(store, pause=0) == 1
    with store._write() as conn:  # a digest an older Becher wrote (no places): digested again after an upgrade
        conn.execute("UPDATE digests SET digest = json_set(digest, '$.v', 1) WHERE game_id = ?", (history["one"],))
    assert warm_digests(store, pause=0) == 1
    assert warm_digests(store, pause=0) == 0
