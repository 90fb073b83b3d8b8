"""Two runs of learning_bench.py side by side, throw by throw: ``python benchmarks/learning_diff.py BASE CAND``.

Each file holds ``learning_bench.py --json``'s lines (one set a line), of the same throws read by two readers. Per set
and in all, from the sixth throw on: throws right of each, throws the candidate won and lost, and the exact sign test
of that split (``compare.sign_test``): whether a set's few throws tell the two readers apart at all.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.compare import sign_test


def runs(path: Path) -> dict[str, dict[str, Any]]:
    """A learning_bench --json log by set name (other lines skipped)."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            out[row["set"]] = row
    return out


def paired(base: str, cand: str) -> tuple[int, int]:
    """Throws the candidate read right and the base not (won), and the other way (lost)."""
    if len(base) != len(cand):
        raise ValueError(f"the runs read {len(base)} and {len(cand)} throws: not the same game.")
    won = sum(b == "0" and c == "1" for b, c in zip(base, cand, strict=True))
    lost = sum(b == "1" and c == "0" for b, c in zip(base, cand, strict=True))
    return won, lost


def table(base: dict[str, dict[str, Any]], cand: dict[str, dict[str, Any]], mode: str = "learning") -> list[str]:
    """One line a set both runs read, then the total: right of n, won, lost, sign test p."""
    lines = [f"{'set (' + mode + ', from the 6th throw)':36} {'base':>9} {'cand':>9}  won lost      p"]
    tb = tc = tn = tw = tl = 0
    for name in base:
        if name not in cand:
            continue
        b, c = base[name][mode].get("after_5"), cand[name][mode].get("after_5")
        if b is None or c is None:
            raise ValueError(f"{name}: a run without throw-by-throw results (learning_bench.py before they were kept).")
        won, lost = paired(b, c)
        rb, rc, n = b.count("1"), c.count("1"), len(b)
        lines.append(f"{name:36} {rb:4d}/{n:<4d} {rc:4d}/{n:<4d} {won:4d} {lost:4d}  {sign_test(won, lost):5.2f}")
        tb, tc, tn, tw, tl = tb + rb, tc + rc, tn + n, tw + won, tl + lost
    lines.append(f"{'all':36} {tb:4d}/{tn:<4d} {tc:4d}/{tn:<4d} {tw:4d} {tl:4d}  {sign_test(tw, tl):5.2f}")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", type=Path)
    ap.add_argument("cand", type=Path)
    ap.add_argument("--static", action="store_true", help="the static reader's throws, not the learning one's")
    args = ap.parse_args()
    print("\n".join(table(runs(args.base), runs(args.cand), "static" if args.static else "learning")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
