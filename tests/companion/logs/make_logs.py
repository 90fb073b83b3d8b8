"""Write the whole-game logs replayed by tests/companion/test_replays.py: one per game and mode, played by
random legal actions from fixed seeds. Run from the repository root: ``python -m tests.companion.logs.make_logs``.

The expected standings live in the test, typed in after reading each game once; regenerating a log
means reviewing its standings again. tests/companion/test_referee.py replays every log with a second
referee written apart from the engine; the hand-written games (hand-*.jsonl) are in test_hand_replays.py.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from companion.core import GameLog
from tests.companion.play import random_game

HERE = Path(__file__).parent

GAMES: dict[str, tuple[str, list[str], dict[str, object], int]] = {
    "classic-strikes": ("classic", ["Anna", "Bert", "Clara", "Dieter"], {}, 7),
    "classic-points": ("classic", ["Anna", "Bert", "Clara"], {"mode": "points"}, 3),
    "classic-bluff": ("classic", ["Anna", "Bert", "Clara"], {"mode": "bluff"}, 5),
    "classic-house-rules": (
        "classic",
        ["Anna", "Bert", "Clara"],
        {"held_fixed": True, "ace_joker": True, "blind_first_throw": True, "gap_straight": True},
        11,
    ),
    "bone": ("bone", ["Ada", "Ben", "Cem", "Dora"], {}, 2),
    "pokerdice": ("pokerdice", ["Ada", "Ben", "Cem"], {}, 4),
}


def make(name: str) -> GameLog:
    game, players, settings, seed = GAMES[name]
    return random_game(GameLog.new(game, players, settings), random.Random(seed))


def main() -> None:
    for name in GAMES:
        log = make(name)
        (HERE / f"{name}.jsonl").write_text(log.to_jsonl(), encoding="utf-8")
        standings = [(s.name, s.place, s.score) for s in log.standings()]
        print(name, len(log), json.dumps(standings, ensure_ascii=False), log.outcome())


if __name__ == "__main__":
    main()
