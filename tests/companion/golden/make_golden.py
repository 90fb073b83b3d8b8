"""Write the golden rankings: all 252 multisets of five dice, best first, for each game and each house rule
that changes the order. Run from the repository root: ``python -m tests.companion.golden.make_golden``.

A listing is for reading: one hand a line with its rank (equal keys share a rank), dice, category,
German label and key. The test compares freshly computed listings with these files, so a change to
the ranking shows as a diff to review by eye.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from companion.dice import DiceKind, faces
from companion.hands import BONE, CLASSIC, POKERDICE, HandRules, evaluate

HERE = Path(__file__).parent

VARIANTS: dict[str, tuple[HandRules, DiceKind, str]] = {
    "classic": (CLASSIC, DiceKind.PIP, "classic, default rules"),
    "classic-ace-joker": (HandRules("classic", ace_joker=True), DiceKind.PIP, "classic, house rule: ace as joker"),
    "classic-gap-straight": (
        HandRules("classic", gap_straight=True),
        DiceKind.PIP,
        "classic, house rule: straight with a gap",
    ),
    "classic-straight-above-full-house": (
        HandRules("classic", straight_above_full_house=True),
        DiceKind.PIP,
        "classic, house rule: straight above full house",
    ),
    "bone": (BONE, DiceKind.PIP, "bone"),
    "pokerdice": (POKERDICE, DiceKind.POKER, "pokerdice (faces 9 10 J Q K A)"),
}


def listing(name: str) -> str:
    rules, kind, title = VARIANTS[name]
    # dice shown as the comparison reads them: bigger groups first, then higher values
    hands = [
        tuple(sorted(d, key=lambda v, d=d: (d.count(v), v), reverse=True))
        for d in itertools.combinations_with_replacement(range(1, 7), 5)
    ]
    ranked = sorted(((evaluate(d, rules), d) for d in hands), key=lambda rd: (rd[0].key, rd[1]), reverse=True)
    lines = [
        f"# {title}: all {len(ranked)} multisets of five dice, best first; equal keys share a rank.",
        "# rank  dice  category  label  key" + ("  stands-for" if rules.ace_joker else ""),
    ]
    rank = 0
    previous: tuple[int, ...] | None = None
    for i, (hand, dice) in enumerate(ranked, start=1):
        if hand.key != previous:
            rank, previous = i, hand.key
        shown = " ".join(f"{f:>2}" for f in faces(dice, kind))
        key = ",".join(str(k) for k in hand.key)
        extra = f"  {''.join(str(v) for v in hand.stands_for)}" if hand.stands_for is not None else ""
        lines.append(f"{rank:3d}  {shown}  {hand.category:<14}  {hand.label:<26}  {key}{extra}")
    return "\n".join(lines) + "\n"


def main() -> None:
    for name in VARIANTS:
        (HERE / f"{name}.txt").write_text(listing(name), encoding="utf-8")
        print(f"wrote {name}.txt")


if __name__ == "__main__":
    main()
