"""How fast the hold advisor answers: milliseconds for the first query of a game with two throws left (solving its
cache) and per query after it, on random positions with every number of throws left (a new hand to beat is a new
goal, solved afresh: that is the p95 of the beat cases).

    python benchmarks/advice_speed.py [--queries 300] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from companion.advice import Advice, advise_setup
from companion.core import rules_for
from companion.sheet_rows import ROWS


def _case(
    game: str, settings: dict[str, object], beat: bool, **extra: object
) -> Callable[[random.Random, int | None], Advice]:
    rules = rules_for(game)
    setup = rules.make_setup(["A", "B"], settings)

    def query(rng: random.Random, left: int | None = None) -> Advice:
        dice = [rng.randint(1, 6) for _ in range(5)]
        target = [rng.randint(1, 6) for _ in range(5)] if beat else None
        return advise_setup(setup, dice, rng.randint(0, 2) if left is None else left, target, **extra)  # type: ignore[arg-type]

    return query


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    open_rows = [r.id for r in ROWS if rng.random() < 0.6]
    cases = {
        "bone (points)": _case("bone", {}, False),
        "classic points": _case("classic", {"mode": "points"}, False),
        "classic strikes, beat": _case("classic", {}, True),
        "classic held_fixed + ace_joker, beat": _case("classic", {"held_fixed": True, "ace_joker": True}, True),
        "pokerdice, beat": _case("pokerdice", {}, True),
        "sheet, all rows": _case("sheet", {}, False),
        f"sheet, {len(open_rows)} open rows, reserve 7": _case("sheet", {}, False, open_rows=open_rows, reserve=7),
    }
    print(f"{'case':45s} {'first ms':>9s} {'median ms':>10s} {'p95 ms':>8s}  ({args.queries} random positions)")
    for name, query in cases.items():
        start = time.perf_counter()
        query(rng, 2)
        first = (time.perf_counter() - start) * 1000
        times = []
        for _ in range(args.queries):
            start = time.perf_counter()
            query(rng, None)
            times.append((time.perf_counter() - start) * 1000)
        times.sort()
        p95 = times[int(0.95 * (len(times) - 1))]
        print(f"{name:45s} {first:9.1f} {statistics.median(times):10.2f} {p95:8.2f}")


if __name__ == "__main__":
    main()
