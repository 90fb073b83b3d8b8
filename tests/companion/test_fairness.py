"""The dice's fairness test: the closed-form p-value against published chi-square tables, the verdicts, and the two
promises the page makes (false alarms of a fair die near the level; a die with one face at 1/4 caught within the
faces the page names)."""

from __future__ import annotations

import random

import pytest

from companion.fairness import (
    ALPHA,
    LOADED,
    MIN_FACES,
    NOMINAL_POWER,
    chi2_sf,
    chi_square,
    critical_value,
    faces_needed,
    judge,
    power,
)

# (x, df, upper tail) from standard chi-square tables (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.4) and exact forms
TABLE = [
    (11.070, 5, 0.05),
    (15.086, 5, 0.01),
    (20.515, 5, 0.001),
    (9.236, 5, 0.10),
    (1.610, 5, 0.90),
    (3.841, 1, 0.05),
    (6.635, 1, 0.01),
    (5.991, 2, 0.05),
    (9.488, 4, 0.05),
    (18.307, 10, 0.05),
]


@pytest.mark.parametrize(("x", "df", "tail"), TABLE)
def test_the_closed_form_matches_the_tables(x: float, df: int, tail: float) -> None:
    assert chi2_sf(x, df) == pytest.approx(tail, rel=2e-3)


def test_closed_forms_agree_with_their_definitions() -> None:
    # df 2: e^(-x/2); df 1: erfc(sqrt(x/2)) = P(|Z| > sqrt x), 1.96 squared gives 0.05
    assert chi2_sf(4.0, 2) == pytest.approx(0.1353352832366127, rel=1e-12)
    assert chi2_sf(1.959963984540054**2, 1) == pytest.approx(0.05, rel=1e-9)
    assert chi2_sf(0.0, 5) == 1.0
    assert chi2_sf(500.0, 5) < 1e-100
    assert critical_value(0.01) == pytest.approx(15.0863, abs=1e-3)


def test_chi_square_by_hand() -> None:
    # 60 faces, expected 10 each: (20-10)^2/10 + 5 * (8-10)^2/10 = 10 + 2 = 12
    assert chi_square([20, 8, 8, 8, 8, 8]) == pytest.approx(12.0)
    assert chi_square([10] * 6) == 0.0


def test_verdicts_and_the_sentence_figures() -> None:
    assert judge([4, 4, 4, 4, 4, 4]).verdict == "too_few"  # 24 faces < MIN_FACES
    assert judge([100] * 6).verdict == "fair"
    loaded = judge([144, 91, 91, 91, 91, 92])  # six hundred faces, one face at 24 %
    assert loaded.verdict == "unfair"
    assert loaded.face == 1 and loaded.share == pytest.approx(0.24)
    assert loaded.p < ALPHA and loaded.odds == int(1 / loaded.p)
    assert judge([100] * 6).more == 0 and judge([5] * 6).more == loaded.needed - 30


def test_power_grows_with_the_faces_and_the_promise_is_the_smallest_that_reaches_its_nominal_power() -> None:
    n = faces_needed()
    assert power(n, LOADED) >= NOMINAL_POWER > power(n - 1, LOADED)
    assert faces_needed(LOADED, ALPHA, 0.9) == 441  # the textbook figure, which simulated dice do not quite meet
    assert power(100, LOADED) < power(400, LOADED) < power(800, LOADED)
    assert power(1000, (1 / 6,) * 6) == pytest.approx(ALPHA)
    assert 450 < n < 550  # about a hundred throws of five dice


def _faces(rng: random.Random, n: int, probs: tuple[float, ...]) -> list[int]:
    counts = [0] * 6
    for face in rng.choices(range(6), weights=probs, k=n):
        counts[face] += 1
    return counts


def test_a_fair_die_raises_false_alarms_near_the_level() -> None:
    runs = 3000
    alarms = sum(judge(_faces(random.Random(seed), 600, (1 / 6,) * 6)).verdict == "unfair" for seed in range(runs))
    # ALPHA = 1 %: 30 expected; a binomial(3000, 0.01) lies within 12..50 with probability > 0.999
    assert 12 <= alarms <= 50, alarms


def test_a_die_with_one_face_at_a_quarter_is_caught_within_the_promised_faces() -> None:
    n = judge([0] * 6).needed
    runs = 2000
    caught = sum(judge(_faces(random.Random(seed), n, LOADED)).verdict == "unfair" for seed in range(runs))
    # promised: nine times in ten (a binomial(2000, 0.9) is below 0.885 once in a hundred draws)
    assert caught / runs >= 0.885, caught
    # and far fewer faces do not catch it reliably, so the promise is not empty
    few = sum(judge(_faces(random.Random(seed), 120, LOADED)).verdict == "unfair" for seed in range(300))
    assert few / 300 < 0.5


def test_min_faces_is_five_per_face() -> None:
    assert MIN_FACES == 30
    with pytest.raises(ValueError):
        judge([1, 2, 3])
