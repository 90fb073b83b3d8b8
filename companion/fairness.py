"""Are the dice fair? Pearson's chi-square test of the six faces against a fair die, its p-value, and its power.

The p-value is the chi-square survival function. With whole degrees of freedom it has a closed form (the regularized
upper incomplete gamma function of an integer or half-integer shape: a finite sum, plus ``erfc`` for odd degrees),
so the test needs no SciPy (some 40 MB, for one function a dozen lines long); ``tests/companion/test_fairness.py``
checks it against published table values. The power (the chance that the test catches a die that is off by a
given amount) is the noncentral chi-square tail, a Poisson mixture of the same central tails.

The page promises how many faces it takes to catch a die with one face at 1/4 instead of 1/6 (the others at 3/20
each), nine times in ten, at the test's level of one false alarm in a hundred tests of fair dice (see NOMINAL_POWER
for why that is worked out at a nominal 93.5 %).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

__all__ = [
    "ALPHA",
    "LOADED",
    "MIN_FACES",
    "POWER",
    "Fairness",
    "chi2_sf",
    "chi_square",
    "critical_value",
    "faces_needed",
    "judge",
    "power",
]

FACES = 6
ALPHA = 0.01  # a fair die is called unfair in one test out of a hundred
POWER = 0.9  # "sure": a die that far off is caught nine times in ten
# The noncentral chi-square is an approximation, and an optimistic one at a few hundred faces: simulated dice with
# one face at 1/4 fail the test at 441 faces (nominal power 0.90) only 87 % of the time. The promise is therefore
# worked out at a nominal 0.935, which simulated dice meet (490 faces: 90.2 % over 4,000 seeds; the tests check it).
NOMINAL_POWER = 0.935
LOADED: tuple[float, ...] = (0.25, 0.15, 0.15, 0.15, 0.15, 0.15)  # the die the page promises to catch
MIN_FACES = 30  # five expected per face: below that the chi-square approximation does not hold


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with ``df`` (a whole number >= 1) degrees of freedom, in closed form."""
    if df < 1:
        raise ValueError("degrees of freedom must be at least 1")
    if x <= 0:
        return 1.0
    y = x / 2
    if df % 2 == 0:  # Q(k, y) = e^-y * sum_{i<k} y^i / i!
        term = total = 1.0
        for i in range(1, df // 2):
            term *= y / i
            total += term
        return min(1.0, math.exp(-y) * total)
    # Q(n + 1/2, y) = erfc(sqrt y) + e^-y * sum_{i=1..n} y^(i-1/2) / Gamma(i + 1/2)
    total = 0.0
    term = 2 * math.sqrt(y / math.pi)  # y^(1/2) / Gamma(3/2)
    for i in range(1, (df - 1) // 2 + 1):
        total += term
        term *= y / (i + 0.5)
    return min(1.0, math.erfc(math.sqrt(y)) + math.exp(-y) * total)


@cache
def critical_value(alpha: float = ALPHA, df: int = FACES - 1) -> float:
    """The chi-square value a fair die exceeds with probability ``alpha`` (bisection on the closed form)."""
    lo, hi = 0.0, 1.0
    while chi2_sf(hi, df) > alpha:
        hi *= 2
    for _ in range(100):
        mid = (lo + hi) / 2
        if chi2_sf(mid, df) > alpha:
            lo = mid
        else:
            hi = mid
    return hi


def chi_square(counts: Sequence[int]) -> float:
    """Pearson's statistic of the face counts against equal shares."""
    n = sum(counts)
    if n == 0:
        return 0.0
    expected = n / len(counts)
    return sum((c - expected) ** 2 / expected for c in counts)


def power(n: int, probs: Sequence[float] = LOADED, alpha: float = ALPHA) -> float:
    """The chance that ``n`` faces of a die with these face probabilities fail the test at level ``alpha``.

    The statistic then follows (approximately) a noncentral chi-square with noncentrality n * sum((p - 1/6)^2 / (1/6)),
    whose tail is the Poisson(lambda / 2) mixture of central tails with 5 + 2j degrees of freedom."""
    df = len(probs) - 1
    share = 1 / len(probs)
    lam = n * sum((p - share) ** 2 / share for p in probs)
    crit = critical_value(alpha, df)
    half = lam / 2
    if half == 0:
        return alpha
    # Poisson weights in logs (exp(-half) underflows for many faces), over the span that holds all but 1e-12 of them;
    # each next tail by the recurrence Q(s + 1, y) = Q(s, y) + e^-y y^s / Gamma(s + 1), so the sum costs one pass.
    spread = 12 * math.sqrt(half) + 40
    first = max(0, int(half - spread))
    y = crit / 2
    tail = chi2_sf(crit, df + 2 * first)
    total = 0.0
    for j in range(first, int(half + spread) + 1):
        shape = (df + 2 * j) / 2
        total += math.exp(-half + j * math.log(half) - math.lgamma(j + 1)) * tail
        tail += math.exp(-y + shape * math.log(y) - math.lgamma(shape + 1))
    return min(1.0, total)


@cache
def faces_needed(probs: tuple[float, ...] = LOADED, alpha: float = ALPHA, target: float = NOMINAL_POWER) -> int:
    """The fewest faces with which a die like ``probs`` is caught with probability ``target``."""
    lo, hi = 1, 2
    while power(hi, probs, alpha) < target:
        hi *= 2
    while lo < hi:
        mid = (lo + hi) // 2
        if power(mid, probs, alpha) >= target:
            hi = mid
        else:
            lo = mid + 1
    return lo


@dataclass(frozen=True)
class Fairness:
    """The verdict on a set of faces. ``verdict``: ``too_few`` (under MIN_FACES), ``fair`` (no sign of an unfair
    die at level ALPHA) or ``unfair``. ``face`` is the rank (1-6) furthest from its fair share, ``share`` its share;
    ``needed`` the faces that catch the LOADED die nine times in ten, ``more`` how many of them are still missing."""

    counts: tuple[int, ...]
    n: int
    chi2: float
    p: float
    verdict: str
    face: int
    share: float
    needed: int
    more: int
    alpha: float = ALPHA

    @property
    def odds(self) -> int:
        """ "Less than once in this many tests": what the p-value means to someone who never heard of one."""
        return int(min(1_000_000, math.floor(1 / self.p))) if self.p > 0 else 1_000_000

    def to_json(self) -> dict[str, object]:
        return {
            "counts": list(self.counts),
            "faces": self.n,
            "chi2": round(self.chi2, 4),
            "df": FACES - 1,
            "p": self.p,
            "alpha": self.alpha,
            "verdict": self.verdict,
            "face": self.face,
            "share": round(self.share, 4),
            "odds": self.odds,
            "needed": self.needed,
            "more": self.more,
            "power": round(power(self.n), 4) if self.n else 0.0,
        }


def judge(counts: Sequence[int], alpha: float = ALPHA) -> Fairness:
    """The chi-square test of six face counts (index 0 is rank 1) against a fair die."""
    if len(counts) != FACES or any(c < 0 for c in counts):
        raise ValueError("six face counts, none negative")
    n = sum(counts)
    stat = chi_square(counts)
    p = chi2_sf(stat, FACES - 1) if n else 1.0
    expected = n / FACES if n else 1.0
    face = max(range(FACES), key=lambda i: abs(counts[i] - expected)) + 1
    share = counts[face - 1] / n if n else 0.0
    verdict = "too_few" if n < MIN_FACES else ("unfair" if p < alpha else "fair")
    needed = faces_needed(LOADED, alpha)
    return Fairness(tuple(counts), n, stat, p, verdict, face, share, needed, max(0, needed - n), alpha)
