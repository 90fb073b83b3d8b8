"""Write the board game's checked-in test data: the golden hand listing and a whole match as an action log.

Run from the repository root: ``python tests/companion/golden/make_board_golden.py``.
- ``board_hands.txt``: all 56 three-dice hands, weakest first; the test
  ``test_board_all_56_hands_match_the_golden_listing`` compares with it. Review it by eye whenever it changes.
- ``../logs/board_match.jsonl``: a match Anna wins 5:4 over three games (a tied roll-off, the loser of each game
  starting the next, a row decided by placement order); ``test_board_match.py`` replays it.
"""

from __future__ import annotations

from itertools import combinations_with_replacement
from pathlib import Path

from companion.board_hands import rank_row
from companion.core import GameLog

GOLDEN = Path(__file__).with_name("board_hands.txt")
MATCH_LOG = Path(__file__).parent.parent / "logs" / "board_match.jsonl"

Side = list[list[int]]
# Each game as (Anna's rows, Ben's rows), top row first.
MATCH_GAMES: list[tuple[Side, Side]] = [
    # Ben 2:1: 4-4 over 3-3, three 1s over a straight; Anna's 2-2 over a single.
    ([[3, 3, 5], [6, 5, 4], [2, 2, 1]], [[4, 4, 1], [1, 1, 1], [6, 5, 2]]),
    # Anna 2:1: 6-6-2 over 6-6-1, 1-1-6 over 6-5-2; Ben's three 2s over a straight.
    ([[6, 6, 2], [3, 4, 5], [1, 1, 6]], [[6, 6, 1], [2, 2, 2], [5, 6, 2]]),
    # Anna 2:1: three 6s over three 5s, 2-2-3 over a single; identical 4-3-1 in row 2 go to Ben, whose third
    # die there was placed 11th, Anna's 12th.
    ([[6, 6, 6], [4, 3, 1], [2, 2, 3]], [[5, 5, 5], [4, 3, 1], [1, 2, 5]]),
]


def listing() -> str:
    hands = [rank_row(dice) for dice in combinations_with_replacement(range(1, 7), 3)]
    hands.sort()
    lines = ["# rank  dice   category         key        (weakest first; all 56 multisets of three dice)"]
    for rank, hand in enumerate(hands, start=1):
        dice = "-".join(str(v) for v in hand.dice)
        category = hand.to_json()["category"]
        lines.append(f"{rank:>6}  {dice}  {category:<15}  {list(hand.key)}")
    return "\n".join(lines) + "\n"


def play_game(log: GameLog, rows: tuple[Side, Side]) -> None:
    """Play one game so each side ends as given: per throw the thrower places two dice, the opponent one."""
    queues = [[(value, row) for row, dice in enumerate(rows[seat]) for value in dice] for seat in (0, 1)]
    for _ in range(6):
        thrower = log.to_move()
        assert thrower is not None
        first, second = queues[thrower].pop(0), queues[thrower].pop(0)
        middle = queues[1 - thrower].pop(0)
        log.play({"type": "throw", "player": thrower, "dice": [first[0], middle[0], second[0]]})
        for die, (player, (_, row)) in enumerate([(thrower, first), (1 - thrower, middle), (thrower, second)]):
            slot = log.state.games[-1].free_slots(row, player)[0]
            log.play({"type": "place", "player": player, "die": die, "row": row, "slot": slot})


def match_log() -> str:
    log = GameLog.new("board", ["Anna", "Ben"])
    for seat, die in ((0, 3), (1, 3), (0, 2), (1, 5)):  # a tie, then Ben starts
        log.play({"type": "roll_off", "player": seat, "dice": [die]})
    for rows in MATCH_GAMES:
        play_game(log, rows)
    assert log.outcome() is not None
    return log.to_jsonl()


if __name__ == "__main__":
    GOLDEN.write_text(listing(), encoding="utf-8")
    MATCH_LOG.write_text(match_log(), encoding="utf-8")
    print(f"wrote {GOLDEN} and {MATCH_LOG}")
