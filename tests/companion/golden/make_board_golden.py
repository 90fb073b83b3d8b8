"""Write the golden listing of all 56 three-dice hands of the board game, weakest first.

Run from the repository root: ``python tests/companion/golden/make_board_golden.py``. The test
``test_board_all_56_hands_match_the_golden_listing`` builds the same text and compares; review the
file by eye whenever it changes.
"""

from __future__ import annotations

from itertools import combinations_with_replacement
from pathlib import Path

from companion.board_hands import rank_row

GOLDEN = Path(__file__).with_name("board_hands.txt")


def listing() -> str:
    hands = [rank_row(dice) for dice in combinations_with_replacement(range(1, 7), 3)]
    hands.sort()
    lines = ["# rank  dice   category         key        (weakest first; all 56 multisets of three dice)"]
    for rank, hand in enumerate(hands, start=1):
        dice = "-".join(str(v) for v in hand.dice)
        category = hand.to_json()["category"]
        lines.append(f"{rank:>6}  {dice}  {category:<15}  {list(hand.key)}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    GOLDEN.write_text(listing(), encoding="utf-8")
    print(f"wrote {GOLDEN}")
