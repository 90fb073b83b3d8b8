"""How long the statistics page (and the history) takes with many games in the database.

Builds a database of ``--games`` games (default 1000) played to the end by random players through the rules engine
(every game of Becher, eight regulars at the table, a game every day or so), then times ``GET /stats`` and
``GET /history`` as the host's browser sees them: first with no digest cached (the first visit after an upgrade,
every game folded once), then warm (only the sums), then after one more game was played.

    python benchmarks/stats_page.py [--games 1000] [--db PATH] [--repeat 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.core import GameLog

PEOPLE = ["Anna", "Ben", "Cleo", "Dana", "Emil", "Fiete", "Greta", "Hans"]
GAMES = ["bone", "bone", "classic", "pokerdice", "sheet", "board"]


def random_game(game: str, players: list[str], rng: random.Random) -> GameLog:
    """A whole game: each step a random legal option, dice thrown at random (holds chosen at random)."""
    settings = {"dice": "poker"} if game == "pokerdice" and rng.random() < 0.5 else {}
    log = GameLog.new(game, players, settings)
    for _ in range(3000):
        summary = log.summary()
        options = summary["options"]
        if log.outcome() is not None or not options:
            break
        option = rng.choice(options)
        action: dict[str, Any] = {"type": option.get("type") or option["action"], "player": option["player"]}
        action.update(option.get("fields") or {})
        if not option.get("fields"):
            for key in ("count", *(("row", "die", "side") if game == "board" else ())):
                if key in option:
                    action[key] = option[key]
        if action["type"] in ("throw", "roll_off") and "dice" not in action:
            count = 1 if action["type"] == "roll_off" else (3 if game == "board" else 5)
            before = (summary["view"].get("turn") or {}).get("dice") or []
            held = list(option.get("must_hold") or [])
            if count == 5 and len(before) == 5 and option.get("throw", 1) > 1 and rng.random() < 0.8:
                held = sorted(set(held) | set(rng.sample(range(5), rng.randint(0, 4))))
            action["dice"] = [before[i] if i in held else rng.randint(1, 6) for i in range(count)]
            if held or "held" in action:
                action["held"] = held
        log.play(action)
    return log


def build(path: Path, games: int, seed: int) -> None:
    from web.store import Store

    rng = random.Random(seed)
    store = Store(path)
    start = time.perf_counter()
    day = 86400.0
    first = time.time() - games * day * 0.8
    try:
        for i in range(games):
            game = rng.choice(GAMES)
            count = 2 if game == "board" else rng.randint(2, 4)
            view = store.create(random_game(game, rng.sample(PEOPLE, count), rng), "host")
            with store._write() as conn:  # spread over some two years, so the period filter has days to choose
                conn.execute("UPDATE games SET created = ? WHERE id = ?", (first + i * day * 0.8, view["id"]))
    finally:
        store.close()
    print(f"built {games} games in {time.perf_counter() - start:.1f} s ({path})")


def timed(client: Any, url: str, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        r = client.get(url, environ_base={"REMOTE_ADDR": "127.0.0.1"})
        out.append(time.perf_counter() - start)
        assert r.status_code == 200, (url, r.status_code)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--db", default=None, help="reuse (or build) this database")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=54)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="becher-stats-"))
    path = Path(args.db) if args.db else folder / "becher.sqlite3"
    if not path.exists():
        build(path, args.games, args.seed)

    from web.app import create_app

    app = create_app({"DATABASE": str(path), "LOCAL_IS_OWNER": True})
    store = app.extensions["becher.store"]
    with store._write() as conn:
        conn.execute("DELETE FROM digests")
    client = app.test_client()
    games = store.conn().execute("SELECT COUNT(*) FROM games").fetchone()[0]
    cold = timed(client, "/stats", 1)[0]
    print(f"{games} games; GET /stats, no digest cached (every game folded once): {cold * 1000:.0f} ms")
    for url in ("/stats", "/stats?game=bone", "/stats?players=1,2&since=2026-01-01", "/history", "/api/stats"):
        times = timed(client, url, args.repeat)
        print(f"GET {url} warm: median {statistics.median(times) * 1000:.0f} ms (min {min(times) * 1000:.0f})")
    rng = random.Random(args.seed + 1)
    store.create(random_game("bone", ["Anna", "Ben"], rng), "host")
    print(f"GET /stats after one more game: {timed(client, '/stats', 1)[0] * 1000:.0f} ms")
    app.extensions["becher.shutdown"]()
    store.close()


if __name__ == "__main__":
    main()
