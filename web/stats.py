"""Statistics over the stored games: per player and per group, for a period and a game, and the dice's fairness.

Each game is reduced once to a *digest* (who won, each seat's points, the faces each seat threw, the hands of the
turns and the throws they took) by folding its log through the rules; digests are kept in the ``digests`` table
per game revision, so the page folds only games that changed since it was last shown. The figures are then sums
over digests: the page, the API and ``becher stats`` all call :func:`figures`, so they never disagree.

What counts, and why:

- A *face* is one die thrown: the first throw of a turn counts five faces, a rethrow only the dice not held from
  the throw before (a held die shows the face it showed, it was not thrown again). The board game's three dice and
  its roll-off die count; entered sheet hands count only when they were the turn's first throw of all five dice
  (without recorded throws the dice held in between are unknown); a classic bluff's cup is never seen thrown.
- A *turn* is a run of throws of five dice by one player with nothing between them, at most three.
- *Hands against the odds*: the hand of each turn's first throw (five fresh dice, no choice of the player in it)
  against the exact probability of that hand in one throw under the game's own ranking and house rules
  (:func:`companion.advice.rethrow_outcomes`, the advisor's multinomial odds), so luck shows and skill does not
  blur it. The hands finally stood on are counted too (``final``), without odds: they depend on the holds chosen.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from companion.core import GameLog, Setup, rules_for
from companion.errors import BecherError
from companion.fairness import judge

JSON = dict[str, Any]
DIGEST_VERSION = 2  # 2: each seat's place (the history CSV's)
HAND_GAMES = frozenset({"bone", "classic", "pokerdice"})  # games whose hands are categories of companion.hands
LOWER_IS_BETTER = frozenset({"classic"})  # its score counts strikes
MAX_THROWS = 3

__all__ = ["Filter", "digest_of", "digests", "figures", "hand_odds", "warm_digests"]


# ---------------------------------------------------------------------------------------------- one game


def _faces_of(action: Mapping[str, Any], previous: Mapping[str, Any] | None) -> list[int]:
    """The dice this action shows thrown (ranks), per the rules in the module docstring."""
    kind = action.get("type")
    dice = [int(d) for d in action.get("dice") or []]
    if kind == "throw":
        held = set(action.get("held") or [])
        return [d for i, d in enumerate(dice) if i not in held]
    if kind == "roll_off":
        return dice
    if kind == "enter" and dice and action.get("throw") == 1:
        same_turn = previous is not None and previous.get("type") == "throw"
        return [] if same_turn else dice
    return []


def digest_of(game: str, setup: Mapping[str, Any], actions: Sequence[Mapping[str, Any]]) -> JSON:
    """Reduce one game's log to what the statistics need (the fold gives winners and scores)."""
    stored = Setup(game, tuple(setup["players"]), tuple(dict(setup.get("settings") or {}).items()))
    return digest_of_log(GameLog(rules_for(game), stored, actions))


def digest_of_log(log: GameLog) -> JSON:
    """The digest of a log already folded (what a writer holds after an action: no second fold)."""
    game = log.setup.game
    seats = len(log.setup.players)
    outcome = log.outcome()
    lines = log.standings()
    standings = {s.player: s.score for s in lines}
    places = {s.player: s.place for s in lines}
    faces = [[0] * 6 for _ in range(seats)]
    turns: list[Counter[int]] = [Counter() for _ in range(seats)]
    first: list[Counter[str]] = [Counter() for _ in range(seats)]
    final: list[Counter[str]] = [Counter() for _ in range(seats)]
    rules = log.rules
    hands = game in HAND_GAMES

    def close(run: list[Mapping[str, Any]]) -> None:
        if not run:
            return
        seat = int(run[0]["player"])
        turns[seat][len(run)] += 1
        if hands:
            first[seat][str(rules.hand(tuple(run[0]["dice"]), log.setup)["category"])] += 1
            final[seat][str(rules.hand(tuple(run[-1]["dice"]), log.setup)["category"])] += 1

    run: list[Mapping[str, Any]] = []
    previous: Mapping[str, Any] | None = None
    for record in log.actions:
        action = record.to_json()
        seat = action.get("player")
        for d in _faces_of(action, previous):
            if isinstance(seat, int) and 0 <= seat < seats:
                faces[seat][d - 1] += 1
        five = action.get("type") == "throw" and len(action.get("dice") or []) == 5
        if five and run and run[-1]["player"] == seat and len(run) < MAX_THROWS:
            run.append(action)
        else:
            close(run)
            run = [action] if five else []
        previous = action
    close(run)
    return {
        "v": DIGEST_VERSION,
        "game": game,
        "dice": log.setup.dice_kind.value,
        "settings": dict(log.setup.settings),
        "names": list(log.setup.players),
        "winners": list(outcome.winners) if outcome else None,
        "scores": [standings.get(i) for i in range(seats)],
        "places": [places.get(i) for i in range(seats)],
        "faces": faces,
        "turns": [{str(k): v for k, v in sorted(t.items())} for t in turns],
        "first": [dict(c) for c in first],
        "final": [dict(c) for c in final],
    }


@lru_cache(maxsize=64)
def _odds(game: str, settings: str) -> tuple[tuple[str, float], ...]:
    from companion.advice import rethrow_outcomes

    rules = rules_for(game)
    setup = rules.make_setup([f"P{i}" for i in range(rules.min_players)], json.loads(settings))
    odds: dict[str, float] = {}
    for dice, p in rethrow_outcomes(5):
        category = str(rules.hand(dice, setup)["category"])
        odds[category] = odds.get(category, 0.0) + p
    return tuple(odds.items())


def hand_odds(game: str, settings: Mapping[str, Any]) -> dict[str, float]:
    """The exact chance of each hand category in one throw of five fair dice, under this game's settings."""
    return dict(_odds(game, json.dumps(dict(settings), sort_keys=True)))


def categories(game: str) -> list[tuple[str, str]]:
    """The game's hand categories, lowest first, as (id, English label): the order the charts list them in."""
    from companion.hands import _CATEGORIES

    return [(c.id, c.label_en) for c in _CATEGORIES.get(game, ())]


# ---------------------------------------------------------------------------------------------- stored games


def digests(store: Any, game_ids: Iterable[str] | None = None) -> dict[str, JSON]:
    """The digest of each game (all games without ``game_ids``), from the cache table where the revision is current;
    the others are folded now and written back. A game whose rules this build lacks is left out."""
    conn: sqlite3.Connection = store.conn()
    rows = conn.execute(
        "SELECT g.id, g.game, g.setup, g.revision, g.created, g.finished, g.over, d.revision AS drev, d.digest"
        " FROM games g LEFT JOIN digests d ON d.game_id = g.id"
    ).fetchall()
    wanted = None if game_ids is None else set(game_ids)
    out: dict[str, JSON] = {}
    fresh: list[tuple[str, int, str]] = []
    for r in rows:
        if wanted is not None and r["id"] not in wanted:
            continue
        dig = None
        if r["drev"] == r["revision"]:
            dig = json.loads(r["digest"])
            if dig.get("v") != DIGEST_VERSION:
                dig = None
        if dig is None:
            actions = [
                json.loads(a[0])
                for a in conn.execute("SELECT action FROM actions WHERE game_id = ? ORDER BY n", (r["id"],))
            ]
            try:
                dig = digest_of(r["game"], json.loads(r["setup"]), actions)
            except BecherError:
                continue
            fresh.append((r["id"], r["revision"], json.dumps(dig, ensure_ascii=False)))
        dig["id"] = r["id"]
        dig["created"] = r["created"]
        dig["status"] = "finished" if r["finished"] is not None else ("over" if r["over"] else "playing")
        out[r["id"]] = dig
    if fresh:
        with store._write() as wconn:
            wconn.executemany(
                "INSERT OR REPLACE INTO digests (game_id, revision, digest) SELECT ?, ?, ?"
                " WHERE EXISTS (SELECT 1 FROM games WHERE id = ?)",
                [(gid, rev, text, gid) for gid, rev, text in fresh],
            )
    seats: dict[str, dict[int, int]] = {}
    for gp in conn.execute("SELECT game_id, seat, player_id FROM game_players").fetchall():
        seats.setdefault(str(gp[0]), {})[int(gp[1])] = int(gp[2])
    for gid, dig in out.items():
        dig["players"] = [seats.get(gid, {}).get(i) for i in range(len(dig["names"]))]
    return out


def warm_digests(store: Any, chunk: int = 25, pause: float = 0.02) -> int:
    """Digest every game whose digest is missing, stale or of an older ``DIGEST_VERSION``, a few games at a time
    with a pause between, so the first visit to the statistics after an upgrade (or a long evening) finds them
    ready. Run by ``becher serve`` in a background thread; a store closed meanwhile just ends it. Returns how many
    games were digested."""
    try:
        rows = store.conn().execute(
            "SELECT g.id FROM games g LEFT JOIN digests d ON d.game_id = g.id"
            " WHERE d.revision IS NULL OR d.revision != g.revision OR json_extract(d.digest, '$.v') IS NOT ?",
            (DIGEST_VERSION,),
        )
        ids = [str(r[0]) for r in rows.fetchall()]
        for i in range(0, len(ids), chunk):
            digests(store, ids[i : i + chunk])
            time.sleep(pause)
    except (sqlite3.Error, AttributeError):
        return 0
    return len(ids)


# ---------------------------------------------------------------------------------------------- figures


@dataclass(frozen=True)
class Filter:
    """Which games the figures are over: players (ids; empty: everyone), one kind of game, a period (UTC dates,
    both days included), one played game, the kind of dice."""

    players: tuple[int, ...] = ()
    game: str | None = None
    since: str | None = None
    until: str | None = None
    game_id: str | None = None
    dice: str | None = None

    def keeps(self, dig: Mapping[str, Any]) -> bool:
        day = datetime.fromtimestamp(float(dig["created"]), UTC).strftime("%Y-%m-%d")
        if self.game and dig["game"] != self.game:
            return False
        if self.game_id and dig["id"] != self.game_id:
            return False
        if self.dice and dig["dice"] != self.dice:
            return False
        if self.since and day < self.since:
            return False
        if self.until and day > self.until:
            return False
        return not self.players or any(p in self.players for p in dig["players"])


def _add(total: dict[str, float], part: Mapping[str, float]) -> None:
    for k, v in part.items():
        total[k] = total.get(k, 0) + v


def _hands(games: list[JSON], seats_of: Any) -> dict[str, JSON]:
    """Per game kind: first-throw hands made and expected (sum of each turn's exact odds), and final hands."""
    out: dict[str, JSON] = {}
    turns_by_rules: Counter[tuple[str, str]] = Counter()  # turns per game and settings: their odds are one table
    for dig in games:
        if dig["game"] not in HAND_GAMES:
            continue
        entry = out.setdefault(dig["game"], {"made": {}, "expected": {}, "final": {}, "turns": 0})
        for seat in seats_of(dig):
            made = dig["first"][seat]
            turns = sum(made.values())
            entry["turns"] += turns
            _add(entry["made"], made)
            _add(entry["final"], dig["final"][seat])
            if turns:
                turns_by_rules[(dig["game"], json.dumps(dig["settings"], sort_keys=True))] += turns
    for (game, settings), turns in turns_by_rules.items():
        _add(out[game]["expected"], {k: p * turns for k, p in _odds(game, settings)})
    for game, entry in out.items():
        order = [c for c, _ in categories(game)]
        entry["categories"] = [
            {
                "id": c,
                "label_en": dict(categories(game))[c],
                "made": int(entry["made"].get(c, 0)),
                "expected": round(entry["expected"].get(c, 0.0), 2),
                # the exact chance per turn (not the rounded count over the turns): the same odds read alike in
                # every filter, a 6.17 % never shows as 6.2 % in one view and 6.3 % in another
                "odds": round(entry["expected"].get(c, 0.0) / entry["turns"], 9) if entry["turns"] else None,
                "final": int(entry["final"].get(c, 0)),
            }
            for c in order
        ]
        for key in ("made", "expected", "final"):
            del entry[key]
    return out


def _turns(games: list[JSON], seats_of: Any) -> dict[str, int]:
    total: dict[str, float] = {}
    for dig in games:
        for seat in seats_of(dig):
            _add(total, dig["turns"][seat])
    return {str(k): int(total.get(str(k), 0)) for k in range(1, MAX_THROWS + 1)}


def _player_figures(pid: int, name: str, games: list[JSON]) -> JSON:
    mine = [g for g in games if pid in g["players"]]

    def seats(dig: JSON) -> list[int]:
        return [i for i, p in enumerate(dig["players"]) if p == pid]

    won = [g for g in mine if g["winners"] and any(s in g["winners"] for s in seats(g))]
    decided = [g for g in mine if g["winners"] is not None]
    points = []
    best: dict[str, JSON] = {}
    for g in sorted(mine, key=lambda d: d["created"]):
        if g["game"] in LOWER_IS_BETTER or g["winners"] is None:
            continue  # strikes are no points; a game not over yet has no final score
        score = g["scores"][seats(g)[0]]
        if score is None:
            continue
        at = datetime.fromtimestamp(float(g["created"]), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        points.append({"game": g["id"], "day": at[:10], "at": at, "kind": g["game"], "points": score})
        kind = g["game"]
        if kind not in best or score > best[kind]["points"]:
            best[kind] = points[-1]
    per_game: dict[str, float] = {}
    for kind in sorted({p["kind"] for p in points}):
        scores = [p["points"] for p in points if p["kind"] == kind]
        per_game[kind] = round(sum(scores) / len(scores), 2)
    return {
        "id": pid,
        "name": name,
        "played": len(mine),
        "decided": len(decided),
        "won": len(won),
        "win_rate": round(len(won) / len(decided), 4) if decided else None,
        "points": points,
        "points_per_game": per_game,
        "best": best,
        "hands": _hands(mine, seats),
        "turns": _turns(mine, seats),
    }


def figures(
    store: Any, flt: Filter, game_ids: Iterable[str] | None = None, names: Mapping[int, str] | None = None
) -> JSON:
    """Every figure of the statistics page for the games in ``game_ids`` (all without) that ``flt`` keeps, about
    the players in ``names`` (id: name; every player without): a device is told of no other."""
    from web.players import players as all_players

    dig = digests(store, game_ids)
    games = sorted((d for d in dig.values() if flt.keeps(d)), key=lambda d: d["created"])
    if names is None:
        names = {p.id: p.name for p in all_players(store.conn())}
    chosen = list(flt.players)
    if not chosen:
        counts: Counter[int] = Counter(p for g in games for p in g["players"] if p is not None)
        chosen = [p for p, _ in counts.most_common(8)]
    people = [_player_figures(pid, names.get(pid, "?"), games) for pid in chosen if pid in names]

    def group_seats(d: JSON) -> list[int]:
        return [i for i, p in enumerate(d["players"]) if p in chosen]

    group_won = [g for g in games if g["winners"] and any(s in g["winners"] for s in group_seats(g))]
    decided = [g for g in games if g["winners"] is not None]
    dice: JSON = {}
    for kind in ("pip", "poker"):
        counts6 = [0] * 6
        for g in games:
            if g["dice"] == kind:
                for seat in g["faces"]:
                    counts6 = [a + b for a, b in zip(counts6, seat, strict=True)]
        if sum(counts6) or kind == "pip":
            dice[kind] = judge(counts6).to_json()
    return {
        "filter": {
            "players": list(flt.players),
            "game": flt.game,
            "since": flt.since,
            "until": flt.until,
            "game_id": flt.game_id,
            "dice": flt.dice,
        },
        "games": len(games),
        "players": people,
        "group": {
            "players": [p["id"] for p in people],
            "played": len(games),
            "decided": len(decided),
            "won": len(group_won),
            "win_rate": round(len(group_won) / len(decided), 4) if decided and flt.players else None,
            "hands": _hands(games, group_seats),
            "turns": _turns(games, group_seats),
        },
        "dice": dice,
    }
